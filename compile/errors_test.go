package compile_test

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/reelier/reelier/compile"
	"github.com/reelier/reelier/lang/format"
	"github.com/reelier/reelier/lang/grammar"
	"github.com/reelier/reelier/trace"
)

const (
	metaLine = `{"t":"meta","seq":0,"name":"bad","startedAt":"2026-07-18T14:02:00.000Z","wrapped":["srv"]}` + "\n"
	callLine = `{"t":"call","seq":1,"i":0,"ts":"s","tool":"get_x","args":{"id":"abcd"}}` + "\n"
	okLine   = `{"t":"result","seq":2,"i":0,"ok":true,"ms":1,"body":{"content":[{"type":"text","text":"{}"}]}}` + "\n"
)

// readAndCompile runs a trace source through the reader and the compiler,
// as `reelier compile` does.
func readAndCompile(src string, opts compile.Options) (*compile.Output, error) {
	tr, err := trace.Read(strings.NewReader(src))
	if err != nil {
		return nil, err
	}
	return compile.Compile(tr, opts)
}

// TestBadInput checks every kind of bad trace gets a clear error that
// names the line (or, for a whole-trace problem, says what is wrong).
func TestBadInput(t *testing.T) {
	deep := strings.Repeat("[", 600) + strings.Repeat("]", 600)
	tests := []struct{ name, src, want string }{
		{"no calls", metaLine + `{"t":"note","seq":1,"ts":"s","text":"hi"}` + "\n", "the trace has no calls, so there is nothing to compile"},
		{"only meta", metaLine, "the trace has no calls"},
		{"empty file", "", "empty trace: no records"},
		{"malformed json", metaLine + "{\"t\":\"call\",\n", "line 2: not a JSON record: expected a complete JSON object"},
		{"unknown t", metaLine + `{"t":"span","seq":1}` + "\n", `line 2: field "t": unknown record type "span"`},
		{"meta missing", callLine + okLine, `line 1: field "t": the first record must be meta`},
		{"meta not first", callLine + metaLine, `line 1: field "t": the first record must be meta`},
		{"result with no call", metaLine + okLine, `line 2: field "i": result for call index 0, which has no earlier call`},
		{"duplicate i", metaLine + callLine + callLine, `line 3: field "i": duplicate call index 0`},
		{"missing field", metaLine + `{"t":"call","seq":1,"i":0,"ts":"s","args":{}}` + "\n", `line 2: field "tool": missing`},
		{"empty tool", metaLine + `{"t":"call","seq":1,"i":0,"ts":"s","tool":"","args":{}}` + "\n", `line 2: field "tool": empty tool name`},
		{"tool with blanks", metaLine + `{"t":"call","seq":1,"i":0,"ts":"s","tool":"get x","args":{}}` + "\n", `line 2: field "tool": tool name "get x" contains blanks`},
		{"tool like args", metaLine + `{"t":"call","seq":1,"i":0,"ts":"s","tool":"{x}","args":{}}` + "\n", `line 2: field "tool": tool name "{x}" starts with "{"`},
		{"args nested too deep", metaLine + `{"t":"call","seq":1,"i":0,"ts":"s","tool":"get_x","args":` + deep + "}\n", `line 2: field "args": Action args nest deeper than 128 levels`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := readAndCompile(tt.src, compile.Options{})
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v (output %v), want %q", err, out != nil, tt.want)
			}
			// A trace file, read in walks, fails the same way.
			path := filepath.Join(t.TempDir(), "bad.jsonl")
			if err := os.WriteFile(path, []byte(tt.src), 0o644); err != nil {
				t.Fatal(err)
			}
			if _, ferr := compile.NewFile(path, compile.Options{}); ferr == nil || ferr.Error() != err.Error() {
				t.Errorf("NewFile: err = %v, want %v", ferr, err)
			}
		})
	}
	if _, err := readAndCompile(metaLine, compile.Options{}); !errors.Is(err, compile.ErrNoCalls) {
		t.Errorf("no calls: %v is not ErrNoCalls", err)
	}
}

