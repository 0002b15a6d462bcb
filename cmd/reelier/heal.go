package main

import (
	"sync"

	"github.com/reelier/reelier/runtime"
	"github.com/reelier/reelier/runtime/heal"
	"github.com/reelier/reelier/runtime/llm"
)

// ladders returns what gives each skill its escalation ladder, or nil at
// --max-level 0. A Level-0 run therefore has no Healer: it never reads the
// LLM settings and never constructs a client. Above Level 0 the settings
// are resolved now (flags > environment > defaults) but the client, and
// the check for a key, wait until a step actually escalates; every skill of
// the run shares that one client.
func ladders(level int, flags llm.Flags, getenv func(string) string) func(skillFile string) runtime.Healer {
	if level == 0 {
		return nil
	}
	cfg := llm.Resolve(flags, getenv)
	client := sync.OnceValues(func() (llm.Client, error) { return llm.NewClient(cfg) })
	return func(skillFile string) runtime.Healer {
		return &heal.Ladder{MaxLevel: level, NewClient: client, Model: cfg.Model, L2Model: cfg.L2Model, SkillPath: skillFile}
	}
}
