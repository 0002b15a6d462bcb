package cli

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/reelier/reelier/internal/atomicfile"
	"github.com/reelier/reelier/lang/ast"
	"github.com/reelier/reelier/lang/grammar"
	"github.com/reelier/reelier/lang/skillfile"
	"github.com/reelier/reelier/replay/writeback"
)

// rewriteSkill is canonical; step 1 is the step the heals patch.
const rewriteSkill = `---
name: drift
description: a skill whose API drifts
---

# Drift

## Steps

### Step 1 — Fetch the booking
- intent: read the booking
- action: http.get {"url": "{{base}}/booking"}
- assert: status == 200
- assert: json.id is set
- bind: id = json.id
- effect: read

### Step 2 — Count them
- intent: count the bookings
- action: http.get {"url": "{{base}}/bookings/{{id}}"}
- assert: status == 200
- assert: json.count > 5
- effect: read
`

// untidy makes step 2 work for both rewriters: a hyphen in its header for
// fmt -w (and lint --fix, which prints canonically too), a quoted number
// for lint --fix's numeric_compare fix.
func untidy(src []byte) []byte {
	s := strings.Replace(string(src), "### Step 2 — Count them", "### Step 2 - Count them", 1)
	return []byte(strings.Replace(s, "- assert: json.count > 5\n", "- assert: json.count > \"5\"\n", 1))
}

// emptyLintConfig is a lint configuration file with nothing in it, so the
// in-process lint runs do not depend on a .reelier/lint.toml above the
// working directory.
func emptyLintConfig(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "lint.toml")
	if err := os.WriteFile(path, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// testHeal is heal k of step 1: a distinct assert and reason, so its
// changelog line identifies it.
func testHeal(t *testing.T, k int) *writeback.Heal {
	var as []ast.Assert
	for _, line := range []string{"status == 200", "json.data.id is set", fmt.Sprintf("json.heal_%d is set", k)} {
		a, d := grammar.ParseAssert(line, ast.Pos{})
		if d != nil {
			t.Fatalf("%s: %v", line, d)
		}
		as = append(as, a)
	}
	b, d := grammar.ParseBind("id = json.data.id", ast.Pos{})
	if d != nil {
		t.Fatal(d)
	}
	return &writeback.Heal{
		Step: 1, Title: "Fetch the booking", Tool: "http.get", Level: 1,
		Reason: fmt.Sprintf("heal #%d", k), Date: time.Date(2026, 7, 18, 14, 0, 0, 0, time.UTC),
		Asserts: as, Binds: []ast.Bind{b},
	}
}

// TestRewritersKeepHeals runs heal write-backs (writeback.Apply, what the
// heal ladder calls), `reelier fmt -l -w` and `reelier lint --fix` (the
// real commands, in process) on one skill at once, with a fourth writer
// making the file untidy again so fmt and lint keep finding work, and a
// reader parsing the file throughout. Every heal Apply reports as written
// must be in the final file — its changelog line exactly once — and every
// read must parse. Heals are paced by the other loops (each waits until
// fmt, lint and the untidier have each gone round once more), so the
// writers overlap for the whole test without a sleep.
func TestRewritersKeepHeals(t *testing.T) {
	const healers, healsEach = 4, 10
	dir := t.TempDir()
	path := filepath.Join(dir, "drift.skill.md")
	if err := os.WriteFile(path, untidy([]byte(rewriteSkill)), 0o644); err != nil {
		t.Fatal(err)
	}
	config := emptyLintConfig(t)

	var (
		wg, loops     sync.WaitGroup
		mu            sync.Mutex
		problems      []string
		stop          = make(chan struct{})
		fmtTick       = make(chan struct{}, 1)
		lintTick      = make(chan struct{}, 1)
		untidyTick    = make(chan struct{}, 1)
		fmtWrites     atomic.Int64
		lintWrites    atomic.Int64
		untidyWrites  atomic.Int64
		reads         atomic.Int64
		healsWritten  = make([]bool, healers*healsEach)
		healsRejected atomic.Int64
	)
	problem := func(format string, args ...any) {
		mu.Lock()
		defer mu.Unlock()
		problems = append(problems, fmt.Sprintf(format, args...))
	}
	// loop runs body until stop, ticking after every round.
	loop := func(tick chan struct{}, body func()) {
		loops.Add(1)
		go func() {
			defer loops.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				body()
				select {
				case tick <- struct{}{}:
				default:
				}
			}
		}()
	}
	loop(fmtTick, func() {
		var out, errb bytes.Buffer
		if code := run([]string{"fmt", "-l", "-w", path}, strings.NewReader(""), &out, &errb); code != exitOK {
			problem("fmt -w: exit %d: %s", code, errb.String())
		}
		if out.Len() > 0 {
			fmtWrites.Add(1)
		}
	})
	loop(lintTick, func() {
		var out, errb bytes.Buffer
		if code := run([]string{"lint", "--fix", "--config", config, path}, strings.NewReader(""), &out, &errb); code != exitOK {
			problem("lint --fix: exit %d: %s%s", code, out.String(), errb.String())
		}
		if strings.Contains(errb.String(), ": applied ") {
			lintWrites.Add(1)
		}
	})
	loop(untidyTick, func() {
		wrote, err := skillfile.Update(path, func(src []byte) ([]byte, error) { return untidy(src), nil })
		if err != nil {
			problem("untidy: %v", err)
		}
		if wrote {
			untidyWrites.Add(1)
		}
	})
	loop(make(chan struct{}, 1), func() {
		src, err := os.ReadFile(path)
		if err != nil {
			problem("read: %v", err)
			return
		}
		if _, diags := grammar.Parse(path, src); diags.HasErrors() {
			problem("a reader saw a file that does not parse: %v", diags)
		}
		reads.Add(1)
	})

	for g := range healers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range healsEach {
				<-fmtTick
				<-lintTick
				<-untidyTick
				k := g*healsEach + i
				if err := writeback.Apply(path, testHeal(t, k)); err != nil {
					healsRejected.Add(1)
					problem("heal #%d not written back: %v", k, err)
					continue
				}
				healsWritten[k] = true // each k is this goroutine's alone
			}
		}()
	}
	wg.Wait()
	close(stop)
	loops.Wait()

	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, diags := grammar.Parse(path, src); diags.HasErrors() {
		t.Errorf("the final file does not parse: %v", diags)
	}
	lost := 0
	for k, written := range healsWritten {
		line := writeback.ChangelogLine(testHeal(t, k))
		if n := strings.Count(string(src), line+"\n"); written && n != 1 {
			lost++
			t.Errorf("heal #%d was reported written back; its changelog line is in the final file %d times", k, n)
		}
	}
	for _, p := range problems {
		t.Error(p)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, atomicfile.TempPattern(path))); len(left) > 0 {
		t.Errorf("temporary files left: %v", left)
	}
	t.Logf("%d heals attempted, %d written back, %d lost, %d rejected; fmt -w rewrote %d times, lint --fix %d times, the untidier %d times; %d reads all parsed",
		healers*healsEach, healers*healsEach-int(healsRejected.Load()), lost, healsRejected.Load(), fmtWrites.Load(), lintWrites.Load(), untidyWrites.Load(), reads.Load())
	if fmtWrites.Load() == 0 || lintWrites.Load() == 0 {
		t.Errorf("fmt -w rewrote %d times and lint --fix %d times: the test did not race them against the heals", fmtWrites.Load(), lintWrites.Load())
	}
}

