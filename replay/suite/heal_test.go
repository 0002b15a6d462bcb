package suite

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/reelier/reelier/internal/exitstatus"
	"github.com/reelier/reelier/replay/heal"
	"github.com/reelier/reelier/replay/llm"
)

// TestLaddersLevelZero: at --max-level 0 there is no ladder at all, so no
// LLM setting is read and no client can be built, whatever the flags say.
func TestLaddersLevelZero(t *testing.T) {
	getenv := func(name string) string {
		t.Errorf("a Level-0 run read %s", name)
		return ""
	}
	if l := Ladders(0, llm.Flags{BaseURL: "http://127.0.0.1:1/v1", APIKey: "k"}, HealOptions{Mode: HealWrite}, getenv); l != nil {
		t.Error("a Level-0 run has a ladder")
	}
}

// TestLaddersDeferTheKey: above Level 0 the settings are resolved up front,
// but the client, and with it the key check, waits for a step to escalate;
// every skill of the run shares the one client.
func TestLaddersDeferTheKey(t *testing.T) {
	env := map[string]string{"REELIER_LLM_MODEL": "small", "ANTHROPIC_API_KEY": ""}
	l := Ladders(2, llm.Flags{L2Model: "big"}, HealOptions{Mode: HealWrite}, func(name string) string { return env[name] })
	a, b := l("a.skill.md").(*heal.Ladder), l("b.skill.md").(*heal.Ladder)
	if a.MaxLevel != 2 || a.Model != "small" || a.L2Model != "big" || a.SkillPath != "a.skill.md" || b.SkillPath != "b.skill.md" {
		t.Errorf("ladder %+v", a)
	}
	_, err := a.NewClient()
	want := "no LLM API key for https://api.anthropic.com: set REELIER_LLM_API_KEY (or ANTHROPIC_API_KEY) or pass --llm-api-key"
	if err == nil || err.Error() != want {
		t.Errorf("NewClient error %v, want %q", err, want)
	}

	l = Ladders(1, llm.Flags{APIKey: "sk-x", BaseURL: "http://127.0.0.1:1/v1"}, HealOptions{Mode: HealWrite}, func(string) string { return "" })
	a, b = l("a.skill.md").(*heal.Ladder), l("b.skill.md").(*heal.Ladder)
	ca, errA := a.NewClient()
	cb, errB := b.NewClient()
	if errA != nil || errB != nil || ca != cb {
		t.Errorf("clients %v %v (%v, %v), want one shared client", ca, cb, errA, errB)
	}
}

// TestLaddersHealOptions: --allow-weaker-heal and --heal=propose reach
// every ladder; --heal-patch wraps each in a proposer and removes an
// earlier patch file at once.
func TestLaddersHealOptions(t *testing.T) {
	env := func(string) string { return "" }
	a := Ladders(1, llm.Flags{}, HealOptions{Mode: HealWrite, AllowWeaker: true}, env)("a.skill.md").(*heal.Ladder)
	if !a.AllowWeaker || a.Propose {
		t.Errorf("write, allow weaker: ladder %+v", a)
	}
	a = Ladders(1, llm.Flags{}, HealOptions{Mode: HealPropose}, env)("a.skill.md").(*heal.Ladder)
	if a.AllowWeaker || !a.Propose {
		t.Errorf("propose: ladder %+v", a)
	}
	stale := filepath.Join(t.TempDir(), "heal.diff")
	if err := os.WriteFile(stale, []byte("an earlier run's patch"), 0o644); err != nil {
		t.Fatal(err)
	}
	p, ok := Ladders(1, llm.Flags{}, HealOptions{Mode: HealPropose, PatchFile: stale}, env)("a.skill.md").(*proposer)
	if !ok || !p.Propose || p.patch.path != stale {
		t.Errorf("propose to a file: healer %+v", p)
	}
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Errorf("the earlier patch file is still there (%v)", err)
	}
}

// TestHealOptionsCheck: the heal flags' usage errors.
func TestHealOptionsCheck(t *testing.T) {
	tests := []struct {
		opts HealOptions
		json bool
		want string
	}{
		{opts: HealOptions{Mode: HealWrite}},
		{opts: HealOptions{Mode: HealPropose}},
		{opts: HealOptions{Mode: HealPropose, PatchFile: "heal.diff"}, json: true},
		{opts: HealOptions{Mode: "dry"}, want: `--heal must be write or propose, got "dry"`},
		{opts: HealOptions{Mode: HealWrite, PatchFile: "heal.diff"}, want: "--heal-patch needs --heal=propose: a heal that is written back is already in the skill file"},
		{opts: HealOptions{Mode: HealPropose}, json: true, want: "--heal=propose with --json needs --heal-patch FILE: stdout carries the run records"},
	}
	for _, tt := range tests {
		err := tt.opts.Check(tt.json)
		got := ""
		if err != nil {
			got = err.Error()
			if exitstatus.Code(err) != exitstatus.Usage {
				t.Errorf("%+v: exit %d, want %d", tt.opts, exitstatus.Code(err), exitstatus.Usage)
			}
		}
		if got != tt.want {
			t.Errorf("%+v json=%v: %q, want %q", tt.opts, tt.json, got, tt.want)
		}
	}
}
