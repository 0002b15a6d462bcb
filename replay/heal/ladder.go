package heal

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"

	"github.com/reelier/reelier/lang/ast"
	"github.com/reelier/reelier/replay"
	"github.com/reelier/reelier/replay/cost"
	"github.com/reelier/reelier/replay/llm"
	"github.com/reelier/reelier/replay/runlog"
	"github.com/reelier/reelier/replay/writeback"
	"github.com/reelier/reelier/tool"
)

// Ladder is the escalation ladder for one run of one skill; it implements
// replay.Healer. A run at Level 0 has no Ladder at all.
type Ladder struct {
	// MaxLevel is the highest level to try: 1 or 2.
	MaxLevel int
	// NewClient returns the LLM client. It is called only when a step
	// escalates, so a run that never diverges never builds a client or
	// needs a key; an error (such as a missing key) fails the step.
	NewClient func() (llm.Client, error)
	// Model serves Level 1 and L2Model Level 2.
	Model   string
	L2Model string
	// SkillPath is the file heals are written back to; "" means the skill
	// was not read from a file, and a heal holds for this run only.
	SkillPath string
	// AllowWeaker accepts a patch that drops a value check of the step
	// (--allow-weaker-heal); without it such a patch is refused (weaken.go).
	AllowWeaker bool
	// Prices turn each attempt's tokens into money on the run record;
	// nil records no cost (the tokens' cost is then unknown).
	Prices *cost.Table
	// Propose leaves the skill file as it is (--heal=propose): each heal
	// that holds is applied to a copy in memory, and Healing.Proposal
	// carries the unified diff of the file with every heal so far.
	Propose bool

	// original and proposed are the skill file as first read by a
	// proposing ladder and with its heals applied.
	original, proposed []byte
}

// errNoFile is why a heal of a skill read from no file is not saved.
var errNoFile = errors.New("the skill was not read from a file, so the heal holds for this run only")

// Heal implements replay.Healer: Level 1, then Level 2 when allowed, and
// the write-back of a heal that holds.
func (l *Ladder) Heal(ctx context.Context, d *replay.Divergence) *replay.Healing {
	if l.MaxLevel < 1 {
		return nil
	}
	client, err := l.NewClient()
	if err != nil {
		return &replay.Healing{Failures: []replay.Failure{{Message: "Escalation not attempted: " + err.Error()}}}
	}
	e := &escalation{ladder: l, d: d, client: client, h: &replay.Healing{}}
	why, ok := e.try(ctx, 1, "")
	if !ok && l.MaxLevel >= 2 {
		if d.Effect() == ast.EffectDestructive {
			e.fail(fmt.Sprintf("Level 3: step %d (%s) is destructive, so the ladder will not re-execute it at Level 2; fix the skill by hand",
				d.Step.Number, d.Step.Title))
			return e.h
		}
		if _, ok = e.try(ctx, 2, why); !ok {
			e.fail(fmt.Sprintf("Level 3: Level 2 could not heal step %d (%s) either; fix the skill by hand", d.Step.Number, d.Step.Title))
		}
	}
	if ok {
		e.h.NotSaved = l.save(d, e.h)
	}
	return e.h
}

// escalation is one step's climb up the ladder.
type escalation struct {
	ladder *Ladder
	d      *replay.Divergence
	client llm.Client
	h      *replay.Healing
}

// try makes one attempt at level. It reports why the attempt did not hold,
// or true once the heal is filled in.
func (e *escalation) try(ctx context.Context, level int, previous string) (string, bool) {
	e.h.Attempted = level
	p, obs, why := e.propose(ctx, level, previous)
	if why == "" {
		if failures := e.d.Check(obs, p.asserts, p.binds); len(failures) > 0 {
			why = fmt.Sprintf("the patch does not hold: %s", failures[0].Message)
			if len(failures) > 1 {
				why += fmt.Sprintf(" (and %d more)", len(failures)-1)
			}
		}
	}
	if why != "" {
		e.fail(fmt.Sprintf("Level %d heal failed: %s", level, why))
		return why, false
	}
	e.h.Level, e.h.Reason = level, p.reason
	e.h.Asserts, e.h.Binds, e.h.Args = p.asserts, p.binds, p.args
	e.h.Before, e.h.After = changedLines(e.d.Step, p)
	return "", true
}

