package cli

import (
	"fmt"
	"net"
	"os"

	"github.com/reelier/reelier/internal/mcphttp"
	"github.com/spf13/cobra"
)

// The --http and --token-env flags of the commands that serve MCP over
// HTTP (serve, mcp): one reading of the token, one listener check.

// httpToken reads the token named by --token-env for command ("reelier
// serve"); it is an error to name a variable that is unset or too short,
// or to name one without --http.
func httpToken(command, addr, tokenEnv string) (string, error) {
	if tokenEnv == "" {
		return "", nil
	}
	if addr == "" {
		return "", usageErrorf("--token-env only applies with --http: on stdio the agent that starts the server is the only client")
	}
	token, err := mcphttp.EnvToken(tokenEnv, os.Getenv)
	if err != nil {
		return "", usageErrorf("%v", err)
	}
	return token, nil
}

// listenHTTP listens on addr for command and says on stderr where MCP is
// served and how it is guarded (detail is added to that), warning when a
// token crosses a non-loopback listener in plain HTTP.
func listenHTTP(cmd *cobra.Command, command, addr, token, tokenEnv, detail string) (net.Listener, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, &exitError{Code: exitFailed, Err: err}
	}
	errw := cmd.ErrOrStderr()
	guard := "loopback only, no token"
	if token != "" {
		guard = "bearer token from $" + tokenEnv + " required"
		if !mcphttp.IsLoopbackListener(ln) {
			fmt.Fprintf(errw, "%s: warning: plain HTTP: the token and every call cross the network unencrypted; put a TLS-terminating proxy in front of it beyond a trusted network\n", command)
		}
	}
	if detail != "" {
		guard += "; " + detail
	}
	fmt.Fprintf(errw, "%s: serving MCP at http://%s%s (%s)\n", command, ln.Addr(), mcphttp.Path, guard)
	return ln, nil
}
