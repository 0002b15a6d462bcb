package writeback

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/reelier/reelier/internal/atomicfile"
	"github.com/reelier/reelier/lang/ast"
	"github.com/reelier/reelier/lang/format"
	"github.com/reelier/reelier/lang/grammar"
	"github.com/reelier/reelier/testkit/testutil"
)

// head is the frontmatter and preamble of the test skills.
const head = "---\nname: drift\ndescription: a skill whose API drifts\n---\n\n# Drift\n\n## Steps\n\n"

// fetch is the step every test heals.
const fetch = `### Step 1 — Fetch the booking
- intent: read the booking
- action: http.get {"url": "{{base}}/booking"}
- assert: status == 200
- assert: json.id is set
- bind: id = json.id
- effect: read
`

const second = `
### Step 2 — Read it again
- intent: read it by id
- action: http.get {"url": "{{base}}/booking/{{id}}"}
- assert: status == 200
- effect: read
`

// heal is the L1 heal of the drift: id moved under data.
func heal(t testing.TB) *Heal {
	return &Heal{
		Step: 1, Title: "Fetch the booking", Tool: "http.get", Level: 1,
		Reason:  "the API now wraps the booking in a data object",
		Date:    time.Date(2026, 7, 18, 14, 0, 0, 0, time.UTC),
		Asserts: asserts(t, "status == 200", "json.data.id is set"),
		Binds:   binds(t, "id = json.data.id"),
	}
}

func asserts(t testing.TB, lines ...string) []ast.Assert {
	t.Helper()
	out := make([]ast.Assert, len(lines))
	for i, l := range lines {
		a, d := grammar.ParseAssert(l, ast.Pos{})
		if d != nil {
			t.Fatalf("%s: %v", l, d)
		}
		out[i] = a
	}
	return out
}

func binds(t testing.TB, lines ...string) []ast.Bind {
	t.Helper()
	out := make([]ast.Bind, len(lines))
	for i, l := range lines {
		b, d := grammar.ParseBind(l, ast.Pos{})
		if d != nil {
			t.Fatalf("%s: %v", l, d)
		}
		out[i] = b
	}
	return out
}

// TestPatch prints healed skills; each golden shows where the patched
// lines and the changelog line land.
func TestPatch(t *testing.T) {
	l2 := func(t testing.TB) *Heal {
		h := heal(t)
		h.Level = 2
		args, d := grammar.ParseArgs(`{"url": "{{base}}/v2/booking", "headers": {"Accept": "application/json"}}`, ast.Pos{})
		if d != nil {
			t.Fatal(d)
		}
		h.Args = args
		return h
	}
	tests := []struct {
		name string
		src  string
		heal func(testing.TB) *Heal
	}{
		{name: "no-trailing", src: head + fetch},
		{name: "no-final-newline", src: head + strings.TrimSuffix(fetch, "\n")},
		{name: "trailing-without-changelog", src: head + fetch + "\n## Open questions\n\n- (none)\n"},
		{name: "trailing-without-final-newline", src: head + fetch + "\n## Open questions\n\n- (none)"},
		{name: "changelog-then-section", src: head + fetch + "\n## Changelog\n\n- 2026-07-01 — compiled from t.jsonl (2 calls, 1 steps)\n\n\n## Notes\n\nkeep me\n"},
		{name: "changelog-last", src: head + fetch + "\n## Open questions\n\n- (none)\n\n## Changelog\n\n- 2026-07-01 — compiled\n  continued on a second line\n"},
		{name: "changelog-heading-only", src: head + fetch + "\n## Changelog\n## Notes\n"},
		{name: "changelog-in-code-block", src: head + fetch + "\n## Notes\n\n```\n## Changelog\n- not a heading\n```\n"},
		{name: "changelog-between-steps", src: head + fetch + "\n## Changelog\n\n- 2026-07-01 — compiled\n" + second},
		{name: "crlf", src: strings.ReplaceAll(head+fetch+"\n## Changelog\n\n- 2026-07-01 — compiled\n", "\n", "\r\n")},
		{name: "prose-kept", src: head + strings.Replace(strings.Replace(fetch, "- assert: json.id", "Checks the id.\n- assert: json.id", 1),
			"- bind:", "The id feeds step 2.\n- bind:", 1), heal: func(t testing.TB) *Heal {
			h := heal(t)
			h.Asserts, h.Binds = asserts(t, "json.data.id is set"), nil
			return h
		}},
		{name: "level-2-args", src: head + fetch + second, heal: l2},
		{name: "reason-flattened", src: head + fetch, heal: func(t testing.TB) *Heal {
			h := heal(t)
			h.Reason = "line one\n### Step 9 — injected\r\n\t" + strings.Repeat("long ", 80)
			return h
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := heal(t)
			if tt.heal != nil {
				h = tt.heal(t)
			}
			out, err := Patch("drift.skill.md", []byte(tt.src), h)
			if err != nil {
				t.Fatal(err)
			}
			testutil.Golden(t).Assert(t, tt.name, out)
			// Healing the result again adds one more line and nothing else.
			again, err := Patch("drift.skill.md", out, h)
			if err != nil {
				t.Fatal(err)
			}
			if n := strings.Count(string(again), ChangelogLine(h)) - strings.Count(string(out), ChangelogLine(h)); n != 1 {
				t.Errorf("a second heal added %d changelog lines", n)
			}
		})
	}
}

