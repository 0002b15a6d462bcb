package skillfile

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const skill = `---
name: s
description: a test skill
---

### Step 1 — Fetch
- intent: read it
- action: http.get {"url": "{{base}}/x"}
- assert: status == 200
- effect: read
`

// names lists a folder.
func names(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		out = append(out, e.Name())
	}
	return out
}

// TestUpdate: the edit's result is written when it differs and parses;
// otherwise the file is left as it was, and the error says why.
func TestUpdate(t *testing.T) {
	boom := errors.New("edit failed")
	tests := []struct {
		name    string
		mode    os.FileMode
		edit    func([]byte) ([]byte, error)
		wrote   bool
		want    string // the file afterwards
		wantErr string
	}{
		{name: "edited", mode: 0o640, edit: func(b []byte) ([]byte, error) {
			return []byte(strings.Replace(string(b), "read it", "read it again", 1)), nil
		}, wrote: true, want: strings.Replace(skill, "read it", "read it again", 1)},
		{name: "unchanged", mode: 0o640, edit: func(b []byte) ([]byte, error) { return b, nil }, want: skill},
		{name: "edit fails", mode: 0o640, edit: func([]byte) ([]byte, error) { return []byte("x"), boom }, want: skill, wantErr: "edit failed"},
		{name: "result does not parse", mode: 0o640, edit: func(b []byte) ([]byte, error) {
			return []byte(strings.Replace(string(b), "effect: read", "effect: maybe", 1)), nil
		}, want: skill, wantErr: "would not parse"},
		{name: "read-only", mode: 0o444, edit: func([]byte) ([]byte, error) { t.Error("edit called on a read-only file"); return nil, nil },
			want: skill, wantErr: "is read-only (mode -r--r--r--)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "s.skill.md")
			if err := os.WriteFile(path, []byte(skill), tt.mode); err != nil {
				t.Fatal(err)
			}
			wrote, err := Update(path, tt.edit)
			if wrote != tt.wrote || (err == nil) != (tt.wantErr == "") || err != nil && !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("Update = %v, %v; want %v, an error containing %q", wrote, err, tt.wrote, tt.wantErr)
			}
			if got, _ := os.ReadFile(path); string(got) != tt.want {
				t.Errorf("file holds\n%s\nwant\n%s", got, tt.want)
			}
			if info, _ := os.Stat(path); info.Mode().Perm() != tt.mode {
				t.Errorf("mode %v, want %v", info.Mode().Perm(), tt.mode)
			}
			if got, want := names(t, dir), []string{".s.skill.md.lock", "s.skill.md"}; !slices.Equal(got, want) {
				t.Errorf("folder holds %v, want %v", got, want)
			}
		})
	}
}

// TestUpdateThroughLink: a skill that is a symbolic link (relative, to
// another folder) is rewritten through it: the link stays the same link,
// the target changes, and the lock and temporary files are the target's,
// in its folder. A dangling link is an error.
func TestUpdateThroughLink(t *testing.T) {
	base := t.TempDir()
	real, links := filepath.Join(base, "real"), filepath.Join(base, "links")
	for _, d := range []string{real, links} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	target := filepath.Join(real, "s.skill.md")
	if err := os.WriteFile(target, []byte(skill), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(links, "s.skill.md")
	if err := os.Symlink("../real/s.skill.md", link); err != nil {
		t.Fatal(err)
	}
	wrote, err := Update(link, func(b []byte) ([]byte, error) { return append(b, "\nA note.\n"...), nil })
	if !wrote || err != nil {
		t.Fatalf("Update = %v, %v", wrote, err)
	}
	if to, err := os.Readlink(link); err != nil || to != "../real/s.skill.md" {
		t.Errorf("the link now reads %q (%v), want the same link", to, err)
	}
	if got, _ := os.ReadFile(target); string(got) != skill+"\nA note.\n" {
		t.Errorf("target holds\n%s", got)
	}
	if got := names(t, links); !slices.Equal(got, []string{"s.skill.md"}) {
		t.Errorf("the link's folder holds %v", got)
	}
	if got := names(t, real); !slices.Equal(got, []string{".s.skill.md.lock", "s.skill.md"}) {
		t.Errorf("the target's folder holds %v", got)
	}

	dangling := filepath.Join(links, "gone.skill.md")
	if err := os.Symlink("../real/gone.skill.md", dangling); err != nil {
		t.Fatal(err)
	}
	if wrote, err := Update(dangling, func(b []byte) ([]byte, error) { return []byte(skill), nil }); wrote || !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Update of a dangling link = %v, %v; want a not-exist error", wrote, err)
	}
	if _, err := os.Lstat(filepath.Join(real, "gone.skill.md")); !errors.Is(err, os.ErrNotExist) {
		t.Error("a dangling link's target was created")
	}
}

// TestUpdateReadsUnderTheLock: an Update waiting for the lock computes
// from the file as the holder left it, not as it was when Update was
// called.
func TestUpdateReadsUnderTheLock(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.skill.md")
	if err := os.WriteFile(path, []byte(skill), 0o644); err != nil {
		t.Fatal(err)
	}
	unlock, err := Lock(path)
	if err != nil {
		t.Fatal(err)
	}
	saw := make(chan string, 1)
	done := make(chan error, 1)
	go func() {
		_, err := Update(path, func(b []byte) ([]byte, error) {
			saw <- string(b)
			return append(b, "\nSecond note.\n"...), nil
		})
		done <- err
	}()
	// Whenever the goroutine got to Update, it cannot read before this
	// change: the lock is held until after it.
	changed := skill + "\nFirst note.\n"
	if err := os.WriteFile(path, []byte(changed), 0o644); err != nil {
		t.Fatal(err)
	}
	unlock()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if got := <-saw; got != changed {
		t.Errorf("the edit saw\n%s\nwant the holder's change", got)
	}
	if got, _ := os.ReadFile(path); string(got) != changed+"\nSecond note.\n" {
		t.Errorf("file holds\n%s", got)
	}
}
