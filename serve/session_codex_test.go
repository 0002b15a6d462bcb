package serve

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reelier/reelier/testkit/testutil"
)

// TestFromSessionCodex: reelier_from_session reads a Codex CLI rollout
// file (the one the live Codex test wrote) with the Codex reader, as the
// command line does.
func TestFromSessionCodex(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(testutil.Root(), "testdata", "sessions", "codex-live.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"rollout-2026-12-07T06-30-43-live.jsonl": string(data)})
	cs := connect(t, Options{Dir: dir})
	var out FromSessionOutput
	decode(t, call(t, cs, "reelier_from_session", `{"transcriptPath": "rollout-2026-12-07T06-30-43-live.jsonl", "name": "codex-live"}`), &out)
	var skipped []string
	for _, s := range out.Skipped {
		skipped = append(skipped, s.Tool)
	}
	if !out.OK || out.Steps != 3 || out.ReplayableCount != 3 || strings.Join(skipped, " ") != "exec_command mcp__items__fail" {
		t.Errorf("from_session on a Codex rollout: %+v", out)
	}
}