// TestPatchRefuses: a file that changed under the run is never written.
func TestPatchRefuses(t *testing.T) {
	tests := []struct {
		name, src, want string
		heal            func(*Heal)
	}{
		{name: "step gone", src: head + strings.Replace(fetch, "Step 1", "Step 1", 1), heal: func(h *Heal) { h.Step = 2 },
			want: "drift.skill.md no longer has a step 2"},
		{name: "title changed", src: head + strings.Replace(fetch, "Fetch the booking", "Fetch it", 1),
			want: `step 1 of drift.skill.md changed since the run read it (now "Fetch it")`},
		{name: "tool changed", src: head + strings.Replace(fetch, "http.get", "http.post", 1),
			want: `step 1 of drift.skill.md changed since the run read it (now "Fetch the booking")`},
		{name: "no longer parses", src: head + strings.Replace(fetch, "effect: read", "effect: maybe", 1),
			want: "drift.skill.md no longer parses (drift.skill.md:16:11: error: step 1: Invalid effect maybe — must be one of read, idempotent-write, destructive [invalid_effect])"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := heal(t)
			if tt.heal != nil {
				tt.heal(h)
			}
			out, err := Patch("drift.skill.md", []byte(tt.src), h)
			if out != nil || err == nil || err.Error() != tt.want {
				t.Errorf("Patch = %d bytes, %v\nwant error %q", len(out), err, tt.want)
			}
		})
	}
}

