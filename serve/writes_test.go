package serve

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
)

// oneStepSkill reads one URL and checks it; its run records go to
// .reelier/runs/one.jsonl.
const oneStepSkill = `---
name: one
description: Read the bookings
---

## Steps

### Step 1 — List bookings
- intent: List the bookings
- action: http.get {"url": "{{base}}/bookings"}
- assert: status == 200
- effect: read
`

// pushedSkill is pushed once before the swaps start, so each later push
// sends nothing and only rewrites the state file (and takes its lock).
const pushedSkill = `---
name: pushed
description: Read the bookings, to be pushed
---

## Steps

### Step 1 — List bookings
- intent: List the bookings
- action: http.get {"url": "{{base}}/bookings"}
- assert: status == 200
- effect: read
`

// TestRunsDirLinkedOutside: a runs directory, or the .reelier folder
// holding it, that is a symbolic link to a directory outside the working
// directory is refused with an error naming it, by every tool that would
// write or read there, and nothing outside is written.
func TestRunsDirLinkedOutside(t *testing.T) {
	api, _ := fakeAPI(t)
	history := t.TempDir()
	writeFiles(t, history, map[string]string{"p/s.jsonl": transcript("0f3c9a7e", listCall)})
	tests := []struct {
		name, link string
		tool, args string
		want       string
	}{
		{"runs linked, replay", ".reelier/runs", "reelier_replay", `{"skillPath": "one.skill.md", "vars": {"base": "API"}}`,
			`the replay ran (passed: true) but its run record could not be written: the runs directory ".reelier/runs" is outside the working directory`},
		{"runs linked, push", ".reelier/runs", "reelier_push", `{"skillPath": "one.skill.md"}`,
			`the run history \".reelier/runs/one.jsonl\" is outside the working directory`},
		{"runs linked, dry run", ".reelier/runs", "reelier_push", `{"skillPath": "one.skill.md", "dryRun": true}`,
			`the run history \".reelier/runs/one.jsonl\" is outside the working directory`},
		{".reelier linked, replay", ".reelier", "reelier_replay", `{"skillPath": "one.skill.md", "vars": {"base": "API"}}`,
			`the runs directory ".reelier/runs" is outside the working directory`},
		{".reelier linked, push", ".reelier", "reelier_push", `{"skillPath": "one.skill.md"}`,
			`the run history \".reelier/runs/one.jsonl\" is outside the working directory`},
		{".reelier linked, from_session", ".reelier", "reelier_from_session", `{"transcriptPath": "HISTORY/p/s.jsonl", "out": ".reelier/s.skill.md"}`,
			`out ".reelier/s.skill.md" is outside the working directory`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir, outside := t.TempDir(), t.TempDir()
			writeFiles(t, dir, map[string]string{"one.skill.md": oneStepSkill})
			writeFiles(t, outside, map[string]string{"one.jsonl": "", "runs/one.jsonl": ""})
			link := filepath.Join(dir, filepath.FromSlash(tt.link))
			if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(outside, link); err != nil {
				t.Fatal(err)
			}
			before := snapshot(t, outside)
			env := map[string]string{"REELIER_CLOUD_URL": "http://127.0.0.1:1", "REELIER_CLOUD_KEY": "rk_unused"}
			cs := connect(t, Options{Dir: dir, HistoryDir: history, Getenv: func(k string) string { return env[k] }})
			args := replaceAll(tt.args, "API", api, "HISTORY", history)
			wantError(t, call(t, cs, tt.tool, args), tt.want, "("+realDir(t, dir)+")", "symbolic links are followed before this check")
			if after := snapshot(t, outside); !slices.Equal(after, before) {
				t.Errorf("the outside changed: %v, was %v", after, before)
			}
		})
	}
}

// TestLinkAfterCheck: a path that passed the check and then had a folder
// on its way swapped for a link out of the working directory is refused
// by the os.Root at the write, and refusedLate says so in the check's
// terms; nothing is written outside. Any other failure is passed on as it
// is.
func TestLinkAfterCheck(t *testing.T) {
	dir, outside := t.TempDir(), t.TempDir()
	writeFiles(t, dir, map[string]string{".reelier/skills/keep": ""})
	work, err := openArea("the working directory", dir)
	if err != nil {
		t.Fatal(err)
	}
	defer work.close()
	p, _, err := within("out", work.dir, ".reelier/skills/a.skill.md", work)
	if err != nil {
		t.Fatal(err)
	}
	// The swap, after the check.
	if err := os.Rename(filepath.Join(dir, ".reelier"), filepath.Join(dir, "moved")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(dir, ".reelier")); err != nil {
		t.Fatal(err)
	}
	err = work.writeFile(p, []byte("x"), 0o644)
	if err == nil {
		t.Fatal("the write followed the link")
	}
	err = work.refusedLate(err, "out", ".reelier/skills/a.skill.md")
	want := `out ".reelier/skills/a.skill.md" is outside the working directory (` + work.dir + `) by now: a symbolic link on its way changed after the path was checked, and reelier serve did not follow it`
	if err == nil || err.Error() != want {
		t.Errorf("refusedLate = %v\nwant %s", err, want)
	}
	if entries, _ := os.ReadDir(outside); len(entries) != 0 {
		t.Errorf("written outside: %v", entries)
	}
	other := &fs.PathError{Op: "write", Path: "a.skill.md", Err: syscall.ENOSPC}
	if got := work.refusedLate(other, "out", "a.skill.md"); got != error(other) {
		t.Errorf("refusedLate of an unrelated failure = %v", got)
	}
}

// snapshot lists every file below dir with its content.
func snapshot(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(p string, e os.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		out = append(out, fmt.Sprintf("%s=%q", p, b))
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// replaceAll replaces each old, new pair in s in turn.
func replaceAll(s string, pairs ...string) string {
	for i := 0; i+1 < len(pairs); i += 2 {
		s = strings.ReplaceAll(s, pairs[i], pairs[i+1])
	}
	return s
}

// realDir is dir with its symbolic links resolved, as messages name it.
func realDir(t *testing.T, dir string) string {
	t.Helper()
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		t.Fatal(err)
	}
	return real
}
