package cli

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/rogpeppe/go-internal/testscript"
)

// TestServerScripts runs the scripts in testdata/servers, which record
// through `reelier mcp` with an MCP client: the script command mcpagent.
func TestServerScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir:  "testdata/servers",
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){"mcpagent": mcpAgent, "exitcode": exitCodeCmd},
	})
}

// mcpAgent is the script command `mcpagent NAME TOOL JSON -- CMD…`. It
// starts CMD (found on $PATH, in the script's directory, with the
// script's HOME, XDG_CONFIG_HOME and REELIER_REDACT) as an MCP server on
// stdio and drives it as an agent would: it starts a recording called
// NAME, calls TOOL with the JSON arguments, stops the recording and
// prints the tool's text.
func mcpAgent(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 5 || args[3] != "--" {
		ts.Fatalf("usage: mcpagent NAME TOOL JSON -- CMD [ARG…]")
	}
	name, tool, raw, argv := args[0], args[1], args[2], args[4:]
	path, err := exec.LookPath(argv[0])
	ts.Check(err)
	cmd := exec.Command(path, argv[1:]...)
	cmd.Dir = ts.MkAbs(".")
	cmd.Env = os.Environ()
	for _, k := range []string{"HOME", "XDG_CONFIG_HOME", "REELIER_REDACT"} {
		cmd.Env = append(cmd.Env, k+"="+ts.Getenv(k))
	}
	cmd.Stderr = ts.Stderr()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	client := mcp.NewClient(&mcp.Implementation{Name: "script-agent", Version: "1"}, nil)
	session, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	ts.Check(err)
	defer session.Close()
	call := func(tool string, args any) string {
		res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
		ts.Check(err)
		var texts []string
		for _, c := range res.Content {
			if tc, ok := c.(*mcp.TextContent); ok {
				texts = append(texts, tc.Text)
			}
		}
		if res.IsError {
			ts.Fatalf("%s: %s", tool, strings.Join(texts, "\n"))
		}
		return strings.Join(texts, "\n")
	}
	call("reelier_start_recording", map[string]any{"name": name})
	ts.Stdout().Write([]byte(call(tool, json.RawMessage(raw)) + "\n"))
	call("reelier_stop_recording", map[string]any{})
}
