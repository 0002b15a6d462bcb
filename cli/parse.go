package cli

import (
	"encoding/json"
	"fmt"

	"github.com/reelier/reelier/lang/grammar"

	"github.com/reelier/reelier/lang/astdump"
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

func parseRun(cmd *cobra.Command, opts parseOptions) error {
	if !opts.json {
		return parseCheck(cmd, opts)
	}
	l, err := loadOneShot(opts.path, cmd.InOrStdin())
	if err != nil {
		return err
	}
	out := cmd.OutOrStdout()
	res := astdump.Parse(l.skill, l.diags)
	failed := !res.OK
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
