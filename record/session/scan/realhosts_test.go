package scan

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestScanRealHostFiles scans one folder holding a session file of each
// host, each written by the host's real CLI (the live tests' fixtures in
// testdata/sessions), with the real host table: every file is read by its
// own host, and the two sessions that ran the same tools in the same
// order are one workflow done twice.
func TestScanRealHostFiles(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"claude-file.jsonl", "codex-live.jsonl", "gemini-session.jsonl"} {
		data, err := os.ReadFile(filepath.Join("..", "..", "..", "testdata", "sessions", f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	res, err := Scan(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Folders) != 1 {
		t.Fatalf("folders %+v, want the one given", res.Folders)
	}
	var found []string
	for _, c := range res.Folders[0].Found {
		found = append(found, fmt.Sprintf("%s %d/%d", c.Host, c.Sessions, c.Replayable))
	}
	if got, want := strings.Join(found, ", "), "claude 1/1, codex 1/1, gemini 1/1"; got != want {
		t.Errorf("found %q, want %q (host read/replayable)", got, want)
	}
	var groups []string
	for _, g := range res.Groups {
		var hosts []string
		for _, i := range g.Sessions {
			hosts = append(hosts, res.Replayable[i].Host)
		}
		groups = append(groups, fmt.Sprintf("%d× %s (%s)", g.Count, strings.Join(g.Workflow, " → "), strings.Join(hosts, ", ")))
	}
	want := []string{
		"2× items/create_item → items/get_item → items/fail (gemini, claude)",
		"1× items/create_item → items/get_item → items/get_item (codex)",
	}
	if strings.Join(groups, "\n") != strings.Join(want, "\n") {
		t.Errorf("groups:\n%s\nwant:\n%s", strings.Join(groups, "\n"), strings.Join(want, "\n"))
	}
}
