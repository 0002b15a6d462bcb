package runlog

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAppendIn: appending inside an os.Root creates the directory and the
// history file there and adds one line per record; a runs directory (or a
// history file) that a symbolic link leads out of the root is refused and
// nothing is written outside.
func TestAppendIn(t *testing.T) {
	tests := []struct {
		name    string
		links   map[string]string // link → target; OUTSIDE is the other directory
		dir     string
		wantErr string
	}{
		{name: "new directory", dir: ".reelier/runs"},
		{name: "linked inside", links: map[string]string{".reelier": "elsewhere"}, dir: ".reelier/runs"},
		{name: "directory linked outside", links: map[string]string{".reelier": "OUTSIDE"}, dir: ".reelier/runs", wantErr: "escapes"},
		{name: "history file linked outside", links: map[string]string{"runs/x.jsonl": "OUTSIDE/x.jsonl"}, dir: "runs", wantErr: "escapes"},
		{name: "dot-dot", dir: "../runs", wantErr: "escapes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir, outside := t.TempDir(), t.TempDir()
			for link, target := range tt.links {
				p := filepath.Join(dir, filepath.FromSlash(link))
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.MkdirAll(filepath.Join(dir, "elsewhere"), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.Symlink(strings.Replace(target, "OUTSIDE", outside, 1), p); err != nil {
					t.Fatal(err)
				}
			}
			root, err := os.OpenRoot(dir)
			if err != nil {
				t.Fatal(err)
			}
			defer root.Close()
			for i := range 2 {
				path, err := AppendIn(root, filepath.FromSlash(tt.dir), record("x", i))
				if path != filepath.Join(filepath.FromSlash(tt.dir), "x.jsonl") {
					t.Errorf("path %s", path)
				}
				if tt.wantErr != "" {
					if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
						t.Fatalf("AppendIn = %v, want an error containing %q", err, tt.wantErr)
					}
					continue
				}
				if err != nil {
					t.Fatal(err)
				}
			}
			if tt.wantErr == "" {
				data, err := root.ReadFile(filepath.Join(filepath.FromSlash(tt.dir), "x.jsonl"))
				if n := strings.Count(string(data), "\n"); err != nil || n != 2 {
					t.Errorf("history holds %d lines (%v), want 2", n, err)
				}
			}
			if entries, _ := os.ReadDir(outside); len(entries) != 0 {
				t.Errorf("written outside the root: %v", entries)
			}
		})
	}
}
