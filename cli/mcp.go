package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/reelier/reelier/internal/mcphttp"
	"github.com/reelier/reelier/mcpx"
	"github.com/reelier/reelier/record"
	"github.com/reelier/reelier/redact"
	"github.com/reelier/reelier/trace"
	"github.com/spf13/cobra"
)

const mcpLong = `Start the recording proxy: an MCP server on stdio that sits in front of
the MCP servers your agent already uses. Each --wrap command is started
as a child process (split like a shell would, environment inherited) and
every one of its tools, prompts and resources is re-exposed unchanged.
Calls always pass through; nothing is changed on the way to the agent.

Three tools of its own let the agent record a workflow:
  reelier_start_recording {name}  start <trace-dir>/<name>-<n>.jsonl
                                  (n counts up; nothing is overwritten)
  reelier_note {text}             say what the next step is for
  reelier_stop_recording {}       stop; reports the file and call count

While recording, each proxied call is written as a call record and a
result record. Secrets are blanked in the trace only (sk-… keys, Bearer
tokens, GitHub/Slack/AWS/Google/Stripe keys, JWTs, private keys, URL
passwords, Authorization/Cookie/X-Api-Key values, and the values of the
environment variables named in REELIER_REDACT, comma-separated).

Each wrapped server's stderr is printed line by line as "[name] line",
the name being the server's program or package ("npx -y @acme/crm-mcp"
is crm-mcp); --quiet discards it.

A call a server does not answer within --call-timeout (60s; 0 for no
limit) is answered with an error result naming the server and the limit,
and the server stays in use. Lines a server prints on stdout that are not
MCP messages are shown on stderr and skipped; a message over
--max-message (64MiB) from a server or from the agent is answered with an
error instead of ending the session.

What a server asks its client — sampling/createMessage,
elicitation/create, roots/list — goes to the agent and the answer back
(refused with "Method not found" when the agent did not declare the
capability; as input requests of the call for an agent on 2026-07-28).
Notifications pass both ways (progress, log messages, resource updates,
cancellation, roots changes), as do logging/setLevel, resource
subscriptions and completions; when a server says its tools changed, the
proxy lists them again and tells the agent. A recorded call keeps the
requests relayed during it and the notifications it got (docs/record.md).

When two downstreams have a tool of the same name, the later one's is
exposed as <index>_<name> (index from 0 in --wrap order) and a warning
is printed to stderr; ` + "`reelier run --wrap`" + ` resolves names the same way.

REELIER_MCP_LOG=FILE appends every message exchanged with the agent to
FILE (unredacted), for debugging a client.

Over stdio, a plain tools/call for a tool of a local server is forwarded
as bytes, without the MCP SDK's decoding (the fast path; the trace is
the same); REELIER_MCP_FASTPATH=off sends every call through the SDK.

Remote servers: a --wrap that starts with http:// or https:// is the URL
of a server reached over MCP's streamable HTTP transport (falling back to
the older HTTP+SSE transport when the server refuses streamable HTTP).
--wrap-header 'NAME: VALUE' (repeatable) sends a request header to the
--wrap URL given right before it; $VAR and ${VAR} in VALUE are read from
the environment (quote the header in single quotes), so a token stays out
of the command line, the trace and the compiled skill, which keep the URL
(credentials blanked) and the header as written. Redirects are not
followed. The start of every server is bounded (60s).

Transports: stdio by default (the agent starts the proxy). With --http
ADDR the proxy serves agents over streamable HTTP at http://ADDR/mcp
instead, exactly like ` + "`reelier serve --http`" + `: loopback addresses only
(127.0.0.1, ::1, localhost) unless --token-env NAME names a variable
holding a bearer token of at least 16 characters, which every request
must then carry. Every agent connected shares the servers and the one
recording; SIGINT or SIGTERM stops it.

This is not ` + "`reelier serve`" + `: mcp fronts OTHER servers to record them;
serve exposes Reelier's own commands and wraps nothing.

Exit status: 0 when the client disconnects (stdio) or on SIGINT/SIGTERM
(HTTP); 1 when a --wrap server cannot be started (nothing is served then) or the trace could not be
finished; 2 for usage errors.

Examples:
  reelier mcp --wrap "npx -y @modelcontextprotocol/server-everything"
  reelier mcp --wrap "caldiy-mcp --region eu" --wrap "crm-mcp" --trace-dir traces
  claude mcp add reelier -- reelier mcp --wrap "npx -y @your/mcp-server"
  REELIER_REDACT=CRM_TOKEN reelier mcp --wrap "crm-mcp"
  reelier mcp --wrap "crm-mcp" --secret-var "customer_email=ann@example.com"
  reelier mcp --wrap https://mcp.example.com/mcp --wrap-header 'Authorization: Bearer $EXAMPLE_TOKEN'
  reelier mcp --http 127.0.0.1:8766 --wrap "npx -y @modelcontextprotocol/server-memory"`

