package serve

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	word "github.com/reelier/reelier/internal/words"
	"github.com/reelier/reelier/lang/ast"
	"github.com/reelier/reelier/lang/grammar"
	"github.com/reelier/reelier/mcpx"
	"github.com/reelier/reelier/replay"
	"github.com/reelier/reelier/replay/httptool"
	"github.com/reelier/reelier/replay/provenance"
	"github.com/reelier/reelier/replay/runlog"
	"github.com/reelier/reelier/tool"
)

// ReplayInput is the input of reelier_replay. There is deliberately no
// level: a replay from this surface is always Level 0, and an unknown
// argument such as maxLevel is refused by the input schema.
type ReplayInput struct {
	SkillPath        string            `json:"skillPath" jsonschema:"the .skill.md file to replay, relative to the working directory (or to cwd)"`
	Vars             map[string]string `json:"vars,omitempty" jsonschema:"template variables, name to value, like --var name=value"`
	Wrap             []string          `json:"wrap,omitempty" jsonschema:"MCP server commands to start and replay against, like --wrap (stdio only)"`
	AllowWrites      bool              `json:"allowWrites,omitempty" jsonschema:"let idempotent-write steps execute, like --allow-writes"`
	AllowDestructive bool              `json:"allowDestructive,omitempty" jsonschema:"let destructive (and idempotent-write) steps execute, like --yes"`
	Cwd              string            `json:"cwd,omitempty" jsonschema:"a directory inside the working directory to act in: relative paths and .reelier/runs are resolved against it"`
}

// errWrapOverHTTP refuses wrap where it is not offered.
var errWrapOverHTTP = errors.New("wrap starts processes, so it is only available when reelier serve runs on stdio, not over HTTP; replay without wrap, or run the skill from a shell")

var toolReplay = &mcp.Tool{
	Name:  "reelier_replay",
	Title: "Replay a skill (Level 0, no LLM)",
	Description: "Replay a .skill.md file deterministically: every step's tool call is made again and every assert checked, " +
		"with no LLM at any point (always Level 0). Returns the run record exactly as it is appended to .reelier/runs/<skill>.jsonl: " +
		"verdict is passed (no step failed and something was checked), failed, unchecked (no step checked anything) or interrupted, and passed is true exactly when the verdict is passed; " +
		"a step with no asserts is \"unchecked\" (it ran, nothing was verified) and is never counted as passed; a failed step's kind says why (check, tool, gate, input); " +
		"every input (a {{name}} no earlier step binds) must be given in vars, or nothing runs and no record is written; " +
		"after the first failed step the rest are \"skipped\". Destructive steps are refused unless allowDestructive is true, " +
		"idempotent-write steps unless allowWrites (or allowDestructive) is true. A replay that ran is not an error even when a step failed: read passed and each step's failures.",
	Annotations: &mcp.ToolAnnotations{OpenWorldHint: ptr(true)},
}