// TestOneLine: reasons reach the file as one line of at most 300
// characters, so no reason can start a new bullet or step header.
func TestOneLine(t *testing.T) {
	tests := []struct{ in, want string }{
		{"plain", "plain"},
		{"  two\n\nlines\r\n", "two lines"},
		{"tab\there\x00nul\x1b[31m", "tab here nul [31m"},
		{"\n### Step 2 — x", "### Step 2 — x"},
		{strings.Repeat("é", 301), strings.Repeat("é", 299) + "…"},
		{strings.Repeat("a", 300), strings.Repeat("a", 300)},
	}
	for _, tt := range tests {
		if got := OneLine(tt.in, MaxReason); got != tt.want {
			t.Errorf("OneLine(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// write puts a skill file in a fresh directory.
func write(t *testing.T, src string, mode os.FileMode) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "drift.skill.md")
	if err := os.WriteFile(path, []byte(src), mode); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestApply writes the heal in place, keeps the file's mode, follows a
// symbolic link, and removes temporary files a killed writer left (here
// one untouched for longer than atomicfile.StaleAfter).
func TestApply(t *testing.T) {
	path := write(t, head+fetch, 0o640)
	stale := filepath.Join(filepath.Dir(path), ".drift.skill.md.reelier-tmp-4242-1")
	os.WriteFile(stale, []byte("half a skill"), 0o600)
	long := time.Now().Add(-atomicfile.StaleAfter - time.Minute)
	if err := os.Chtimes(stale, long, long); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(t.TempDir(), "link.skill.md")
	if err := os.Symlink(path, link); err != nil {
		t.Fatal(err)
	}
	if err := Apply(link, heal(t)); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(path)
	if !strings.Contains(string(got), "- assert: json.data.id is set\n") || !strings.Contains(string(got), ChangelogLine(heal(t))) {
		t.Errorf("file after the heal:\n%s", got)
	}
	if info, _ := os.Lstat(link); info.Mode()&os.ModeSymlink == 0 {
		t.Error("the symbolic link was replaced by a file")
	}
	if info, _ := os.Stat(path); info.Mode().Perm() != 0o640 {
		t.Errorf("mode %v, want 0640", info.Mode().Perm())
	}
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Errorf("stale temporary file still there (%v)", err)
	}
}

// TestApplyReadOnly: a file without write permission is left alone, even
// for root, and the error says why.
func TestApplyReadOnly(t *testing.T) {
	path := write(t, head+fetch, 0o444)
	err := Apply(path, heal(t))
	if err == nil || err.Error() != path+" is read-only (mode -r--r--r--)" {
		t.Errorf("Apply = %v", err)
	}
	if got, _ := os.ReadFile(path); string(got) != head+fetch {
		t.Errorf("read-only file changed:\n%s", got)
	}
}

// TestConcurrentApply: many writers healing the same file at once each
// patch the others' result under the lock; every heal's line survives.
func TestConcurrentApply(t *testing.T) {
	path := write(t, head+fetch, 0o644)
	const writers = 16
	var wg sync.WaitGroup
	errs := make(chan error, writers)
	for i := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			h := heal(t)
			h.Reason = fmt.Sprintf("writer %d", i)
			errs <- Apply(path, h)
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
	got, _ := os.ReadFile(path)
	for i := range writers {
		if !strings.Contains(string(got), fmt.Sprintf("(Fetch the booking): writer %d\n", i)) {
			t.Errorf("the heal of writer %d was lost", i)
		}
	}
}

// changelogLine matches the lines the kill test's child writes.
var changelogLine = regexp.MustCompile(`(?m)^- 2026-07-18 — L1 heal, step 1 \(Fetch the booking\): flip to (A|B) #(\d+)$`)

// childEnv names the skill file a child process heals in a loop (see
// TestKillDuringWriteBack).
const childEnv = "REELIER_WRITEBACK_CHILD"

func TestMain(m *testing.M) {
	if path := os.Getenv(childEnv); path != "" {
		os.Exit(child(path))
	}
	os.Exit(m.Run())
}

// child heals the file until it is killed, flipping step 1 between two
// assert sets and numbering its changelog lines on from those already
// there; it prints each number once that heal is written.
func child(path string) int {
	src, err := os.ReadFile(path)
	if err != nil {
		fmt.Println("error:", err)
		return 2
	}
	k := len(changelogLine.FindAll(src, -1))
	for range 10000 {
		k++
		h := heal(&testing.T{})
		h.Asserts = asserts(&testing.T{}, "status == 200", flip(k))
		h.Reason = fmt.Sprintf("flip to %s #%d", variant(k), k)
		if err := Apply(path, h); err != nil {
			fmt.Println("error:", err)
			return 2
		}
		fmt.Println(k)
	}
	return 3
}

func variant(k int) string { return map[bool]string{true: "A", false: "B"}[k%2 == 1] }

func flip(k int) string {
	if k%2 == 1 {
		return "json.data.id is set"
	}
	return "json.data.id is string"
}

// TestKillDuringWriteBack kills a process that is writing heals back, at
// varying moments, many times. After every kill the skill file is a whole
// version: it parses, it is exactly what the printer would write, its
// changelog lines are complete and numbered without a gap, and step 1
// carries the asserts of the last logged heal. A killed writer's lock is
// released by the kernel, so the next process always gets it. (Kills that
// land exactly between writing the temporary file and renaming it are
// forced in internal/atomicfile's TestKillBetweenWriteAndRename.)
func TestKillDuringWriteBack(t *testing.T) {
	var pad strings.Builder
	for i := range 300 {
		fmt.Fprintf(&pad, "Padding line %04d keeps each write long enough for a kill to land inside it.\n", i)
	}
	path := write(t, head+pad.String()+"\n"+fetch, 0o644)
	const kills = 30
	for i := range kills {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), childEnv+"="+path)
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		lines := bufio.NewScanner(out)
		for range i % 4 { // let 0-3 heals land, then kill during the next
			if !lines.Scan() {
				break
			}
			if strings.HasPrefix(lines.Text(), "error:") {
				t.Fatalf("child: %s", lines.Text())
			}
		}
		cmd.Process.Kill()
		cmd.Wait()
		checkWhole(t, path)
	}
	src, _ := os.ReadFile(path)
	if n := len(changelogLine.FindAll(src, -1)); n < kills/2 {
		t.Errorf("only %d heals were written in %d runs", n, kills)
	}
	left, _ := filepath.Glob(filepath.Join(filepath.Dir(path), atomicfile.TempPattern(path)))
	if len(left) > 1 {
		t.Errorf("stale temporary files pile up: %v", left)
	}
}

// checkWhole fails the test unless path holds a complete version.
func checkWhole(t *testing.T, path string) {
	t.Helper()
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	skill, diags := grammar.Parse(path, src)
	if err := firstError(diags); err != nil {
		t.Fatalf("torn skill file: %v", err)
	}
	if got := format.Source(skill); string(got) != string(src) {
		t.Fatalf("skill file is not a whole printed version (%d bytes, printer gives %d)", len(src), len(got))
	}
	logged := changelogLine.FindAllSubmatch(src, -1)
	for i, m := range logged {
		if string(m[2]) != strconv.Itoa(i+1) {
			t.Fatalf("changelog line %d is numbered %s", i+1, m[2])
		}
	}
	want := "json.id is set"
	if n := len(logged); n > 0 {
		want = flip(n)
	}
	if got := format.Assert(skill.Steps[0].Asserts[1].Expr); got != want {
		t.Fatalf("step 1 asserts %q after %d heals, want %q", got, len(logged), want)
	}
}
