package atomicfile

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestWriteIn: a name inside the root is written atomically with the
// same rules as Write (mode kept, new files get perm, nothing left
// behind); a name that a symbolic link leads out of the root is refused
// and nothing is created outside, neither the target nor a temporary
// file.
func TestWriteIn(t *testing.T) {
	tests := []struct {
		name    string
		setup   map[string]string // file → content, before the write; "->" prefix: a symbolic link
		target  string
		wantErr string // "" for success
		mode    os.FileMode
	}{
		{name: "new file", target: "a.md", mode: 0o640},
		{name: "new file in a folder", setup: map[string]string{"sub/keep": ""}, target: "sub/a.md", mode: 0o640},
		{name: "replaces, keeping the mode", setup: map[string]string{"a.md": "old"}, target: "a.md", mode: 0o600},
		{name: "through a link inside", setup: map[string]string{"real/keep": "", "link": "->real"}, target: "link/a.md", mode: 0o640},
		{name: "folder linked outside", setup: map[string]string{"out": "->OUTSIDE"}, target: "out/a.md", wantErr: "escapes"},
		// The rename replaces the link itself; what it pointed to is untouched.
		{name: "file linked outside", setup: map[string]string{"a.md": "->OUTSIDE/a.md"}, target: "a.md", mode: 0o640},
		{name: "dot-dot", target: "../a.md", wantErr: "escapes"},
		{name: "missing folder", target: "nope/a.md", wantErr: "no such file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir, outside := t.TempDir(), t.TempDir()
			if err := os.WriteFile(filepath.Join(outside, "a.md"), []byte("outside"), 0o644); err != nil {
				t.Fatal(err)
			}
			for name, content := range tt.setup {
				p := filepath.Join(dir, filepath.FromSlash(name))
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				var err error
				if target, ok := strings.CutPrefix(content, "->"); ok {
					err = os.Symlink(strings.Replace(target, "OUTSIDE", outside, 1), p)
				} else {
					err = os.WriteFile(p, []byte(content), 0o600)
				}
				if err != nil {
					t.Fatal(err)
				}
			}
			root, err := os.OpenRoot(dir)
			if err != nil {
				t.Fatal(err)
			}
			defer root.Close()
			err = WriteIn(root, filepath.FromSlash(tt.target), []byte("new"), 0o640)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("WriteIn = %v, want an error containing %q", err, tt.wantErr)
				}
			} else {
				if err != nil {
					t.Fatal(err)
				}
				got, err := root.ReadFile(filepath.FromSlash(tt.target))
				info, _ := root.Stat(filepath.FromSlash(tt.target))
				if err != nil || string(got) != "new" || info.Mode().Perm() != tt.mode {
					t.Errorf("target holds %q (%v) with mode %v, want \"new\" with %v", got, err, info.Mode().Perm(), tt.mode)
				}
			}
			if entries, _ := os.ReadDir(outside); len(entries) != 1 {
				t.Errorf("written outside the root: %v", entries)
			}
			if got, _ := os.ReadFile(filepath.Join(outside, "a.md")); string(got) != "outside" {
				t.Errorf("the file outside now holds %q", got)
			}
			filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
				if err == nil && strings.Contains(d.Name(), "tmp-") {
					t.Errorf("temporary file left behind: %s", p)
				}
				return nil
			})
		})
	}
}

// TestWriteInFailureBeforeRename: the injected crash between the
// complete temporary file and the rename leaves the old target and no
// temporary file, through a root as by path.
func TestWriteInFailureBeforeRename(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.md"), []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	injected := errors.New("injected crash")
	beforeRename = func(tmp string) error {
		if got, _ := os.ReadFile(tmp); string(got) != "new" {
			t.Errorf("temporary file %s holds %q before the rename", tmp, got)
		}
		return injected
	}
	defer func() { beforeRename = nil }()
	if err := WriteIn(root, "a.md", []byte("new"), 0o644); !errors.Is(err, injected) {
		t.Fatalf("WriteIn = %v, want the injected error", err)
	}
	if got, _ := root.ReadFile("a.md"); string(got) != "old" {
		t.Errorf("target holds %q, want the old content", got)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("directory holds %v, want only the target", entries)
	}
}