// TestRewriteThroughLink: fmt -w and lint --fix on a skill that is a
// symbolic link (named, or met in a folder walk) rewrite the link's
// target and leave the link a link; nothing is written beside the link.
func TestRewriteThroughLink(t *testing.T) {
	tests := []struct {
		name string
		args func(link, config string) []string
		want string // the target afterwards
	}{
		{name: "fmt -w", args: func(link, _ string) []string { return []string{"fmt", "-w", link} },
			want: strings.Replace(string(untidy([]byte(rewriteSkill))), "### Step 2 - Count them", "### Step 2 — Count them", 1)},
		{name: "fmt -w on the folder", args: func(link, _ string) []string { return []string{"fmt", "-w", filepath.Dir(link)} },
			want: strings.Replace(string(untidy([]byte(rewriteSkill))), "### Step 2 - Count them", "### Step 2 — Count them", 1)},
		{name: "lint --fix", args: func(link, config string) []string { return []string{"lint", "--fix", "--config", config, link} },
			want: rewriteSkill},
		{name: "lint --fix on the folder", args: func(link, config string) []string {
			return []string{"lint", "--fix", "--config", config, filepath.Dir(link)}
		}, want: rewriteSkill},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			base := t.TempDir()
			real, links := filepath.Join(base, "real"), filepath.Join(base, "links")
			for _, d := range []string{real, links} {
				if err := os.Mkdir(d, 0o755); err != nil {
					t.Fatal(err)
				}
			}
			target := filepath.Join(real, "drift.skill.md")
			if err := os.WriteFile(target, untidy([]byte(rewriteSkill)), 0o640); err != nil {
				t.Fatal(err)
			}
			link := filepath.Join(links, "drift.skill.md")
			if err := os.Symlink("../real/drift.skill.md", link); err != nil {
				t.Fatal(err)
			}
			var out, errb bytes.Buffer
			if code := run(tt.args(link, emptyLintConfig(t)), strings.NewReader(""), &out, &errb); code != exitOK {
				t.Fatalf("exit %d: %s%s", code, out.String(), errb.String())
			}
			if to, err := os.Readlink(link); err != nil || to != "../real/drift.skill.md" {
				t.Errorf("the link reads %q (%v) afterwards, want it unchanged", to, err)
			}
			if got, _ := os.ReadFile(target); string(got) != tt.want {
				t.Errorf("the target holds\n%s\nwant\n%s", got, tt.want)
			}
			if info, _ := os.Stat(target); info.Mode().Perm() != 0o640 {
				t.Errorf("the target's mode is %v, want 0640", info.Mode().Perm())
			}
			entries, _ := os.ReadDir(links)
			if len(entries) != 1 {
				t.Errorf("the link's folder holds %d entries, want the link alone", len(entries))
			}
			entries, _ = os.ReadDir(real)
			var got []string
			for _, e := range entries {
				got = append(got, e.Name())
			}
			if want := []string{".drift.skill.md.lock", "drift.skill.md"}; !slices.Equal(got, want) {
				t.Errorf("the target's folder holds %v, want %v", got, want)
			}
		})
	}
}
