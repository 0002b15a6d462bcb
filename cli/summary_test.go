package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reelier/reelier/testkit/testutil"
)

// Run records for the summary goldens, one JSON line each.
const (
	passedRecord = `{"skill":"weekly-bookings","startedAt":"2026-07-20T08:00:00.000Z","finishedAt":"2026-07-20T08:00:00.412Z","passed":true,"steps":[` +
		`{"n":1,"title":"List this week's bookings","level":0,"outcome":"passed","ms":301,"failures":[]},` +
		`{"n":2,"title":"Open the first booking","level":0,"outcome":"passed","ms":98,"failures":[]},` +
		`{"n":3,"title":"Ping the status page","level":0,"outcome":"unchecked","ms":12,"failures":[]}],` +
		`"totals":{"steps":3,"passed":2,"unchecked":1,"skipped":0,"failed":0,"ms":411,"llmInputTokens":0,"llmOutputTokens":0}}`
	failedRecord = `{"skill":"checker","startedAt":"2026-07-20T08:00:00.000Z","finishedAt":"2026-07-20T08:00:01.730Z","passed":false,"steps":[` +
		`{"n":1,"title":"Check the booking | status","level":0,"outcome":"failed","ms":1729,"failures":["json.status == \"confirmed\" failed: got \"pending\"; body starts \"<html><script>alert(1)</script> *bold* [link](x)\""],"why":{"trigger":"json.status == \"confirmed\" failed: got \"pending\""}},` +
		`{"n":2,"title":"Never runs","level":0,"outcome":"skipped","ms":0,"failures":[]}],` +
		`"totals":{"steps":2,"passed":0,"unchecked":0,"skipped":1,"failed":1,"ms":1729,"llmInputTokens":0,"llmOutputTokens":0}}`
	uncheckedRecord = `{"skill":"pings","startedAt":"2026-07-20T08:00:00.000Z","finishedAt":"2026-07-20T08:00:00.040Z","passed":true,"steps":[` +
		`{"n":1,"title":"Ping one","level":0,"outcome":"unchecked","ms":20,"failures":[]},` +
		`{"n":2,"title":"Ping two","level":0,"outcome":"unchecked","ms":19,"failures":[]}],` +
		`"totals":{"steps":2,"passed":0,"unchecked":2,"skipped":0,"failed":0,"ms":39,"llmInputTokens":0,"llmOutputTokens":0}}`
	escalatedRecord = `{"skill":"bookings-drift","startedAt":"2026-07-20T08:00:00.000Z","finishedAt":"2026-07-20T08:00:09.100Z","passed":false,"steps":[` +
		`{"n":1,"title":"List bookings","level":1,"outcome":"passed","ms":4200,"failures":[],"llm":{"inputTokens":1840,"outputTokens":212},"escalationAttempted":1,"why":{"change":"L1: the list moved from json.bookings to json.data.bookings"}},` +
		`{"n":2,"title":"Open the first booking","level":0,"outcome":"failed","ms":4890,"failures":["status == 200 failed: got 404"],"llm":{"inputTokens":3950,"outputTokens":530},"escalationAttempted":2,"why":{"trigger":"status == 200 failed: got 404"}},` +
		`{"n":3,"title":"Summarise","level":0,"outcome":"skipped","ms":0,"failures":[]}],` +
		`"totals":{"steps":3,"passed":1,"unchecked":0,"skipped":1,"failed":1,"ms":9090,"llmInputTokens":5790,"llmOutputTokens":742}}`
	// hostileRecord's title and failure try to repaint a terminal.
	hostileRecord = `{"skill":"evil\u202e","startedAt":"2026-07-20T08:00:00.000Z","finishedAt":"2026-07-20T08:00:00.100Z","passed":false,"steps":[` +
		`{"n":1,"title":"Innocent\u001b[2J\u001b[H\rPASS\u202edoog","level":0,"outcome":"failed","ms":100,"failures":["got \"\u001b]0;owned\u0007\"\r\nsecond line"]}],` +
		`"totals":{"steps":1,"passed":0,"unchecked":0,"skipped":0,"failed":1,"ms":100,"llmInputTokens":0,"llmOutputTokens":0}}`
	// legacyRecord predates honest totals: its passed count includes the
	// unchecked step and it has no unchecked or skipped count.
	legacyRecord = `{"skill":"old","startedAt":"2025-01-02T08:00:00.000Z","finishedAt":"2025-01-02T08:00:00.100Z","passed":true,"steps":[` +
		`{"n":1,"title":"Get","level":0,"outcome":"passed","ms":50,"failures":[]},` +
		`{"n":2,"title":"Ping","level":0,"outcome":"unchecked","ms":50,"failures":[]}],` +
		`"totals":{"steps":2,"passed":2,"failed":0,"ms":100,"llmInputTokens":0,"llmOutputTokens":0}}`
)

