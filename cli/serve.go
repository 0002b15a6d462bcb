package cli

import (
	"errors"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"

	"github.com/reelier/reelier/serve"
	"github.com/spf13/cobra"
)

const serveLong = `Offer Reelier's own tools to a coding agent as an MCP server, so the agent
can look a skill up, replay it, compile one from its session and push the
receipts without leaving the conversation:

  reelier_find_skill    skills in this directory that match a task, ranked
                        by the words they share with it, with why
  reelier_replay        replay a skill at Level 0 (never an LLM) and return
                        the run record it appends to .reelier/runs
  reelier_scan          sessions in the agent's history with replayable calls
  reelier_from_session  compile a skill from one session transcript
  reelier_lint          lint skill files
  reelier_push          send run records to a receipt ledger (ok,
                        skipped-no-key or failed)

The same skills (*.skill.md files and folders holding a SKILL.md, Reelier
steps or not) are also offered through the MCP Skills extension
(io.modelcontextprotocol/skills): skills/list and skills/get with each
skill's frontmatter and file digests, the files as skill:// resources.

This is not ` + "`reelier mcp`" + `: mcp is the recorder that fronts OTHER servers;
serve fronts Reelier itself and wraps nothing.

Every path a tool is given is resolved against the directory serve was
started in and refused if it leads outside, by ".." or through a symbolic
link. Session transcripts may also be read from --history-dir (nothing is
written there). A tool that cannot do its job answers with an error
result that says why; a replay whose step failed is not such an error:
its record says passed: false.

Transports: stdio by default (the agent starts the server). With --http
ADDR the streamable HTTP transport is served at http://ADDR/mcp instead.
Without a token it listens only on a loopback address (127.0.0.1, ::1,
localhost) and refuses any other. --token-env NAME reads a bearer token
(at least 16 characters) from the environment variable NAME: every
request must then carry "Authorization: Bearer <token>", and any address
may be used. Over HTTP, a replay cannot start MCP servers (wrap).
On stdio a line that is not JSON is answered with a parse error
(-32700, id null) and one that is not a JSON-RPC message (an empty
batch, an object id, id 1e400, nesting too deep, over 64 MiB) with an
invalid request error (-32600); the session goes on.

Exit status: 0 when the client disconnects (stdio) or on SIGINT/SIGTERM
(HTTP); 1 when serving fails; 2 for usage errors, such as a non-loopback
--http address without a token.

Examples:
  reelier serve
  claude mcp add reelier -- reelier serve
  reelier serve --http 127.0.0.1:8765
  REELIER_SERVE_TOKEN=$(openssl rand -hex 32) \
    reelier serve --http 0.0.0.0:8765 --token-env REELIER_SERVE_TOKEN
  reelier serve --history-dir ~/work/agent-logs

In .mcp.json (Claude Code, Cursor, Windsurf, …):
  {"mcpServers": {"reelier": {"command": "reelier", "args": ["serve"]}}}`

type serveOptions struct {
	http       string
	tokenEnv   string
	historyDir string
}

func newServeCmd() *cobra.Command {
	var opts serveOptions
	cmd := &cobra.Command{
		Use:   "serve [--http ADDR [--token-env NAME]] [--history-dir DIR]",
		Short: "Offer Reelier's own tools to an agent as an MCP server",
		Long:  serveLong,
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return serveRun(cmd, opts)
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.http, "http", "", "serve streamable HTTP on `ADDR` (host:port) instead of stdio")
	f.StringVar(&opts.tokenEnv, "token-env", "", "require the bearer token held in the environment variable `NAME`")
	f.StringVar(&opts.historyDir, "history-dir", defaultHistoryDir(), "agent session history that reelier_scan reads and transcripts may come from (\"\" for none)")
	return cmd
}

// defaultHistoryDir is Claude Code's project history, "" without a home.
func defaultHistoryDir() string {
	home, err := os.UserHomeDir()
	if err != nil {
		return ""
	}
	return filepath.Join(home, ".claude", "projects")
}

func serveRun(cmd *cobra.Command, opts serveOptions) error {
	token, err := serveToken(opts)
	if err != nil {
		return err
	}
	if opts.http != "" {
		if err := serve.CheckBind(opts.http, token != ""); err != nil {
			return usageErrorf("%v", err)
		}
	}
	srv, err := serve.New(serve.Options{
		HistoryDir: opts.historyDir, AllowWrap: opts.http == "",
		Stderr: cmd.ErrOrStderr(), Version: versionString(),
	})
	if err != nil {
		return usageErrorf("%v", err)
	}
	defer srv.Close()
	ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if opts.http == "" {
		// A frame the SDK cannot read is answered with a JSON-RPC error
		// and the session goes on (serve.StdioTransport).
		t := srv.StdioTransport(cmd.InOrStdin(), cmd.OutOrStdout(), 0)
		if err := srv.Serve(ctx, t); err != nil && !errors.Is(err, io.EOF) && ctx.Err() == nil {
			return &exitError{Code: exitFailed, Err: err}
		}
		return nil
	}
	ln, err := listenHTTP(cmd, "reelier serve", opts.http, token, opts.tokenEnv, "working directory "+srv.Dir())
	if err != nil {
		return err
	}
	if err := srv.ServeListener(ctx, ln, token); err != nil {
		return &exitError{Code: exitFailed, Err: err}
	}
	return nil
}

// serveToken reads the token named by --token-env; it is an error to
// name a variable that is unset or too short, or to name one without
// --http.
func serveToken(opts serveOptions) (string, error) {
	return httpToken("reelier serve", opts.http, opts.tokenEnv)
}
