package cli

import (
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/reelier/reelier/internal/mcphttp"
	"github.com/reelier/reelier/replay"
	"github.com/reelier/reelier/replay/mock"
	"github.com/spf13/cobra"
)

const mockLong = `Serve one or more recordings back as an MCP server, so a skill, a lint
rule or a heal can be tested with no real server, no network and no
credentials — on a laptop or in CI:

  reelier run SKILL --wrap "reelier mock TRACE"

tools/list offers every tool the recordings name, with the definition
(description, input and output schema, annotations) the trace's meta kept.
A trace recorded before definitions were kept names its tools only: those
are offered with a permissive input schema ({"type":"object"}) and the
annotations the trace declared, and a line on stderr says so.

tools/call is answered with the recorded result of a recorded call of the
same tool whose arguments match:

  --match exact   (default) the arguments equal the recorded ones as JSON
                  values: key order does not matter, numbers compare by
                  value (1.50 = 1.5).
  --match loose   the arguments have the recorded shape — the same keys at
                  every level, arrays of the same length, the same JSON
                  type at every leaf — whatever the values; of the
                  recorded calls of that shape, those whose values differ
                  least answer.

Either way, a recorded value that redaction blanked («redacted» or
«redacted:NAME», wholly or in part) is compared by type only — the trace does not know it, and the
mock never un-redacts — and --ignore-arg PATH (repeatable) leaves an
argument out of the comparison on both sides: PATH as an unmatched call's
answer names it (args.date, args.items.0.id; the "args." is optional, "*"
matches any one segment: args.items.*.id).

Repeated calls are answered in recorded order: the nth call that matches
gets the nth matching recorded result; once they run out, the last is
answered again, with "_meta": {"reelier/mock": {"repeated": true, …}} on
the result and a line on stderr. Each client session (the stdio client,
each HTTP session) starts from the first.

A call no recorded call matches gets an error result (isError) naming the
nearest recorded call (TRACE:LINE) and every argument that differs, by
JSON path; a tool the recordings never had gets an error result naming the
tools they have. A recorded result that is not an MCP tool result is served
as one text block holding it; a body the recorder cut to a preview, as its
preview; a call whose result is missing, as an error result saying so.

With several traces, their tools are merged (the first definition of a
name wins) and their calls are matched in the order the traces are given.

Transports: stdio by default. With --http ADDR the streamable HTTP
transport is served at http://ADDR/mcp, guarded like "reelier serve
--http": loopback only (127.0.0.1, ::1, localhost) unless --token-env NAME
names an environment variable holding a bearer token (16+ characters)
that every request must carry.

Failing on purpose: --fail STEP[=KIND] makes the session's call number
STEP (a skill's step STEP, one call a step) fail, so a replay's heal
ladder or a CI job meets a failure without an outage: error (the
default: an error result saying it was injected, with "_meta":
{"reelier/mock": {"injected": "error", …}}), timeout (the call is never
answered, so the client's time limit passes) or schema (tools/list serves
the tool of the STEP-th recorded call with a required input field added:
the run's drift check reports tool drift). A line on stderr notes each
injected failure. reelier run marks a run against "reelier mock --fail"
injected in its record, and reelier push does not send it. A STEP past
the recordings' calls (the message names the traces and their call
count) or an unknown KIND is exit 2.

Exit status: 0 when the client disconnects (stdio) or on SIGINT/SIGTERM
(HTTP); 1 when serving fails; 2 for usage or bad input — a missing or
unreadable trace, a line that is not a trace record (PATH:LINE: reason),
a trace with no tools and no calls, an unknown --match, a --fail that
does not read or names a call the recordings do not have.

Examples:
  reelier run skills/weekly-bookings.skill.md --wrap "reelier mock .reelier/traces/weekly-bookings-1.jsonl"
  reelier run --yes skills/*.skill.md --wrap "reelier mock --match loose .reelier/traces/*.jsonl"
  reelier mock --ignore-arg args.requestId trace.jsonl
  reelier mock --http 127.0.0.1:8766 trace-1.jsonl trace-2.jsonl
  reelier mcp --wrap "reelier mock trace.jsonl"      # record against a recording
  reelier run skill.skill.md --wrap "reelier mock --fail 2=timeout trace.jsonl"   # step 2 times out`

type mockOptions struct {
	fail     string
	match    string
	ignore   []string
	http     string
	tokenEnv string
}

