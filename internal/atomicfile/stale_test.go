package atomicfile

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// deadPID returns the id of a process that has exited and been reaped.
func deadPID(t *testing.T) int {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	return cmd.Process.Pid
}

// TestRemoveStale: the next write of a target removes the temporary files
// killed writers of that target left — a process that is gone, or a file
// untouched for StaleAfter — and keeps a writer's in flight, other
// targets' temporaries and files it did not name.
func TestRemoveStale(t *testing.T) {
	dead := deadPID(t)
	pidKnown := processGone(dead) // false where a process id cannot be checked
	old := time.Now().Add(-StaleAfter - time.Minute)
	fresh := time.Now()
	tests := []struct {
		name    string
		file    string // in the target's folder
		dir     bool   // a folder, not a file
		mtime   time.Time
		kept    bool
		needPID bool // needs a process id to be checkable
	}{
		{name: "killed writer, fresh", file: fmt.Sprintf(".a.skill.md.reelier-tmp-%d-123", dead), mtime: fresh, needPID: true},
		{name: "killed writer, old", file: fmt.Sprintf(".a.skill.md.reelier-tmp-%d-123", dead), mtime: old},
		{name: "writer in flight in another process", file: fmt.Sprintf(".a.skill.md.reelier-tmp-%d-123", os.Getppid()), mtime: fresh, kept: true},
		{name: "writer in flight in this process", file: fmt.Sprintf(".a.skill.md.reelier-tmp-%d-123", os.Getpid()), mtime: fresh, kept: true},
		{name: "running process id, but untouched too long (a reused id)", file: fmt.Sprintf(".a.skill.md.reelier-tmp-%d-123", os.Getppid()), mtime: old},
		{name: "another target's", file: fmt.Sprintf(".b.skill.md.reelier-tmp-%d-123", dead), mtime: old, kept: true},
		{name: "a longer name's", file: fmt.Sprintf(".a.skill.md.bak.reelier-tmp-%d-123", dead), mtime: old, kept: true},
		{name: "not named by a writer", file: ".a.skill.md.reelier-tmp-x-123", mtime: old, kept: true},
		{name: "random part not a number", file: fmt.Sprintf(".a.skill.md.reelier-tmp-%d-12x", dead), mtime: old, kept: true},
		{name: "older naming left alone", file: ".a.skill.md.tmp-123", mtime: old, kept: true},
		{name: "a folder", file: fmt.Sprintf(".a.skill.md.reelier-tmp-%d-123", dead), dir: true, mtime: old, kept: true},
	}
	writers := []struct {
		name  string
		write func(dir string) error
	}{
		{name: "Write", write: func(dir string) error { return Write(filepath.Join(dir, "a.skill.md"), []byte("new"), 0o644) }},
		{name: "WriteIn", write: func(dir string) error {
			root, err := os.OpenRoot(dir)
			if err != nil {
				return err
			}
			defer root.Close()
			return WriteIn(root, "a.skill.md", []byte("new"), 0o644)
		}},
	}
	for _, w := range writers {
		for _, tt := range tests {
			t.Run(w.name+"/"+tt.name, func(t *testing.T) {
				if tt.needPID && !pidKnown {
					t.Skip("process ids cannot be checked on this platform")
				}
				dir := t.TempDir()
				if err := os.WriteFile(filepath.Join(dir, "a.skill.md"), []byte("old"), 0o644); err != nil {
					t.Fatal(err)
				}
				p := filepath.Join(dir, tt.file)
				var err error
				if tt.dir {
					err = os.Mkdir(p, 0o755)
				} else {
					err = os.WriteFile(p, []byte("half a file"), 0o600)
				}
				if err != nil {
					t.Fatal(err)
				}
				if err := os.Chtimes(p, tt.mtime, tt.mtime); err != nil {
					t.Fatal(err)
				}
				if err := w.write(dir); err != nil {
					t.Fatal(err)
				}
				_, err = os.Lstat(p)
				if kept := err == nil; kept != tt.kept {
					t.Errorf("%s kept = %v after the next write, want %v", tt.file, kept, tt.kept)
				}
				if got, _ := os.ReadFile(filepath.Join(dir, "a.skill.md")); string(got) != "new" {
					t.Errorf("target holds %q", got)
				}
			})
		}
	}
}
