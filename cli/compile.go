package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"

	"github.com/reelier/reelier/compile"
	"github.com/reelier/reelier/internal/atomicfile"
	"github.com/reelier/reelier/internal/termtext"
	"github.com/reelier/reelier/trace"
	"github.com/spf13/cobra"
)

const compileLong = `Turn a recorded trace into a skill, deterministically: no LLM is asked
anything, and the same trace always gives the same skill.

Each call becomes one step, in call order, titled from the notes recorded
just before it. Results are read as a replay will see them: json paths
read an MCP result's structuredContent, body its text blocks.

A value a call sends that an earlier result held — not merely its own
result echoing it — becomes a bind on the step that produced it and a
{{name}} hole where it is used, also inside a longer string
("/inbox/{{file_name}}"); a name in a text result is bound with a
"body match" pattern checked against the recording. A redacted argument
becomes an input to pass with --var. Each step asserts what the recording
saw and a replay can stand on: "status == 200", the type or shape of every
value a later step takes, the value and fields of a list element a later
step picked, stable fields and stable lines of text. The effect (read,
idempotent-write, destructive) comes from the verbs in the tool name and
the server's tool annotations, and never understates: a hint can make a
step more careful, never less, and verbs unsafe to repeat (post, reply,
merge, …) are destructive.

What the compiler will not guess is written under "## Open questions" in
the skill and printed here word for word: unnarrated calls, failed or
missing results, unknown verbs, binds that read a position, short values
and prose an earlier result also held, redacted inputs, steps that make
something a second replay meets, date, UUID and timestamp literals (with
the {{today±Nd}} form that would fit), literals several calls repeat, and
more. Read them before you trust a replay; "reelier calibrate" then
measures which checks change from run to run.

The skill is written to -o, or with --skills-dir DIR as an Agent Skill,
DIR/<name>/SKILL.md (so a skills folder an agent already loads, such as
.claude/skills, can hold it), or else to <trace name>.skill.md in the
current directory. An existing file is never replaced without --force, and the
file is written atomically. --json prints the summary as JSON.

Exit status: 0 when the skill was written; 2 for usage errors, a trace
that cannot be read (the message names the line), a trace with no calls,
or an output file that exists or cannot be written.

Examples:
  reelier compile .reelier/traces/weekly-bookings-1.jsonl
  reelier compile trace.jsonl -o skills/weekly.skill.md
  reelier compile trace.jsonl -o skills/weekly.skill.md --force
  reelier compile trace.jsonl --skills-dir .claude/skills
  reelier compile trace.jsonl --json | jq '.openQuestions[].text'`

type compileOptions struct {
	trace     string
	output    string
	skillsDir string
	force     bool
	json      bool
}

func newCompileCmd() *cobra.Command {
	var opts compileOptions
	cmd := &cobra.Command{
		Use:   "compile TRACE [-o FILE | --skills-dir DIR] [--force] [--json]",
		Short: "Turn a recorded trace into a skill, deterministically",
		Long:  compileLong,
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.trace = args[0]
			return compileRun(cmd, opts)
		},
	}
	f := cmd.Flags()
	f.StringVarP(&opts.output, "output", "o", "", "write the skill to `FILE` (default <trace name>.skill.md)")
	f.StringVar(&opts.skillsDir, "skills-dir", "", "write the skill as an Agent Skill: `DIR`/<name>/SKILL.md, e.g. --skills-dir .claude/skills")
	f.BoolVar(&opts.force, "force", false, "replace the output file if it exists")
	f.BoolVar(&opts.json, "json", false, "print the summary as JSON")
	return cmd
}

func compileRun(cmd *cobra.Command, opts compileOptions) error {
	// NewFile reads the trace twice and never holds its result bodies;
	// Write prints the skill one step at a time. A trace of up to 1 MiB
	// (about 1,500 dense calls) allocates at most about 15 MiB, so at
	// GOGC=400 it is compiled with one collection at most, as parse, lint
	// and fmt run a skill (gcForFile; a 200-call trace: 18 → 13 ms CPU).
	if fi, err := os.Stat(opts.trace); err == nil {
		gcForFile(int(min(fi.Size(), math.MaxInt32)))
	}
	x, err := compile.NewFile(opts.trace, compile.Options{Source: filepath.Base(opts.trace)})
	if err != nil {
		return traceError(cmd, opts.trace, err)
	}
	out := opts.output
	switch {
	case out != "" && opts.skillsDir != "":
		return usageErrorf("-o and --skills-dir cannot be used together: --skills-dir names the file itself (DIR/<name>/SKILL.md)")
	case opts.skillsDir != "":
		// The folder is the skill's name, which the compiler makes a
		// valid Agent Skills name, so the folder and name agree.
		out = filepath.Join(opts.skillsDir, x.Name(), "SKILL.md")
		if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
			return usageErrorf("%v", err)
		}
	case out == "":
		out = compile.DefaultSkillPath(x.Meta().Name, opts.trace)
	}
	if err := compile.CheckOverwrite(out, opts.force); err != nil {
		return err
	}
	if err := atomicfile.WriteFunc(out, 0o644, x.Write); err != nil {
		if errors.Is(err, compile.ErrTraceChanged) {
			return traceError(cmd, opts.trace, err)
		}
		return usageErrorf("%v", err)
	}
	// The summary after Write, which counted the asserts it printed.
	summary := x.Summary()
	summary.Output = out
	if opts.json {
		enc := json.NewEncoder(cmd.OutOrStdout())
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		return enc.Encode(summary)
	}
	return summary.WriteText(cmd.OutOrStdout())
}

// traceError reports a problem reading the trace file at path, for
// reelier compile and reelier trace alike, in trace.FileError's one form:
// a line's problem alone on its line as "path:line: reason" (as reelier
// trace lists every bad line, and as the parser's diagnostics read),
// anything else as "reelier: path: reason". Exit 2.
func traceError(cmd *cobra.Command, path string, err error) error {
	err = trace.InFile(path, err)
	var le *trace.LineError
	if errors.As(err, &le) {
		fmt.Fprintln(cmd.ErrOrStderr(), termtext.Line(err.Error()))
		return silentExit(exitUsage)
	}
	return &exitError{Code: exitUsage, Err: err}
}