func newMockCmd() *cobra.Command {
	var opts mockOptions
	cmd := &cobra.Command{
		Use:   "mock TRACE… [--match exact|loose] [--ignore-arg PATH]… [--fail STEP[=KIND]] [--http ADDR [--token-env NAME]]",
		Short: "Serve recordings back as an MCP server, for offline replays and tests",
		Long:  mockLong,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usageErrorf("mock needs at least one TRACE: a recording reelier mcp wrote (.reelier/traces/<name>-<n>.jsonl)")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			return mockRun(cmd, args, opts)
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.match, "match", string(mock.Exact), "compare arguments `MODE` exact (JSON values) or loose (keys, lengths and types only)")
	f.StringArrayVar(&opts.ignore, "ignore-arg", nil, "leave the argument at `PATH` (args.date, args.items.*.id) out of every comparison (repeatable)")
	f.StringVar(&opts.http, "http", "", "serve streamable HTTP on `ADDR` (host:port) instead of stdio")
	f.StringVar(&opts.fail, "fail", "", "fail the session's call number `STEP[=KIND]` on purpose: KIND error (an error result; the default), timeout (never answered) or schema (tools/list serves that recorded call's tool with a changed input schema: tool drift); a run against it is marked injected and reelier push does not send it")
	f.StringVar(&opts.tokenEnv, "token-env", "", "require the bearer token held in the environment variable `NAME`")
	return cmd
}

func mockRun(cmd *cobra.Command, paths []string, opts mockOptions) error {
	mode, err := mock.ParseMode(opts.match)
	if err != nil {
		return usageErrorf("%v", err)
	}
	var ignore []mock.Path
	for _, s := range opts.ignore {
		p, err := mock.ParsePath(s)
		if err != nil {
			return usageErrorf("%v", err)
		}
		ignore = append(ignore, p)
	}
	token := ""
	if opts.tokenEnv != "" {
		if opts.http == "" {
			return usageErrorf("--token-env only applies with --http: on stdio the client that starts the mock is the only client")
		}
		if token, err = mcphttp.EnvToken(opts.tokenEnv, os.Getenv); err != nil {
			return usageErrorf("%v", err)
		}
	}
	if opts.http != "" {
		if err := mcphttp.CheckBind("reelier mock", opts.http, token != ""); err != nil {
			return usageErrorf("%v", err)
		}
	}
	book, err := mock.Load(paths)
	if err != nil {
		return usageErrorf("%v", err)
	}
	var fault *mock.Fault
	if opts.fail != "" {
		inj, err := replay.ParseInjection(opts.fail)
		if err != nil {
			return usageErrorf("%v", err)
		}
		fault = &mock.Fault{Call: inj.Step, Kind: inj.Kind}
		if err := book.CheckFault(fault); err != nil {
			return usageErrorf("%s: %v", strings.Join(paths, ", "), err)
		}
	}
	errw := cmd.ErrOrStderr()
	for _, line := range book.Notices() {
		fmt.Fprintln(errw, line)
	}
	srv := mock.New(book, mock.Options{Match: mode, Ignore: ignore, Stderr: errw, Version: versionString(), Fail: fault})
	ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if opts.http == "" {
		t := &mcp.IOTransport{Reader: io.NopCloser(cmd.InOrStdin()), Writer: nopWriteCloser{cmd.OutOrStdout()}}
		if err := srv.Serve(ctx, t); err != nil && !errors.Is(err, io.EOF) && ctx.Err() == nil {
			return &exitError{Code: exitFailed, Err: err}
		}
		return nil
	}
	ln, err := net.Listen("tcp", opts.http)
	if err != nil {
		return &exitError{Code: exitFailed, Err: err}
	}
	guard := "loopback only, no token"
	if token != "" {
		guard = "bearer token from $" + opts.tokenEnv + " required"
		if !mcphttp.IsLoopbackListener(ln) {
			fmt.Fprintln(errw, "reelier mock: warning: plain HTTP: the token and every call cross the network unencrypted; put a TLS-terminating proxy in front of it beyond a trusted network")
		}
	}
	fmt.Fprintf(errw, "reelier mock: serving %d tools from %d recordings (--match %s) at http://%s%s (%s)\n", len(book.Tools), len(paths), mode, ln.Addr(), mcphttp.Path, guard)
	if err := srv.ServeListener(ctx, ln, token); err != nil {
		return &exitError{Code: exitFailed, Err: err}
	}
	return nil
}
