package suite

import (
	"bytes"
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sync"

	"github.com/reelier/reelier/internal/atomicfile"
	"github.com/reelier/reelier/internal/exitstatus"
	"github.com/reelier/reelier/replay"
	"github.com/reelier/reelier/replay/cost"
	"github.com/reelier/reelier/replay/heal"
	"github.com/reelier/reelier/replay/llm"
)

// What an accepted heal does with the skill file (--heal).
const (
	HealWrite   = "write"   // write it back, with a changelog line (the default)
	HealPropose = "propose" // leave the file alone and show the diff
)

// HealOptions are the run flags that decide what a heal may do and where
// it goes.
type HealOptions struct {
	// Mode is HealWrite or HealPropose.
	Mode string
	// PatchFile, with HealPropose, receives the proposed heals as one
	// unified diff instead of stdout.
	PatchFile string
	// AllowWeaker accepts a heal that drops value checks.
	AllowWeaker bool
	// Prices price the heals' tokens on the run record; Run loads
	// Reelier's table with the user's file over it when this is nil and
	// the run may escalate.
	Prices *cost.Table
}

// Check reports a usage error in the heal flags; json is --json.
func (h HealOptions) Check(json bool) error {
	switch {
	case h.Mode != HealWrite && h.Mode != HealPropose:
		return exitstatus.Usagef("--heal must be %s or %s, got %q", HealWrite, HealPropose, h.Mode)
	case h.PatchFile != "" && h.Mode != HealPropose:
		return exitstatus.Usagef("--heal-patch needs --heal=%s: a heal that is written back is already in the skill file", HealPropose)
	case h.Mode == HealPropose && json && h.PatchFile == "":
		return exitstatus.Usagef("--heal=%s with --json needs --heal-patch FILE: stdout carries the run records", HealPropose)
	}
	return nil
}

// Ladders returns what gives each skill its escalation ladder, or nil at
// --max-level 0. A Level-0 run therefore has no Healer: it never reads the
// LLM settings and never constructs a client. Above Level 0 the settings
// are resolved now (flags > environment > defaults) but the client, and
// the check for a key, wait until a step actually escalates; every skill of
// the run shares that one client.
//
// With --heal=propose the ladders leave the skill files alone; with
// --heal-patch FILE an earlier FILE is removed now, and FILE is written
// whenever a heal is proposed, holding every proposal of the run.
func Ladders(level int, flags llm.Flags, opts HealOptions, getenv func(string) string) func(skillFile string) replay.Healer {
	var patch *proposals
	if opts.Mode == HealPropose && opts.PatchFile != "" {
		patch = &proposals{path: opts.PatchFile, diffs: map[string]string{}}
		os.Remove(opts.PatchFile) // a failure shows when a proposal is written
	}
	if level == 0 {
		return nil
	}
	cfg := llm.Resolve(flags, getenv)
	client := sync.OnceValues(func() (llm.Client, error) { return llm.NewClient(cfg) })
	return func(skillFile string) replay.Healer {
		l := &heal.Ladder{MaxLevel: level, NewClient: client, Model: cfg.Model, L2Model: cfg.L2Model, SkillPath: skillFile,
			AllowWeaker: opts.AllowWeaker, Propose: opts.Mode == HealPropose, Prices: opts.Prices}
		if patch == nil {
			return l
		}
		return &proposer{Ladder: l, patch: patch}
	}
}

// proposer is a proposing ladder whose proposals go to --heal-patch.
type proposer struct {
	*heal.Ladder
	patch *proposals
}

// Heal implements replay.Healer: the ladder's heal, its proposal saved to
// the patch file. A proposal that cannot be saved is reported like a heal
// that could not be written back.
func (p *proposer) Heal(ctx context.Context, d *replay.Divergence) *replay.Healing {
	h := p.Ladder.Heal(ctx, d)
	if h != nil && h.Proposal != "" {
		if err := p.patch.add(p.SkillPath, h.Proposal); err != nil {
			h.Proposal, h.NotSaved = "", fmt.Errorf("the proposed heal could not be saved: %w", err)
		}
	}
	return h
}

// proposals keeps --heal-patch FILE holding the latest proposal of every
// skill file, in file name order.
type proposals struct {
	mu    sync.Mutex
	path  string
	diffs map[string]string
}

func (p *proposals) add(skillFile, diff string) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.diffs[skillFile] = diff
	var b bytes.Buffer
	for _, f := range slices.Sorted(maps.Keys(p.diffs)) {
		b.WriteString(p.diffs[f])
	}
	if err := os.MkdirAll(filepath.Dir(p.path), 0o755); err != nil {
		return fmt.Errorf("writing %s: %w", p.path, err)
	}
	if err := atomicfile.Write(p.path, b.Bytes(), 0o644); err != nil {
		return fmt.Errorf("writing %s: %w", p.path, err)
	}
	return nil
}

// showProposal prints the diff of a run's proposed heals after its receipt,
// unless --heal-patch takes them. The last proposal of a run holds every
// heal of it.
func (s *runner) showProposal(o *outcome) {
	if s.opts.Heal.PatchFile != "" || s.opts.JSON {
		return
	}
	diff := ""
	for _, sr := range o.res.Steps {
		if sr.Heal != nil && sr.Heal.Proposal != "" {
			diff = sr.Heal.Proposal
		}
	}
	if diff != "" {
		fmt.Fprintf(s.out, "  proposed heal of %s, not written (apply it with patch -p0):\n%s", o.skill.Path, diff)
	}
}