func (s *Server) replay(ctx context.Context, _ *mcp.CallToolRequest, in ReplayInput) (*mcp.CallToolResult, runlog.Record, error) {
	if len(in.Wrap) > 0 && !s.opts.AllowWrap {
		return nil, runlog.Record{}, errWrapOverHTTP
	}
	base, err := s.base(in.Cwd)
	if err != nil {
		return nil, runlog.Record{}, err
	}
	skill, src, err := s.loadSkill(base, in.SkillPath)
	if err != nil {
		return nil, runlog.Record{}, err
	}
	if err := checkVars(in.Vars); err != nil {
		return nil, runlog.Record{}, err
	}
	if _, err := replay.SkillLimits(skill); err != nil {
		return nil, runlog.Record{}, fmt.Errorf("skillPath %q: %v; nothing ran", in.SkillPath, err)
	}
	if missing := replay.MissingInputs(skill, in.Vars); len(missing) > 0 {
		names := make([]string, len(missing))
		for i, m := range missing {
			names[i] = fmt.Sprintf("%s (step %d, line %d)", m.Name, m.Step, m.Range.Start.Line)
		}
		return nil, runlog.Record{}, fmt.Errorf("vars: the skill needs %s, so nothing ran and no run record was written; give each in vars", strings.Join(names, ", "))
	}
	tools := tool.Registry{}
	httptool.Register(tools, s.opts.HTTPClient)
	if len(in.Wrap) > 0 {
		router, err := mcpx.Start(ctx, in.Wrap, mcpx.Options{Stderr: s.opts.Stderr, Version: s.opts.Version})
		if err != nil {
			return nil, runlog.Record{}, fmt.Errorf("wrap: %w", err)
		}
		defer router.Close()
		router.Register(tools, s.opts.Stderr)
	}
	sum := sha256.Sum256(src)
	res := replay.Run(ctx, skill, replay.Options{
		Tools: tools, Vars: in.Vars, Yes: in.AllowDestructive, AllowWrites: in.AllowWrites, Clock: s.opts.Clock,
		Path: s.skillDisplay(base, in.SkillPath), SkillSHA256: hex.EncodeToString(sum[:]),
		OpenQuestions: openQuestions(skill),
	})
	res.Record.Provenance = provenance.FromEnv(os.Getenv)
	if err := s.appendRecord(base, &res.Record); err != nil {
		return nil, runlog.Record{}, fmt.Errorf("the replay ran (passed: %t) but its run record could not be written: %w", res.Record.Passed, err)
	}
	return nil, res.Record, nil
}

// skillDisplay is how the record names the skill file: relative to the
// working directory, slash-separated.
func (s *Server) skillDisplay(base, given string) string {
	p, _, err := within("skillPath", base, given, s.work)
	if err != nil {
		return filepath.ToSlash(given)
	}
	return s.display(p)
}

// loadSkill resolves, reads and parses a skill file inside the working
// directory; a skill with parse errors is refused with every diagnostic.
func (s *Server) loadSkill(base, given string) (*ast.Skill, []byte, error) {
	p, _, err := within("skillPath", base, given, s.work)
	if err != nil {
		return nil, nil, err
	}
	src, err := readIn(s.work, "skillPath", given, p)
	if err != nil {
		return nil, nil, err
	}
	skill, diags := grammar.Parse(s.display(p), src)
	if diags.HasErrors() {
		lines := make([]string, 0, len(diags))
		for _, d := range diags {
			lines = append(lines, d.String())
		}
		return nil, nil, fmt.Errorf("skillPath %q does not parse, so nothing ran:\n%s", given, strings.Join(lines, "\n"))
	}
	return skill, src, nil
}

// appendRecord appends the record to <base>/.reelier/runs, refusing a
// runs directory or history file that a link leads out of the working
// directory. The append goes through the working directory's os.Root, so
// a link swapped in after the check is refused too.
func (s *Server) appendRecord(base string, rec *runlog.Record) error {
	dir, _, err := within("the runs directory", base, runlog.DefaultDir, s.work)
	if err != nil {
		return err
	}
	if _, _, err := within("the run history", dir, runlog.FileName(rec.Skill), s.work); err != nil {
		return err
	}
	name, err := s.work.name(dir)
	if err != nil {
		return err
	}
	_, err = runlog.AppendIn(s.work.root, name, rec)
	return s.work.refusedLate(err, "the runs directory", runlog.DefaultDir)
}

// checkVars applies the rules of --var: a name is an identifier and not
// one of the computed date variables.
func checkVars(vars map[string]string) error {
	for name := range vars {
		if !word.IsIdent(name) {
			return fmt.Errorf("vars: invalid name %q: a name is a letter or _ followed by letters, digits or _", name)
		}
		if grammar.IsReservedName(name) {
			return fmt.Errorf("vars: %q is reserved for the computed date variables", name)
		}
	}
	return nil
}

func ptr[T any](v T) *T { return &v }

// openQuestions are the skill's unresolved open questions as the run
// record keeps them.
func openQuestions(skill *ast.Skill) []runlog.OpenQuestion {
	var out []runlog.OpenQuestion
	for _, q := range grammar.OpenQuestions(skill) {
		out = append(out, runlog.OpenQuestion{Line: int(q.Range.Start.Line), Step: q.Step})
	}
	return out
}
