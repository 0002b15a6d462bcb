// Command conformanceclient is the client command the official MCP
// conformance suite (@modelcontextprotocol/conformance) runs in its client
// mode: it drives Reelier's MCP client — the downstream client of
// `reelier run --wrap URL` and of the recording proxy `reelier mcp --wrap
// URL` — against the test server of one scenario.
//
// The suite starts a test server for a scenario, then runs the command
// with the server's URL as its last argument and the scenario's name in
// MCP_CONFORMANCE_SCENARIO. REELIER_BIN names the reelier binary ("reelier"
// on PATH if unset). For each scenario the command does what an agent or
// a user of Reelier would do against such a server:
//
//	initialize                           an agent starts `reelier mcp --wrap URL`, lists its tools and leaves
//	tools_call                           `reelier run` replays a skill calling add_numbers {"a": 5, "b": 3}
//	sse-retry                            `reelier run` replays a skill calling test_reconnection
//	elicitation-sep1034-client-defaults  an agent calls test_client_elicitation_defaults through
//	                                     `reelier mcp --wrap URL`, accepting any elicitation it is relayed
//	auth/…                               an agent starts `reelier mcp --wrap URL` and lists its tools
//
// It exits 0 when Reelier did its part without an error, 1 when it did
// not, 2 on bad usage. The suite judges the scenario from what its server
// saw, whatever the exit status.
//
// By hand:
//
//	go build -o /tmp/cc ./testkit/conformanceclient
//	REELIER_BIN=$(command -v reelier) node …/conformance/dist/index.js client --command /tmp/cc --suite all
//
// The test of this package, TestConformanceClient, runs every client
// scenario that way (its own test binary standing in for this command).
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// ScenarioEnv is where the suite names the scenario.
const ScenarioEnv = "MCP_CONFORMANCE_SCENARIO"

// BinEnv names the reelier binary to drive.
const BinEnv = "REELIER_BIN"

func main() {
	if len(os.Args) < 2 || os.Getenv(ScenarioEnv) == "" {
		fmt.Fprintf(os.Stderr, "usage: %s=NAME conformanceclient URL (the MCP conformance suite's client mode runs it so)\n", ScenarioEnv)
		os.Exit(2)
	}
	os.Exit(drive(os.Getenv(ScenarioEnv), os.Args[len(os.Args)-1], os.Stderr))
}

// scenarioTimeout bounds one scenario (the suite gives a client 30s); a
// client that works is done in a second or two.
const scenarioTimeout = 10 * time.Second

// drive plays one scenario against url and returns the exit status.
func drive(scenario, url string, stderr io.Writer) int {
	ctx, cancel := context.WithTimeout(context.Background(), scenarioTimeout)
	defer cancel()
	bin := os.Getenv(BinEnv)
	if bin == "" {
		bin = "reelier"
	}
	dir, err := os.MkdirTemp("", "reelier-conformance-")
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	d := driver{ctx: ctx, bin: bin, url: url, dir: dir, stderr: stderr}
	switch {
	case scenario == "initialize" || strings.HasPrefix(scenario, "auth/"):
		err = d.proxy(func(cs *mcp.ClientSession) error {
			_, err := cs.ListTools(ctx, nil)
			return err
		}, nil)
	case scenario == "tools_call":
		err = d.run(`add_numbers {"a": 5, "b": 3}`, `body contains "is 8"`)
	case scenario == "sse-retry":
		err = d.run(`test_reconnection {}`, `body contains "Reconnection test completed"`)
	case scenario == "elicitation-sep1034-client-defaults":
		err = d.proxy(func(cs *mcp.ClientSession) error {
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "test_client_elicitation_defaults", Arguments: map[string]any{}})
			if err == nil && res.IsError {
				err = fmt.Errorf("test_client_elicitation_defaults: isError result %v", res.Content)
			}
			return err
		}, func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			// The person behind the agent accepts the form as offered.
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{}}, nil
		})
	default:
		fmt.Fprintf(stderr, "conformanceclient: no way to play scenario %q\n", scenario)
		return 2
	}
	if err != nil {
		fmt.Fprintf(stderr, "conformanceclient: %s: %v\n", scenario, err)
		return 1
	}
	return 0
}

type driver struct {
	ctx    context.Context
	bin    string
	url    string
	dir    string
	stderr io.Writer
}

// run replays a one-step skill calling action with one assert through
// `reelier run --wrap URL`.
func (d driver) run(action, assert string) error {
	skill := "---\nname: conformance\ndescription: one call for an MCP conformance scenario\n---\n\n## Steps\n\n" +
		"### Step 1 — Call the scenario's tool\n- intent: make the call the scenario waits for\n" +
		"- action: " + action + "\n- assert: " + assert + "\n- effect: read\n"
	path := filepath.Join(d.dir, "conformance.skill.md")
	if err := os.WriteFile(path, []byte(skill), 0o644); err != nil {
		return err
	}
	cmd := exec.CommandContext(d.ctx, d.bin, "run", "--wrap", d.url, "--runs-dir", filepath.Join(d.dir, "runs"), path)
	cmd.Dir = d.dir
	cmd.Stdout, cmd.Stderr = d.stderr, d.stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("reelier run --wrap %s: %v", d.url, err)
	}
	return nil
}

// proxy starts `reelier mcp --wrap URL` as an agent does, with a go-sdk
// client (which answers elicitations with elicit, when given), and hands
// the session to act.
func (d driver) proxy(act func(*mcp.ClientSession) error, elicit func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error)) error {
	cmd := exec.Command(d.bin, "mcp", "--wrap", d.url, "--trace-dir", filepath.Join(d.dir, "traces"))
	cmd.Dir = d.dir
	cmd.Stderr = d.stderr
	c := mcp.NewClient(&mcp.Implementation{Name: "conformance-agent", Version: "1.0.0"}, &mcp.ClientOptions{ElicitationHandler: elicit})
	cs, err := c.Connect(d.ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		return fmt.Errorf("reelier mcp --wrap %s: %v", d.url, err)
	}
	err = act(cs)
	return errors.Join(err, cs.Close())
}
