package grammar

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/reelier/reelier/testkit/skillgen"
)

// fastPathInputs collects every assert, bind and action value and every
// hole's inner text of the corpus and of a generated skill.
func fastPathInputs(t *testing.T) (asserts, binds, actions, holes []string) {
	t.Helper()
	var srcs [][]byte
	for _, g := range []string{
		"../../testdata/skills/*/*.skill.md", "../lint/testdata/*/*.skill.md", "../lsp/testdata/*.skill.md",
		"../../serve/testdata/skills/*/*.skill.md", "../../bench/truth/testdata/recordings/*.skill.md",
		"../../compile/testdata/TestCompile/*.golden", "../../examples/*.skill.md",
	} {
		files, _ := filepath.Glob(g)
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			srcs = append(srcs, b)
		}
	}
	if len(srcs) < 150 {
		t.Fatalf("only %d corpus files", len(srcs))
	}
	srcs = append(srcs, skillgen.Skill(60))
	for _, src := range srcs {
		for _, line := range strings.Split(strings.ReplaceAll(string(src), "\r\n", "\n"), "\n") {
			if key, value, ok := strings.Cut(strings.TrimLeft(line, " \t"), ":"); ok {
				value = strings.Trim(value, " \t")
				switch strings.TrimSpace(strings.TrimPrefix(key, "-")) {
				case "assert":
					asserts = append(asserts, value)
				case "bind":
					binds = append(binds, value)
				case "action":
					actions = append(actions, value)
				}
			}
			for rest := line; ; {
				i := strings.Index(rest, "{{")
				if i < 0 {
					break
				}
				j := strings.Index(rest[i:], "}}")
				if j < 0 {
					break
				}
				holes = append(holes, rest[i+2:i+j])
				rest = rest[i+j+2:]
			}
		}
	}
	return asserts, binds, actions, holes
}

// checkFast compares a fast path's struct with participle's for src. It
// reports whether the fast path took src.
func checkFast[G any](t testing.TB, what, src string, fast *G, slow func() (*G, error)) bool {
	t.Helper()
	if fast == nil {
		return false
	}
	want, err := slow()
	if err != nil {
		t.Errorf("%s %q: the fast path accepted what participle rejects: %v", what, src, err)
		return true
	}
	if !reflect.DeepEqual(fast, want) {
		t.Errorf("%s %q:\nfast path  %+v\nparticiple %+v", what, src, fast, want)
	}
	return true
}

func checkAllFast(t testing.TB, src string) (a, b, ac, h bool) {
	var c exprCache
	a = checkFast(t, "assert", src, c.fastAssert(src), func() (*assertExpr, error) { return assertParser().ParseString("", src) })
	b = checkFast(t, "bind", src, c.fastBind(src), func() (*bindExpr, error) { return bindParser().ParseString("", src) })
	ac = checkFast(t, "action", src, c.fastAction(src), func() (*actionLine, error) { return actionParser().ParseString("", src) })
	h = checkFast(t, "hole", src, c.fastHole(src), func() (*hole, error) { return holeParser().ParseString("", src) })
	if quick := identHole(src); quick != nil && !reflect.DeepEqual(quick, c.parseHole(src)) {
		t.Errorf("hole %q: identHole %+v, parseHole %+v", src, quick, c.parseHole(src))
	}
	return
}

// TestFastPathsMatchParticiple: on every assert, bind, action and hole of
// the corpus the fast path either declines or builds exactly participle's
// struct, and it takes most of them (else it would not be worth having);
// a bare-name hole's shortcut (identHole) gives parseHole's hole.
func TestFastPathsMatchParticiple(t *testing.T) {
	asserts, binds, actions, holes := fastPathInputs(t)
	count := func(name string, inputs []string, pick func(a, b, ac, h bool) bool) {
		// Selections are participle's by design (the fast paths decline
		// them; FuzzFastPaths holds that): they are not counted.
		took, n := 0, 0
		for _, src := range inputs {
			if selectionStart(src, 0) || bindSelectionStart(src) {
				checkAllFast(t, src)
				continue
			}
			n++
			if pick(checkAllFast(t, src)) {
				took++
			}
		}
		t.Logf("%s: the fast path took %d of %d (selections left out)", name, took, n)
		if n == 0 || took*10 < n*8 {
			t.Errorf("%s: the fast path took only %d of %d", name, took, n)
		}
	}
	count("asserts", asserts, func(a, _, _, _ bool) bool { return a })
	count("binds", binds, func(_, b, _, _ bool) bool { return b })
	count("actions", actions, func(_, _, ac, _ bool) bool { return ac })
	count("holes", holes, func(_, _, _, h bool) bool { return h })
}

// FuzzFastPaths: on any text, each fast path either declines or builds
// exactly participle's struct, and identHole either declines or gives
// parseHole's hole.
func FuzzFastPaths(f *testing.F) {
	for _, s := range []string{
		"status == 200", "status != 4", "status >= 2", `body contains "x"`, `body not contains "a"b"`,
		"json.a.0 is string", "json.a is sets", "json.a matches /x/", "json.a length >= 3", "json.a length", `json.a == "x"`,
		"json.a.", "json..a", "x = json.a.b", "x = json", "x = body match /a/", "_ = json.a", "1x = json.a",
		`tool {"a": 1}`, "tool", "", " ", "today-7d", "today - 7d", "name", "a b", "a+", "today+1d+", "today", "_x1", "1x", "é",
		// Selections are never the fast paths' (they decline them).
		`first(json.a where b == "c").d == 1`, `x = only(json.a where b == "{{c}}").d`, `x = max(lines /(\d+)/ by 1)`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		if len(src) > 4096 {
			return
		}
		checkAllFast(t, src)
	})
}
