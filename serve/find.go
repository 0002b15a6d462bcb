package serve

import (
	"bytes"
	"context"
	"errors"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/reelier/reelier/lang/grammar"
	"github.com/reelier/reelier/replay/runlog"
)

// FindSkillInput is the input of reelier_find_skill.
type FindSkillInput struct {
	Task  string `json:"task" jsonschema:"what you are about to do, in plain words, e.g. 'list this week's bookings for a hotel'"`
	Dir   string `json:"dir,omitempty" jsonschema:"a folder inside the working directory to search instead of all of it"`
	Limit int    `json:"limit,omitempty" jsonschema:"the most skills to return (default 5, at most 50)"`
}

// FindSkillOutput is the ranked answer of reelier_find_skill.
type FindSkillOutput struct {
	// Words are the task words that counted, as written, after common
	// words were dropped.
	Words []string `json:"words"`
	// Searched counts the skill files that parsed and were ranked.
	Searched int          `json:"searched"`
	Skills   []FoundSkill `json:"skills"`
	// Unparseable lists skill files left out because they do not parse
	// (a replay would refuse them too).
	Unparseable []string `json:"unparseable,omitempty"`
	Message     string   `json:"message"`
}

// FoundSkill is one skill that matches, with why.
type FoundSkill struct {
	Path        string  `json:"path"`
	Name        string  `json:"name"`
	Description string  `json:"description,omitempty"`
	Steps       int     `json:"steps"`
	Score       float64 `json:"score"`
	// Matched and Of: how many of the task words the skill has.
	Matched int    `json:"matched"`
	Of      int    `json:"of"`
	Why     string `json:"why"`
	// LastRun is the skill's latest run record's verdict, when it has a
	// run history in the working directory.
	LastRun *LastRun `json:"lastRun,omitempty"`
}

// LastRun is the verdict of a skill's latest recorded run.
type LastRun struct {
	Passed         bool   `json:"passed"`
	FinishedAt     string `json:"finishedAt"`
	PassedSteps    int    `json:"passedSteps"`
	UncheckedSteps int    `json:"uncheckedSteps"`
	FailedSteps    int    `json:"failedSteps"`
}

// The limits of reelier_find_skill.
const (
	defaultFindLimit = 5
	maxFindLimit     = 50
)

var toolFindSkill = &mcp.Tool{
	Name:  "reelier_find_skill",
	Title: "Find an existing skill for a task",
	Description: "Before redoing a repeatable API or MCP task, look for a skill that already does it: the skill files (*.skill.md, and SKILL.md with Reelier steps) in the working directory " +
		"are ranked against the task description by the words they share — in the skill's name (weight 3), description (2), tool names and URL hosts and paths (2), " +
		"and step titles and intents (1.5) — weighted by how rare each word is among the skills. Plain lexical matching, deterministic; each result says which words matched where " +
		"and carries the verdict of its last recorded run. An empty list means no skill shares a word with the task: do the task, then reelier_from_session can make one.",
	Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: ptr(false)},
}

func (s *Server) findSkill(_ context.Context, _ *mcp.CallToolRequest, in FindSkillInput) (*mcp.CallToolResult, FindSkillOutput, error) {
	q := newQuery(in.Task)
	if len(q.stems) == 0 {
		return nil, FindSkillOutput{}, errors.New("task: no words left to match once common words are dropped; describe the task, e.g. \"list this week's bookings\"")
	}
	limit := in.Limit
	switch {
	case limit == 0:
		limit = defaultFindLimit
	case limit < 0 || limit > maxFindLimit:
		return nil, FindSkillOutput{}, fmt.Errorf("limit must be between 1 and %d, got %d", maxFindLimit, limit)
	}
	dir := s.work.dir
	if in.Dir != "" {
		var err error
		if dir, _, err = within("dir", s.work.dir, in.Dir, s.work); err != nil {
			return nil, FindSkillOutput{}, err
		}
	}
	files, err := skillFiles(dir)
	if err != nil {
		return nil, FindSkillOutput{}, fmt.Errorf("dir %q: %w", in.Dir, err)
	}
	out := FindSkillOutput{Skills: []FoundSkill{}}
	for _, w := range q.stems {
		out.Words = append(out.Words, q.shown[w])
	}
	var docs []*doc
	found := map[*doc]FoundSkill{}
	for _, p := range files {
		src, err := s.work.readFile(p)
		if err != nil {
			out.Unparseable = append(out.Unparseable, s.display(p)+": "+err.Error())
			continue
		}
		if agentSkillOnly(p, src) {
			continue
		}
		sk, diags := grammar.Parse(s.display(p), src)
		if diags.HasErrors() {
			out.Unparseable = append(out.Unparseable, s.display(p))
			continue
		}
		d := newDoc(s.display(p), sk)
		docs = append(docs, d)
		found[d] = FoundSkill{Path: d.path, Name: sk.Name(), Description: sk.Description(), Steps: len(sk.Steps)}
	}
	out.Searched = len(docs)
	for _, m := range rank(q, docs) {
		if len(out.Skills) == limit {
			break
		}
		f := found[m.doc]
		f.Score, f.Matched, f.Of, f.Why = m.score, len(m.found), len(q.stems), m.why(len(q.stems))
		f.LastRun = s.lastRun(f.Name)
		out.Skills = append(out.Skills, f)
	}
	out.Message = findMessage(out)
	return nil, out, nil
}

func findMessage(out FindSkillOutput) string {
	switch {
	case out.Searched == 0:
		return "No skill files (*.skill.md) were found to search. Do the task, then turn the session into a skill with reelier_from_session."
	case len(out.Skills) == 0:
		return fmt.Sprintf("None of the %d skills shares a word with the task. Do the task, then turn the session into a skill with reelier_from_session.", out.Searched)
	}
	return fmt.Sprintf("%d of %d skills share words with the task, best first. Read the best one's steps before relying on it; reelier_replay runs it at Level 0.", len(out.Skills), out.Searched)
}

// lastRun reads the verdict of the skill's latest run record in the
// working directory's run history, if it has one that can be read.
func (s *Server) lastRun(skill string) *LastRun {
	p, _, err := within("the run history", s.work.dir, runsPath(skill), s.work)
	if err != nil {
		return nil
	}
	data, err := s.work.readFile(p)
	if err != nil {
		return nil
	}
	h, err := runlog.Read(bytes.NewReader(data))
	if err != nil || len(h.Entries) == 0 {
		return nil
	}
	r := h.Entries[len(h.Entries)-1].Record
	return &LastRun{Passed: r.Passed, FinishedAt: r.FinishedAt, PassedSteps: r.Totals.Passed, UncheckedSteps: r.Totals.Unchecked, FailedSteps: r.Totals.Failed}
}
