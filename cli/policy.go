package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/reelier/reelier/internal/atomicfile"
	"github.com/reelier/reelier/internal/termtext"
	"github.com/reelier/reelier/internal/words"
	"github.com/reelier/reelier/lang/loader"
	"github.com/reelier/reelier/policy"
	"github.com/spf13/cobra"
)

const policyLong = `The seatbelt: a policy file of ordered rules that every tool call is put
to before it reaches a server — in ` + "`reelier mcp`" + ` (the live agent) and in
` + "`reelier run`" + ` (replays). Each rule has a name, a CEL condition (when), an
action (allow, deny, dry-run, ask) and a message; the first rule whose
condition holds decides, and the file's default (allow unless it says
otherwise) decides the rest. The format is in the "Policy" sections of
SPEC.md and the README.

The rules' CEL variables: server (name, command, host), tool, args,
annotations (the tool's MCP hints, defaults filled in) and effect (read,
idempotent-write, destructive). A file that does not load is reported at
path:line:col, and nothing runs under it: reelier mcp and reelier run
exit 2. Each decision is kept on the trace and the run record with the
policy's sha256 digest and the deciding rule.

Files, in the order their rules apply (--policy FILE names one instead):
.reelier/policy.yaml in the current directory (the project's; a symbolic
link out of the project is refused), then reelier/policy.yaml in the
user's configuration directory. The first file that sets default: decides
the default.

The engine that reads and evaluates policies (CEL) is the reelier-seatbelt
program, installed beside reelier:
  go install github.com/reelier/reelier/cmd/reelier-seatbelt@latest
reelier hands check, test and from-skill — and mcp and run under a policy
— to it (found at $REELIER_SEATBELT, beside reelier, or on PATH; on unix
by exec, same arguments, environment and streams). Without it nothing
runs under a policy: exit 2, naming the policy. With no policy file
reelier never looks for it.

  check [FILE…]        load the files (or the ones found) and report every
                       mistake at path:line:col; --format sarif for
                       code scanning. Exit 0 clean, 1 mistakes, 2 nothing
                       to check or a file that cannot be read.
  test FILE TRACE      what FILE would decide for each call of a recording,
                       one line each. Exit 1 when any call would be denied,
                       2 when FILE does not load.
  from-skill SKILL     a policy allowing exactly the tools, argument keys
                       and argument types SKILL's steps use, denying every
                       other call; to stdout, or -o FILE (written
                       atomically).

Examples:
  reelier policy check --format sarif > policy.sarif
  reelier policy test .reelier/policy.yaml .reelier/traces/triage-1.jsonl
  reelier policy from-skill triage.skill.md -o .reelier/policy.yaml`

func newPolicyCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "policy check|test|from-skill",
		Short: "Check, try out and derive the seatbelt policy (.reelier/policy.yaml)",
		Long:  policyLong,
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return usageErrorf("reelier policy needs a subcommand: check, test or from-skill")
		},
	}
	var format string
	check := &cobra.Command{
		Use:   "check [FILE]…",
		Short: "Load policy files and report every mistake at path:line:col",
		RunE: func(cmd *cobra.Command, args []string) error {
			return policyCheck(cmd.OutOrStdout(), args, format)
		},
	}
	check.Flags().StringVar(&format, "format", "text", "output `FORMAT`: text or sarif")
	test := &cobra.Command{
		Use:   "test FILE TRACE",
		Short: "Say what a policy would decide for each call of a recording",
		Args:  cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			return policyTest(cmd.OutOrStdout(), args[0], args[1])
		},
	}
	var out string
	fromSkill := &cobra.Command{
		Use:   "from-skill SKILL [-o FILE]",
		Short: "Write a policy allowing exactly the calls a skill makes",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return policyFromSkill(cmd.InOrStdin(), cmd.OutOrStdout(), args[0], out)
		},
	}
	fromSkill.Flags().StringVarP(&out, "output", "o", "", "write the policy to `FILE` (atomically) instead of stdout")
	cmd.AddCommand(check, test, fromSkill)
	return cmd
}

// loadPolicy loads the policy a command runs under: file when given,
// else the files found for the current directory (policy.Find); nil when
// there is none. A policy that does not load is a usage error (exit 2):
// nothing runs under a broken policy.
func loadPolicy(file string) (*policy.Policy, error) {
	var files []string
	if file != "" {
		files = []string{file}
	} else if files = policy.Find("."); len(files) == 0 {
		return nil, nil
	}
	e, err := needEngine(policyWhat(files))
	if err != nil {
		return nil, err
	}
	p, err := e.Load(".", files...)
	if err != nil {
		return nil, usageErrorf("the policy does not load, so nothing runs under it:\n%s", termtext.Block(err.Error()))
	}
	return p, nil
}

func policyCheck(w io.Writer, files []string, format string) error {
	if format != "text" && format != "sarif" {
		return usageErrorf("--format %q: the formats are text and sarif", format)
	}
	if len(files) == 0 {
		if files = policy.Find("."); len(files) == 0 {
			return usageErrorf("no policy file: looked for %s here and %s in the user's configuration directory", policy.FileName, policy.UserFileName)
		}
	}
	e, err := needEngine(policyWhat(files))
	if err != nil {
		return err
	}
	var mistakes []*policy.Error
	var loaded []*policy.Policy
	for _, f := range files {
		p, err := e.Load(".", f)
		var es policy.Errors
		var e *policy.Error
		switch {
		case err == nil:
			loaded = append(loaded, p)
		case errors.As(err, &es):
			mistakes = append(mistakes, es...)
		case errors.As(err, &e):
			mistakes = append(mistakes, e)
		default:
			return usageErrorf("%v", err)
		}
	}
	if format == "sarif" {
		if err := policy.WriteSARIF(w, versionString(), mistakes); err != nil {
			return err
		}
	} else {
		for _, e := range mistakes {
			fmt.Fprintln(w, termtext.Line(e.File)+termtext.Line(e.Error()[len(e.File):]))
		}
		for _, p := range loaded {
			fmt.Fprintf(w, "%s: %s, default %s, %s\n", termtext.Line(p.Files[0]), words.Count(len(p.Rules), "rule"), p.Default, p.Digest)
		}
	}
	if len(mistakes) > 0 {
		return silentExit(exitFailed)
	}
	return nil
}

func policyTest(w io.Writer, file, tracePath string) error {
	p, err := loadPolicy(file)
	if err != nil {
		return err
	}
	f, err := os.Open(tracePath)
	if err != nil {
		return usageErrorf("%v", err)
	}
	defer f.Close()
	vs, err := policy.TestTrace(p, tracePath, f)
	if err != nil {
		return usageErrorf("%s", termtext.Line(err.Error()))
	}
	denied := 0
	for _, v := range vs {
		by := "default"
		if v.Decision.Rule != "" {
			by = "rule " + termtext.Line(fmt.Sprintf("%q", v.Decision.Rule))
		}
		fmt.Fprintf(w, "%s:%d: call %d %s: %s (%s)\n", termtext.Line(tracePath), v.Line, v.I, termtext.Line(v.Tool), v.Decision.Action, by)
		if v.Decision.Action == policy.Deny {
			denied++
		}
	}
	fmt.Fprintf(w, "%d calls, %d denied, policy %s\n", len(vs), denied, p.Digest)
	if denied > 0 {
		return silentExit(exitFailed)
	}
	return nil
}

func policyFromSkill(stdin io.Reader, w io.Writer, path, out string) error {
	// The policy written is checked by the engine: hand off before the
	// skill is read (it may come from stdin).
	e, err := needEngine("reelier policy from-skill")
	if err != nil {
		return err
	}
	sk, err := loader.Load(path, stdin, nil)
	if err != nil {
		return err
	}
	if sk.Diags.HasErrors() {
		return usageErrorf("%s does not parse, so no policy is written for it:\n%s", termtext.Line(sk.Path), termtext.Block(sk.Diags.Error()))
	}
	b, err := policy.FromSkill(sk.Skill, filepath.Base(sk.Path), e)
	if err != nil {
		return err
	}
	if out == "" {
		_, err := w.Write(b)
		return err
	}
	if err := atomicfile.Write(out, b, 0o644); err != nil {
		return usageErrorf("%v", err)
	}
	return nil
}