// mcpLogEnv names a file to which every message between the agent and the
// proxy is appended, for debugging a client.
const mcpLogEnv = "REELIER_MCP_LOG"

// mcpFastPathEnv set to "off" (or "0") sends every tool call through the
// MCP SDK's sessions (record.Options.NoFastPath).
const mcpFastPathEnv = "REELIER_MCP_FASTPATH"

// proxyGCPercent is the GOGC the proxy runs with unless GOGC is set.
const proxyGCPercent = 400

type mcpOptions struct {
	wrap        []string
	wraps       wraps
	traceDir    string
	quiet       bool
	policy      string
	callTimeout time.Duration
	maxMessage  byteSize
	http        string
	tokenEnv    string
	secretVars  []string
}

func newMCPCmd() *cobra.Command {
	opts := mcpOptions{maxMessage: mcpx.DefaultMaxMessage}
	cmd := &cobra.Command{
		Use:   "mcp --wrap CMD|URL [--wrap-header 'NAME: VALUE']… [--wrap CMD|URL]… [--trace-dir DIR] [--http ADDR [--token-env NAME]]",
		Short: "Run the recording proxy in front of MCP servers (stdio)",
		Long:  mcpLong,
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.wrap = opts.wraps.list
			return mcpRun(cmd, opts)
		},
	}
	f := cmd.Flags()
	addWrapFlags(f, &opts.wraps, "start `CMD|URL` as a downstream MCP server (a command, or the http:// or https:// URL of a remote one) and re-expose its tools (repeatable)")
	f.StringVar(&opts.traceDir, "trace-dir", trace.DefaultDir, "directory the recordings are written to")
	f.BoolVar(&opts.quiet, "quiet", false, "discard the wrapped servers' stderr (otherwise printed as \"[name] line\")")
	f.DurationVar(&opts.callTimeout, "call-timeout", record.DefaultCallTimeout, "answer a call the server has not answered within `D` with an error (0: no limit)")
	f.StringVar(&opts.http, "http", "", "serve the proxy to agents over streamable HTTP on `ADDR` (host:port) instead of stdio")
	f.StringVar(&opts.tokenEnv, "token-env", "", "with --http, require the bearer token held in the environment variable `NAME`")
	f.Var(&opts.maxMessage, "max-message", "read messages of up to `SIZE` from a server or the agent (bytes, or KiB, MiB, GiB); larger ones are answered with an error")
	f.StringVar(&opts.policy, "policy", "", "put every call to the policy in `FILE` (default: .reelier/policy.yaml here, then the user's; see `reelier policy`), evaluated by the reelier-seatbelt program reelier hands the process to; a policy that does not load, or no such program, stops the proxy from starting (exit 2)")
	f.StringArrayVar(&opts.secretVars, "secret-var", nil, "treat `name=value` as a secret the agent may send or a server may echo: it is recorded as «redacted:name», which compile turns into the input {{name}}; the agent and the servers still get the real value (repeatable; REELIER_REDACT=VAR keeps a value off the command line)")
	return cmd
}