// TestOversizedBody feeds a 50 MB result body: it is not searched, the
// step says why, and nothing panics.
func TestOversizedBody(t *testing.T) {
	if testing.Short() {
		t.Skip("50 MB body")
	}
	text := `{"id":"big_0001","pad":"` + strings.Repeat("x", 50<<20) + `"}`
	body := fmt.Sprintf(`{"content":[{"type":"text","text":%q}]}`, text)
	src := metaLine + callLine + `{"t":"result","seq":2,"i":0,"ok":true,"ms":1,"body":` + body + "}\n" +
		`{"t":"call","seq":3,"i":1,"ts":"s","tool":"get_y","args":{"id":"big_0001"}}` + "\n"
	began := time.Now()
	out, err := readAndCompile(src, compile.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("50 MB body: read and compiled in %v", time.Since(began))
	found := false
	for _, q := range out.Summary.Questions {
		found = found || q.Kind == compile.KindUnminedBody && strings.Contains(q.Text, "is 52428873 bytes, more than the 8 MiB the compiler searches")
	}
	if !found {
		t.Fatalf("no question about the oversized body: %+v", out.Summary.Questions)
	}
	if out.Summary.Binds != 0 {
		t.Error("an oversized body was searched")
	}
	// The same trace as a file, the way `reelier compile` reads it.
	path := filepath.Join(t.TempDir(), "big.jsonl")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	x, err := compile.NewFile(path, compile.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := x.Write(io.Discard); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(out.Summary, x.Summary()); diff != "" {
		t.Errorf("from the file, the summary differs (-memory +file):\n%s", diff)
	}
}

// TestMaxMinedBody: the limit is an option; at or under it a body is searched.
func TestMaxMinedBody(t *testing.T) {
	src := metaLine + callLine + `{"t":"result","seq":2,"i":0,"ok":true,"ms":1,"body":{"content":[{"type":"text","text":"{\"id\":\"zz_0001\"}"}]}}` + "\n" +
		`{"t":"call","seq":3,"i":1,"ts":"s","tool":"get_y","args":{"id":"zz_0001"}}` + "\n"
	for limit, binds := range map[int]int{10: 0, 1000: 1} {
		out, err := readAndCompile(src, compile.Options{MaxMinedBody: limit})
		if err != nil {
			t.Fatal(err)
		}
		if out.Summary.Binds != binds {
			t.Errorf("limit %d: %d binds, want %d", limit, out.Summary.Binds, binds)
		}
	}
}

// TestDeterministic compiles the same trace twice and gets the same bytes.
func TestDeterministic(t *testing.T) {
	for _, path := range traceFiles(t) {
		_, a := compileFile(t, path)
		_, b := compileFile(t, path)
		if string(a) != string(b) {
			t.Errorf("%s: two compiles differ", path)
		}
	}
}

// TestHostileText: notes, names and values built to break the Markdown
// (line breaks, headers, fences, bullets) still give a skill that parses
// with exactly the steps the trace has.
func TestHostileText(t *testing.T) {
	nasty := "x\n### Step 9 — injected\n- effect: read\n## Open questions\n---"
	q := func(s string) string { return fmt.Sprintf("%q", s) }
	src := `{"t":"meta","seq":0,"name":` + q(nasty) + `,"startedAt":` + q(nasty) + `,"wrapped":[]}` + "\n" +
		`{"t":"note","seq":1,"ts":"s","text":` + q(nasty) + `}` + "\n" +
		`{"t":"call","seq":2,"i":0,"ts":"s","tool":"get_x","args":{"v":` + q(nasty) + `,"k\n- bind: a = json.b":` + q("2026-07-18\n") + `}}` + "\n" +
		`{"t":"note","seq":3,"ts":"s","text":` + q(nasty) + `}` + "\n"
	out, err := readAndCompile(src, compile.Options{Source: nasty})
	if err != nil {
		t.Fatal(err)
	}
	printed := format.Source(out.Skill)
	skill, diags := grammar.Parse("hostile.skill.md", printed)
	if len(diags) > 0 || len(skill.Steps) != 1 {
		t.Fatalf("%d steps, diagnostics %v\n%s", len(skill.Steps), diags, printed)
	}
}