// TestSummary: the Markdown of `reelier summary` for every kind of run,
// and for none, as golden files.
func TestSummary(t *testing.T) {
	tests := []struct {
		name    string
		history string // "" means the file does not exist
		args    []string
	}{
		{"passed", passedRecord + "\n", []string{"--push", "pushed"}},
		{"failed", failedRecord + "\n", []string{"--push", "not-attempted"}},
		{"unchecked-only", uncheckedRecord + "\n", []string{"--push", "skipped-no-key"}},
		{"escalated", escalatedRecord + "\n", nil},
		{"missing-record", "", []string{"--skill", "skills/weekly-bookings.skill.md", "--push", "not-attempted"}},
		{"latest-of-several", failedRecord + "\nnot json\n" + passedRecord + "\n", []string{"--push", "failed"}},
		{"legacy", legacyRecord + "\n", nil},
		{"no-readable-record", "{\"skill\": 1}\n\n", nil},
		// The newest line was cut off while it was written: no verdict,
		// not the older record's.
		{"torn-newest", failedRecord + "\n" + passedRecord + "\n" + passedRecord[:97], []string{"--push", "failed"}},
		{"hostile", hostileRecord + "\n", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "runs.jsonl")
			if tt.history != "" {
				if err := os.WriteFile(path, []byte(tt.history), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			var stdout, stderr bytes.Buffer
			code := run(append([]string{"summary", path}, tt.args...), nil, &stdout, &stderr)
			if code != exitOK || stderr.Len() > 0 {
				t.Fatalf("exit %d, stderr %q", code, stderr.String())
			}
			out := strings.ReplaceAll(stdout.String(), path, "RUNS_FILE")
			testutil.Golden(t).Assert(t, tt.name, []byte(out))
		})
	}
}

func TestSummaryUsage(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"summary"}, "requires at least 1 arg(s)"},
		{[]string{"summary", "a.jsonl", "b.jsonl"}, "summary takes one RUNS_FILE"},
		{[]string{"summary", "--runs-dir", dir, "--format", "xml", "x.skill.md"}, `--format "xml": want markdown, github, outputs, files or passed-files`},
		{[]string{"summary", "--runs-dir", dir, "--push", "maybe", "x.skill.md"}, `--push "maybe": want one of failed, not-attempted, pushed, skipped-no-key`},
		{[]string{"summary", "--runs-dir", dir, "--push-policy", "sometimes", "x.skill.md"}, `--push-policy "sometimes": want always, passed or never`},
		{[]string{"summary", "x.jsonl", "--push", "maybe"}, `--push "maybe": want one of failed, not-attempted, pushed, skipped-no-key`},
		{[]string{"summary", dir}, "is a directory"},
	}
	for _, tt := range tests {
		var stdout, stderr bytes.Buffer
		if code := run(tt.args, nil, &stdout, &stderr); code != exitUsage || !strings.Contains(stderr.String(), tt.want) || stdout.Len() > 0 {
			t.Errorf("%v: exit %d, stderr %q, stdout %q; want exit 2 and %q", tt.args, code, stderr.String(), stdout.String(), tt.want)
		}
	}
}