func mcpRun(cmd *cobra.Command, opts mcpOptions) error {
	if len(opts.wrap) == 0 {
		return usageErrorf("reelier mcp needs at least one --wrap \"<server command or URL>\": it records the calls your agent makes to other MCP servers.\n" +
			"To expose Reelier's own commands (replay, scan, push…) as MCP tools, run `reelier serve` instead.")
	}
	if os.Getenv("GOGC") == "" {
		// The proxy's live heap is small but the SDK allocates large
		// buffers per message; collecting less often keeps GC pauses off
		// the agent's calls.
		debug.SetGCPercent(proxyGCPercent)
	}
	if opts.callTimeout < 0 {
		return usageErrorf("--call-timeout %v: a limit cannot be negative (0 means none)", opts.callTimeout)
	}
	if err := registerSecretVars(opts.secretVars); err != nil {
		return err
	}
	servers, err := opts.wraps.resolve()
	if err != nil {
		return err
	}
	token, err := httpToken("reelier mcp", opts.http, opts.tokenEnv)
	if err != nil {
		return err
	}
	if opts.http != "" {
		if err := mcphttp.CheckBind("reelier mcp", opts.http, token != ""); err != nil {
			return usageErrorf("%v", err)
		}
	}
	pol, err := loadPolicy(opts.policy)
	if err != nil {
		return err
	}
	callTimeout := opts.callTimeout
	if callTimeout == 0 {
		callTimeout = -1 // record.Options: no limit
	}
	ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	stderr := cmd.ErrOrStderr()
	proxy, err := record.StartServers(ctx, servers, record.Options{
		TraceDir:    opts.traceDir,
		Redactor:    redact.RedactorFromEnv(),
		Stderr:      stderr,
		Quiet:       opts.quiet,
		Version:     versionString(),
		CallTimeout: callTimeout,
		MaxMessage:  int(opts.maxMessage),
		Policy:      pol,
		// The log sees only what the SDK's session exchanges.
		NoFastPath: os.Getenv(mcpLogEnv) != "" || os.Getenv(mcpFastPathEnv) == "off" || os.Getenv(mcpFastPathEnv) == "0",
	})
	if err != nil {
		return &exitError{Code: exitFailed, Err: err}
	}
	if opts.http != "" {
		return mcpServeHTTP(ctx, cmd, proxy, opts, token)
	}
	return proxy.ServeStdio(ctx, cmd.InOrStdin(), cmd.OutOrStdout(), os.Getenv(mcpLogEnv), mcpLogEnv)
}

// mcpServeHTTP serves the started proxy over streamable HTTP until
// SIGINT or SIGTERM, then stops it.
func mcpServeHTTP(ctx context.Context, cmd *cobra.Command, proxy *record.Proxy, opts mcpOptions, token string) error {
	ln, err := listenHTTP(cmd, "reelier mcp", opts.http, token, opts.tokenEnv, "recording to "+opts.traceDir)
	if err != nil {
		proxy.Close()
		return err
	}
	serveErr := proxy.ServeListener(ctx, ln, token)
	if closeErr := proxy.Close(); closeErr != nil {
		return &exitError{Code: exitFailed, Err: closeErr}
	}
	if serveErr != nil {
		return &exitError{Code: exitFailed, Err: serveErr}
	}
	return nil
}

// byteSize is a flag's size in bytes, given as a number of bytes or with
// a KiB, MiB or GiB suffix.
type byteSize int

func (b *byteSize) String() string {
	n := int64(*b)
	for _, u := range []struct {
		suffix string
		size   int64
	}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}} {
		if n >= u.size && n%u.size == 0 {
			return strconv.FormatInt(n/u.size, 10) + u.suffix
		}
	}
	return strconv.FormatInt(n, 10)
}

func (b *byteSize) Type() string { return "size" }

func (b *byteSize) Set(s string) error {
	num, unit := strings.TrimSpace(s), int64(1)
	for suffix, u := range map[string]int64{"KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30} {
		if n, ok := strings.CutSuffix(num, suffix); ok {
			num, unit = strings.TrimSpace(n), u
		}
	}
	n, err := strconv.ParseInt(num, 10, 64)
	if err != nil || n <= 0 || n > (4<<30)/unit {
		return fmt.Errorf("%q is not a size: write a whole number of bytes, KiB, MiB or GiB, up to 4GiB (64MiB, say)", s)
	}
	*b = byteSize(n * unit)
	return nil
}

// nopWriteCloser lets a server write to stdout without closing it.
type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }
