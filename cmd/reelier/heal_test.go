package main

import (
	"testing"

	"github.com/reelier/reelier/runtime/heal"
	"github.com/reelier/reelier/runtime/llm"
)

// TestLaddersLevelZero: at --max-level 0 there is no ladder at all, so no
// LLM setting is read and no client can be built, whatever the flags say.
func TestLaddersLevelZero(t *testing.T) {
	getenv := func(name string) string {
		t.Errorf("a Level-0 run read %s", name)
		return ""
	}
	if l := ladders(0, llm.Flags{BaseURL: "http://127.0.0.1:1/v1", APIKey: "k"}, getenv); l != nil {
		t.Error("a Level-0 run has a ladder")
	}
}

// TestLaddersDeferTheKey: above Level 0 the settings are resolved up front,
// but the client, and with it the key check, waits for a step to escalate;
// every skill of the run shares the one client.
func TestLaddersDeferTheKey(t *testing.T) {
	env := map[string]string{"REELIER_LLM_MODEL": "small", "ANTHROPIC_API_KEY": ""}
	l := ladders(2, llm.Flags{L2Model: "big"}, func(name string) string { return env[name] })
	a, b := l("a.skill.md").(*heal.Ladder), l("b.skill.md").(*heal.Ladder)
	if a.MaxLevel != 2 || a.Model != "small" || a.L2Model != "big" || a.SkillPath != "a.skill.md" || b.SkillPath != "b.skill.md" {
		t.Errorf("ladder %+v", a)
	}
	_, err := a.NewClient()
	want := "no LLM API key for https://api.anthropic.com: set REELIER_LLM_API_KEY (or ANTHROPIC_API_KEY) or pass --llm-api-key"
	if err == nil || err.Error() != want {
		t.Errorf("NewClient error %v, want %q", err, want)
	}

	l = ladders(1, llm.Flags{APIKey: "sk-x", BaseURL: "http://127.0.0.1:1/v1"}, func(string) string { return "" })
	a, b = l("a.skill.md").(*heal.Ladder), l("b.skill.md").(*heal.Ladder)
	ca, errA := a.NewClient()
	cb, errB := b.NewClient()
	if errA != nil || errB != nil || ca != cb {
		t.Errorf("clients %v %v (%v, %v), want one shared client", ca, cb, errA, errB)
	}
}