// propose asks the model for a patch, validates it and, at Level 2,
// re-executes the step once. It returns the patch and the observation to
// check it against, or why there is none.
func (e *escalation) propose(ctx context.Context, level int, previous string) (*patch, *tool.Observation, string) {
	model := e.ladder.Model
	if level >= 2 {
		model = e.ladder.L2Model
	}
	sys, user := prompt(e.d, level, previous)
	resp, err := e.client.Complete(ctx, llm.Request{Model: model, System: sys, Prompt: user})
	e.count(model, resp.Usage)
	if err != nil {
		return nil, nil, err.Error()
	}
	p, err := parsePatch(resp.Text, level, e.d, e.ladder.AllowWeaker)
	if err != nil {
		return nil, nil, "patch refused: " + err.Error()
	}
	if level < 2 {
		return p, e.d.Observation, ""
	}
	args := p.args
	if args == nil {
		args = e.d.Step.Action.Args
	}
	act, obs, err := e.d.Rerun(ctx, args)
	if err != nil {
		return nil, nil, "re-executing the step failed: " + err.Error()
	}
	e.h.Action, e.h.Observation = act, obs
	return p, obs, ""
}

// count adds an attempt's tokens to the step's usage, by model, with
// what the model's tokens so far cost (priced on their sum, so rounding
// happens once per model).
func (e *escalation) count(model string, u llm.Usage) {
	if e.h.Usage == nil {
		e.h.Usage = &runlog.LLMUsage{}
	}
	e.h.Usage.InputTokens += u.InputTokens
	e.h.Usage.OutputTokens += u.OutputTokens
	if u.InputTokens == 0 && u.OutputTokens == 0 {
		return
	}
	i := slices.IndexFunc(e.h.Usage.Models, func(m runlog.ModelUsage) bool { return m.Model == model })
	if i < 0 {
		e.h.Usage.Models = append(e.h.Usage.Models, runlog.ModelUsage{Model: model})
		i = len(e.h.Usage.Models) - 1
	}
	m := &e.h.Usage.Models[i]
	m.InputTokens += u.InputTokens
	m.OutputTokens += u.OutputTokens
	m.CostMicroUSD = nil
	if e.ladder.Prices != nil {
		if c, ok := e.ladder.Prices.Cost(model, cost.Tokens{Input: m.InputTokens, Output: m.OutputTokens}); ok {
			v := int64(c)
			m.CostMicroUSD = &v
		}
	}
}

func (e *escalation) fail(msg string) {
	e.h.Failures = append(e.h.Failures, replay.Failure{Message: msg})
}

// save writes the heal back to the skill file or, when the ladder only
// proposes, adds it to the proposal.
func (l *Ladder) save(d *replay.Divergence, h *replay.Healing) error {
	if l.SkillPath == "" {
		return errNoFile
	}
	wh := &writeback.Heal{
		Step: d.Step.Number, Title: d.Step.Title, Tool: d.Step.Action.Tool,
		Level: h.Level, Reason: h.Reason, Date: d.Now,
		Asserts: h.Asserts, Binds: h.Binds, Args: h.Args,
	}
	if !l.Propose {
		return writeback.Apply(l.SkillPath, wh)
	}
	if l.original == nil {
		src, err := os.ReadFile(l.SkillPath)
		if err != nil {
			return err
		}
		l.original, l.proposed = src, src
	}
	out, err := writeback.Patch(l.SkillPath, l.proposed, wh)
	if err != nil {
		return err
	}
	l.proposed = out
	h.Proposal = unifiedDiff(l.SkillPath, l.original, out)
	return nil
}
