package main

import (
	"bytes"
	"strings"
	"testing"
)

// TestHarnessSmoke runs the whole harness once at toy sizes: it builds
// reelier and every limit program, generates the inputs, runs each
// workload and its limit, measures the proxy paths and the seatbelt's
// hand-off. It checks that
// every table row is there, not the figures (those come from a full run:
// `go run ./bench/ab`).
func TestHarnessSmoke(t *testing.T) {
	if testing.Short() {
		t.Skip("builds reelier; skipped with -short")
	}
	var out bytes.Buffer
	c := Config{Rounds: 1, Work: t.TempDir(), DryRunSteps: 12, ParseSteps: 20, TraceSmall: 5, TraceLarge: 12, ScalingSteps: []int{10, 40},
		ProxyCalls: 10, ProxyThroughput: 32, Out: &out}
	if err := Run(c); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	for _, want := range []string{
		"| startup |", "| dry-run skill12.skill.md |", "| parse skill20.skill.md |", "| lint skill20.skill.md |",
		"| fmt --check skill20.skill.md |", "| compile trace5.jsonl |", "| compile trace12.jsonl |",
		"dry-run scaling:", "| 10 |", "| 40 |",
		"| direct |", "| relay |", "| reelier mcp |", "calls/s",
		"default protocol revision (2026-07-28", "revision 2025-11-25 (the proxy's fast path)", "limit echo server",
		"| SDK client ×16 goroutines, 2026-07-28, mcptest | reelier mcp |", "| SDK client ×16 goroutines, 2025-11-25, mcptest | reelier mcp |",
		"| raw client pipelining (64 in flight), rawecho | reelier mcp |",
		"| reelier mcp, no policy |", "| reelier mcp --policy (hand-off to reelier-seatbelt) |", "| reelier-seatbelt mcp --policy (no hand-off) |",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("report lacks %q:\n%s", want, out.String())
		}
	}
}
