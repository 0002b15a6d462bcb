package record_test

import (
	"context"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/reelier/reelier/testkit/testutil"
)

// The MCP conformance suite's server scenarios (@modelcontextprotocol/
// conformance 0.1.16, which ships no reference server of its own) run
// against `reelier mcp --http` wrapping @modelcontextprotocol/server-everything
// on stdio. Every scenario's outcome is pinned below, with why it fails
// when it does; docs/record.md carries the same table. A scenario whose
// outcome changes fails this test, so the table stays true.

// needsTestServer marks a scenario that calls a tool, prompt or resource
// only the suite's own test server has (test_simple_text,
// test://static-text, …): a real server, and so the proxy in front of it,
// answers that it does not exist.
const needsTestServer = "needs the suite's test server: server-everything has no such tool, prompt or resource"

// conformanceExpected is each server scenario's outcome through the
// proxy: "" passes, anything else is why it fails.
var conformanceExpected = map[string]string{
	"server-initialize":             "",
	"logging-set-level":             "",
	"ping":                          "",
	"tools-list":                    "",
	"server-sse-multiple-streams":   "",
	"resources-list":                "",
	"prompts-list":                  "",
	"dns-rebinding-protection":      "",
	"resources-subscribe":           "",
	"resources-unsubscribe":         "",
	"completion-complete":           needsTestServer,
	"tools-call-simple-text":        needsTestServer,
	"tools-call-image":              needsTestServer,
	"tools-call-audio":              needsTestServer,
	"tools-call-embedded-resource":  needsTestServer,
	"tools-call-mixed-content":      needsTestServer,
	"tools-call-with-logging":       needsTestServer,
	"tools-call-error":              needsTestServer,
	"tools-call-with-progress":      needsTestServer,
	"tools-call-sampling":           needsTestServer,
	"tools-call-elicitation":        needsTestServer,
	"elicitation-sep1034-defaults":  needsTestServer,
	"elicitation-sep1330-enums":     needsTestServer,
	"resources-read-text":           needsTestServer,
	"resources-read-binary":         needsTestServer,
	"resources-templates-read":      needsTestServer,
	"prompts-get-simple":            needsTestServer,
	"prompts-get-with-args":         needsTestServer,
	"prompts-get-embedded-resource": needsTestServer,
	"prompts-get-with-image":        needsTestServer,
}

func TestConformanceServerScenarios(t *testing.T) {
	suite := testutil.ConformanceSuite(t)
	everything := filepath.Join(npmPackage(t, "@modelcontextprotocol/server-everything"), "dist", "index.js")
	p := startHTTPProxy(t, nil, "--quiet", "--wrap", "node '"+everything+"' stdio")

	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	out, printed := suite.Run(ctx, t, "server", "--url", p.url)
	results, err := testutil.ReadConformanceResults(out)
	if err != nil || len(results) == 0 {
		t.Fatalf("the suite's results (%v):\n%s", err, printed)
	}
	// scenario → "" or what failed, by the suite's own rule (a FAILURE or
	// a WARNING fails a scenario).
	got := map[string]string{}
	for n, r := range results {
		if !r.Passed() {
			got[n] = r.Problems()
		}
		if _, ok := got[n]; !ok {
			got[n] = ""
		}
	}
	var names []string
	for n := range got {
		names = append(names, n)
	}
	sort.Strings(names)
	var table strings.Builder
	passed := 0
	for _, n := range names {
		status := "pass"
		if got[n] != "" {
			status = "FAIL: " + got[n]
		} else {
			passed++
		}
		fmt.Fprintf(&table, "%-32s %s\n", n, status)
		want, known := conformanceExpected[n]
		switch {
		case !known:
			t.Errorf("scenario %s is new (%s): add it to conformanceExpected and docs/record.md", n, status)
		case want == "" && got[n] != "":
			t.Errorf("scenario %s fails through the proxy: %s", n, got[n])
		case want != "" && got[n] == "":
			t.Errorf("scenario %s now passes (expected to fail: %s): update conformanceExpected and docs/record.md", n, want)
		case want == needsTestServer && !strings.Contains(got[n], "unknown tool") && !strings.Contains(got[n], "unknown prompt") && !strings.Contains(got[n], "Resource not found") && !strings.Contains(got[n], "no downstream serves the ref/prompt \"test_"):
			t.Errorf("scenario %s fails for another reason than a missing test tool: %s", n, got[n])
		}
	}
	for n := range conformanceExpected {
		if _, ran := got[n]; !ran {
			t.Errorf("scenario %s did not run", n)
		}
	}
	t.Logf("%d of %d server scenarios pass through reelier mcp --http:\n%s", passed, len(names), table.String())
}
