package cli

import (
	"errors"
	"io"
	"time"

	"github.com/reelier/reelier/lang/lsp"
	"github.com/spf13/cobra"
)

const lspLong = `Run the SKILL.md language server, speaking the Language Server Protocol
on standard input and output. Editors start it themselves: see
docs/editors.md for Neovim, Helix and VS Code, with the file pattern
*.skill.md.

The server knows the format as the parser does:
  diagnostics      the parser's errors and the linter's findings (with
                   .reelier/lint.toml, as reelier lint), on open, on save
                   and when typing pauses for --debounce
  formatting       reelier fmt's canonical form; no edits when the file is
                   canonical or does not parse
  completion       step keys, effects, assert and bind forms as snippets,
                   {{variables}} bound by earlier steps and the computed
                   dates, tool names from the workspace's skills and traces
  hover            what an assert or bind means, what a {{variable}} is
                   bound to and where, what an effect gates
  navigation       go to a {{variable}}'s bind, its references, rename it
  code actions     the linter's and parser's quick fixes, renumber steps,
                   add a status assert
  outline          a symbol per step with its asserts and binds, folding
                   per step, semantic tokens for the mini-languages

A message that is not JSON is answered with a JSON-RPC parse error
(-32700), one that is JSON but not JSON-RPC with an invalid-request error
(-32600); both are logged on standard error and to the client
(window/logMessage), and the session goes on. A frame that cannot be
read past (a bad Content-Length header, input ending inside a frame) ends
the server.

Exit status: 0 after shutdown and exit, or when standard input closes
between messages; 1 when the client sends exit without shutdown; 2 on bad
flags or a broken frame, with what was wrong on standard error.

Examples:
  reelier lsp
  nvim --cmd 'autocmd FileType markdown lua vim.lsp.start({name = "reelier", cmd = {"reelier", "lsp"}})' x.skill.md`

type lspOptions struct {
	stdio    bool
	debounce time.Duration
}

func newLSPCmd() *cobra.Command {
	var opts lspOptions
	cmd := &cobra.Command{
		Use:   "lsp [--stdio] [--debounce DURATION]",
		Short: "Run the SKILL.md language server (LSP on stdio)",
		Long:  lspLong,
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return lspRun(cmd, opts)
		},
	}
	f := cmd.Flags()
	f.BoolVar(&opts.stdio, "stdio", false, "accepted for clients that pass it: standard input and output are the only transport")
	f.DurationVar(&opts.debounce, "debounce", lsp.DefaultDebounce, "how long typing must pause before diagnostics are published")
	return cmd
}

func lspRun(cmd *cobra.Command, opts lspOptions) error {
	if opts.debounce <= 0 {
		return usageErrorf("--debounce must be positive, got %v", opts.debounce)
	}
	rwc := stdio{Reader: cmd.InOrStdin(), Writer: cmd.OutOrStdout()}
	err := lsp.Serve(cmd.Context(), rwc, lsp.Options{Version: versionString(), Debounce: opts.debounce, Log: cmd.ErrOrStderr()})
	if errors.Is(err, lsp.ErrExitWithoutShutdown) {
		return &exitError{Code: exitFailed, Err: err}
	}
	return err
}

// stdio joins standard input and output into the one stream a language
// server talks over. Closing it closes standard input, which ends the
// server's read loop.
type stdio struct {
	io.Reader
	io.Writer
}

// Close closes standard input when it can be closed.
func (s stdio) Close() error {
	if c, ok := s.Reader.(io.Closer); ok {
		return c.Close()
	}
	return nil
}
