package serve

import (
	"os"
	"testing"

	"github.com/reelier/reelier/testkit/mcptest"
)

// TestMain lets this test binary stand in for an MCP server: run with
// mcptest.ServeEnv set, it serves the test server on stdio, which is how
// TestReplayWrap's wrap command starts it.
func TestMain(m *testing.M) {
	mcptest.ServeIfAsked()
	os.Setenv(mcptest.ServeEnv, "1")
	os.Exit(m.Run())
}
