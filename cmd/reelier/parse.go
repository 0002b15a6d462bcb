package main

import (
	"encoding/json"
	"fmt"
	"github.com/reelier/reelier/lang/grammar"

	"github.com/reelier/reelier/lang/ast"
	"github.com/reelier/reelier/lang/astdump"
	"github.com/reelier/reelier/lang/format"
	"github.com/spf13/cobra"
)

const parseLong = `Parse a SKILL.md file and report its structure or its errors.

Without --json a short summary goes to stdout and diagnostics to stderr as
path:line:col: severity: step N: message [code].

With --json one JSON document goes to stdout:
  success: {"ok":true,"skill":{"name":…,"description":…,"steps":[{"n":1,
           "title":…,"intent":…,"tool":…,"args":<json>,"asserts":["…"],
           "binds":["…"],"effect":…}]}}
  failure: {"ok":false,"errors":[{"line":N,"column":N,"step":N|null,
           "code":"…","message":"…"}]}
asserts and binds are printed in canonical form; args keep key order. A
step with selections (first(…), count(…), …) also has "selections": each
one typed, with "in" ("assert" or "bind") and "index" saying where it is.

Exit status: 0 when the file parses, 2 when it does not or cannot be read.

Examples:
  reelier parse weekly-bookings.skill.md
  reelier parse --json weekly-bookings.skill.md | jq '.skill.steps[].tool'`

type parseOptions struct {
	path string
	json bool
}

func newParseCmd() *cobra.Command {
	var opts parseOptions
	cmd := &cobra.Command{
		Use:   "parse FILE",
		Short: "Parse a skill and print its structure or its errors",
		Long:  parseLong,
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.path = args[0]
			return parseRun(cmd, opts)
		},
	}
	cmd.Flags().BoolVar(&opts.json, "json", false, "print the result as JSON")
	return cmd
}

// parsedStep is one step of `parse --json` output.
type parsedStep struct {
	N       int             `json:"n"`
	Title   string          `json:"title"`
	Intent  string          `json:"intent"`
	Tool    string          `json:"tool"`
	Args    json.RawMessage `json:"args"`
	Asserts []string        `json:"asserts"`
	Binds   []string        `json:"binds"`
	Effect  string          `json:"effect"`
	// Selections types the step's selection asserts and binds (SPEC.md
	// §5.1); absent when it has none, so other steps print as before.
	Selections []astdump.Selection `json:"selections,omitempty"`
}

type parsedSkill struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	// Frontmatter is the whole frontmatter as a host reading its YAML
	// gets it (SPEC.md §2), keys in file order.
	Frontmatter ast.OrderedMap `json:"frontmatter"`
	Steps       []parsedStep   `json:"steps"`
}

// parseError is one rejection; line and column are 1-based, the column
// counted in characters (Unicode code points), as every diagnostic is.
type parseError struct {
	Line    int    `json:"line"`
	Column  int    `json:"column"`
	Step    *int   `json:"step"`
	Code    string `json:"code"`
	Message string `json:"message"`
}

type parseResult struct {
	OK     bool         `json:"ok"`
	Skill  *parsedSkill `json:"skill,omitempty"`
	Errors []parseError `json:"errors,omitempty"`
}

func parseRun(cmd *cobra.Command, opts parseOptions) error {
	if !opts.json {
		return parseCheck(cmd, opts)
	}
	l, err := loadOneShot(opts.path, cmd.InOrStdin())
	if err != nil {
		return err
	}
	out := cmd.OutOrStdout()
	failed := l.diags.HasErrors()
	res := parseResult{OK: !failed}
	if failed {
		for _, d := range l.diags {
			e := parseError{Line: int(d.Range.Start.Line), Column: int(d.Range.Start.Column), Code: d.Code, Message: d.Message}
			if d.Step > 0 {
				step := d.Step
				e.Step = &step
			}
			res.Errors = append(res.Errors, e)
		}
	} else {
		res.Skill = summarize(l.skill)
	}
	enc := json.NewEncoder(out)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(res); err != nil {
		return err
	}
	if failed {
		return silentExit(exitUsage)
	}
	return nil
}

// parseCheck is parse without --json: the summary needs the skill's name
// and step count only, so the steps are checked and let go one by one
// (grammar.Check) rather than kept as a tree.
func parseCheck(cmd *cobra.Command, opts parseOptions) error {
	path, src, err := readSkill(opts.path, cmd.InOrStdin())
	if err != nil {
		return err
	}
	gcForFile(len(src))
	skill, steps, diags := grammar.Check(path, src)
	failed := diags.HasErrors()
	if failed && isAgentSkillFile(path) && !grammar.HasStepHeader(src) {
		// An ordinary Agent Skill: its own frontmatter and body are
		// not errors of a Reelier skill; say what it is instead.
		return notReplayable(path)
	}
	printDiagnostics(cmd.ErrOrStderr(), diags)
	if failed {
		return silentExit(exitUsage)
	}
	fmt.Fprintf(cmd.OutOrStdout(), "%s: ok: skill %q, %d steps\n", path, skill.Name(), steps)
	return nil
}

func summarize(s *ast.Skill) *parsedSkill {
	ps := &parsedSkill{Name: s.Name(), Description: s.Description(), Frontmatter: s.Frontmatter.Data(), Steps: []parsedStep{}}
	for _, st := range s.Steps {
		step := parsedStep{N: st.Number, Title: st.Title, Asserts: []string{}, Binds: []string{}, Effect: string(st.EffectValue())}
		if st.Intent != nil {
			step.Intent = st.Intent.Text
		}
		if st.Action != nil {
			step.Tool = st.Action.Tool
			step.Args = json.RawMessage(format.Value(st.Action.Args))
		}
		for _, a := range st.Asserts {
			step.Asserts = append(step.Asserts, format.Assert(a.Expr))
		}
		for _, b := range st.Binds {
			step.Binds = append(step.Binds, format.Bind(b.Expr))
		}
		step.Selections = astdump.Selections(st)
		ps.Steps = append(ps.Steps, step)
	}
	return ps
}
