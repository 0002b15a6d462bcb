package atomicfile

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func TestWriteReplacesAndKeepsMode(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "a.skill.md")
	if err := os.WriteFile(path, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := Write(path, []byte("new"), 0o644); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(path)
	info, _ := os.Stat(path)
	if string(got) != "new" || info.Mode().Perm() != 0o600 {
		t.Errorf("content %q mode %v, want \"new\" 0600", got, info.Mode().Perm())
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("temporary files left behind: %v", entries)
	}
}

func TestWriteNewFileUsesPerm(t *testing.T) {
	path := filepath.Join(t.TempDir(), "new.md")
	if err := Write(path, []byte("x"), 0o640); err != nil {
		t.Fatal(err)
	}
	if info, _ := os.Stat(path); info.Mode().Perm() != 0o640 {
		t.Errorf("mode %v", info.Mode().Perm())
	}
}

func TestWriteFailureLeavesOriginal(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "missing-dir", "a.md")
	if err := Write(path, []byte("x"), 0o644); err == nil {
		t.Fatal("write into a missing directory succeeded")
	}
}

// TestFailureBeforeRenameKeepsOld injects a failure after the new content
// is complete on disk and before the rename: the target keeps its complete
// old content and no temporary file is left.
func TestFailureBeforeRenameKeepsOld(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "a.skill.md")
	if err := os.WriteFile(path, []byte("old content\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	injected := errors.New("injected crash")
	var sawTemp string
	beforeRename = func(tmp string) error {
		sawTemp = tmp
		if got, _ := os.ReadFile(tmp); string(got) != "new content\n" {
			t.Errorf("temporary file holds %q before the rename", got)
		}
		return injected
	}
	defer func() { beforeRename = nil }()
	if err := Write(path, []byte("new content\n"), 0o644); !errors.Is(err, injected) {
		t.Fatalf("Write = %v, want the injected error", err)
	}
	if got, _ := os.ReadFile(path); string(got) != "old content\n" {
		t.Errorf("target holds %q, want the old content", got)
	}
	if _, err := os.Stat(sawTemp); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("temporary file %s left behind (%v)", sawTemp, err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("directory holds %v, want only the target", entries)
	}
}

// TestRenameFallback: when renaming over the target fails with EEXIST or
// EPERM, the target is removed and the rename retried exactly once; any
// other error, or a failing retry, is returned with the temporary file
// removed.
func TestRenameFallback(t *testing.T) {
	eperm := &os.LinkError{Op: "rename", Err: syscall.EPERM}
	eexist := &os.LinkError{Op: "rename", Err: syscall.EEXIST}
	other := &os.LinkError{Op: "rename", Err: syscall.EXDEV}
	tests := []struct {
		name     string
		failures []error // returned by successive renames before the real one
		want     string  // target content afterwards
		renames  int
		wantErr  error
	}{
		{name: "EPERM once", failures: []error{eperm}, want: "new", renames: 2},
		{name: "EEXIST once", failures: []error{eexist}, want: "new", renames: 2},
		{name: "EPERM twice", failures: []error{eperm, eperm}, want: "", renames: 2, wantErr: syscall.EPERM},
		{name: "other error", failures: []error{other}, want: "old", renames: 1, wantErr: syscall.EXDEV},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "a.md")
			if err := os.WriteFile(path, []byte("old"), 0o644); err != nil {
				t.Fatal(err)
			}
			calls := 0
			real := renameIn
			renameIn = func(d fsys, from, to string) error {
				calls++
				if calls <= len(tt.failures) {
					return tt.failures[calls-1]
				}
				return real(d, from, to)
			}
			defer func() { renameIn = real }()
			err := Write(path, []byte("new"), 0o644)
			if !errors.Is(err, tt.wantErr) || (tt.wantErr == nil) != (err == nil) {
				t.Errorf("Write = %v, want %v", err, tt.wantErr)
			}
			if calls != tt.renames {
				t.Errorf("%d renames, want %d", calls, tt.renames)
			}
			got, _ := os.ReadFile(path)
			if string(got) != tt.want {
				t.Errorf("target holds %q, want %q", got, tt.want)
			}
			entries, _ := os.ReadDir(dir)
			for _, e := range entries {
				if e.Name() != "a.md" {
					t.Errorf("left behind: %s", e.Name())
				}
			}
		})
	}
}

// TestTempPattern: temporaries are named `.<name>.reelier-tmp-<pid>-<random>`,
// and TempPattern matches them.
func TestTempPattern(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "a.skill.md")
	var seen string
	beforeRename = func(tmp string) error { seen = filepath.Base(tmp); return nil }
	defer func() { beforeRename = nil }()
	if err := Write(path, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf(".a.skill.md.reelier-tmp-%d-", os.Getpid())
	if !strings.HasPrefix(seen, want) {
		t.Errorf("temporary file %q, want it named %q…", seen, want)
	}
	if ok, err := filepath.Match(TempPattern(path), seen); err != nil || !ok {
		t.Errorf("pattern %q does not match the temporary name %q", TempPattern(path), seen)
	}
}

// TestWriteFuncFailureKeepsOriginal: content produced while writing may
// fail part way, after bytes have gone out (past the buffer too); the
// target keeps its old bytes and no temporary file stays.
func TestWriteFuncFailureKeepsOriginal(t *testing.T) {
	boom := errors.New("producer failed")
	for _, written := range []int{0, 10, 1 << 20} {
		dir := t.TempDir()
		path := filepath.Join(dir, "a.md")
		if err := os.WriteFile(path, []byte("old"), 0o600); err != nil {
			t.Fatal(err)
		}
		err := WriteFunc(path, 0o644, func(w io.Writer) error {
			if _, err := w.Write(bytes.Repeat([]byte("x"), written)); err != nil {
				return err
			}
			return boom
		})
		if !errors.Is(err, boom) {
			t.Errorf("%d bytes: WriteFunc = %v, want the producer's error", written, err)
		}
		if got, _ := os.ReadFile(path); string(got) != "old" {
			t.Errorf("%d bytes: target holds %d bytes, want the old file", written, len(got))
		}
		if entries, _ := os.ReadDir(dir); len(entries) != 1 {
			t.Errorf("%d bytes: %d entries left, want only the target", written, len(entries))
		}
	}
	// Success writes everything the producer wrote, through the buffer,
	// and keeps the target's mode.
	path := filepath.Join(t.TempDir(), "a.md")
	if err := os.WriteFile(path, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	want := bytes.Repeat([]byte("0123456789"), 100_000)
	if err := WriteFunc(path, 0o644, func(w io.Writer) error { _, err := w.Write(want); return err }); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(path)
	info, _ := os.Stat(path)
	if !bytes.Equal(got, want) || info.Mode().Perm() != 0o600 {
		t.Errorf("target holds %d bytes with mode %v, want %d bytes with 0600", len(got), info.Mode().Perm(), len(want))
	}
}
