package compile_test

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/reelier/reelier/compile"
	"github.com/reelier/reelier/lang/format"
	"github.com/reelier/reelier/lang/grammar"
	"github.com/reelier/reelier/testkit/testutil"
	"github.com/reelier/reelier/trace"
)

// fixedNow is the compile date every golden is made with.
func fixedNow() time.Time { return time.Date(2026, 7, 20, 9, 0, 0, 0, time.UTC) }

// traceFiles returns the golden traces in testdata/traces.
func traceFiles(t testing.TB) []string {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join("testdata", "traces", "*.jsonl"))
	if err != nil || len(paths) < 25 {
		t.Fatalf("want at least 25 traces, found %d (%v)", len(paths), err)
	}
	return paths
}

// compileFile compiles one trace both ways the package offers and
// requires the same result: the loaded trace to a syntax tree printed by
// format.Source, and the file read in walks and printed step by step, as
// the CLI does.
func compileFile(t testing.TB, path string) (*compile.Output, []byte) {
	t.Helper()
	opts := compile.Options{Source: filepath.Base(path), Now: fixedNow}
	tr, err := trace.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	out, err := compile.Compile(tr, opts)
	if err != nil {
		t.Fatal(err)
	}
	src := format.Source(out.Skill)
	x, err := compile.NewFile(path, opts)
	if err != nil {
		t.Fatal(err)
	}
	var streamed bytes.Buffer
	if err := x.Write(&streamed); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(streamed.Bytes(), src) {
		t.Errorf("NewFile+Write differs from Compile+format.Source:\n%s", format.Diff(path, src, streamed.Bytes()))
	}
	if diff := cmp.Diff(out.Summary, x.Summary()); diff != "" {
		t.Errorf("NewFile's summary differs from Compile's (-Compile +NewFile):\n%s", diff)
	}
	return out, src
}

// TestCompile compiles every trace in testdata/traces and compares the
// skill with its golden. Each skill must parse without a single
// diagnostic and already be in canonical form.
func TestCompile(t *testing.T) {
	g := testutil.Golden(t)
	for _, path := range traceFiles(t) {
		name := strings.TrimSuffix(filepath.Base(path), ".jsonl")
		t.Run(name, func(t *testing.T) {
			_, src := compileFile(t, path)
			g.Assert(t, name, src)
			skill, diags := grammar.Parse(name+".skill.md", src)
			if len(diags) > 0 {
				t.Fatalf("compiled skill does not parse cleanly:\n%v", diags)
			}
			if again := format.Source(skill); !bytes.Equal(again, src) {
				t.Errorf("compiled skill is not canonical:\n%s", format.Diff(name, src, again))
			}
		})
	}
}

// TestSummary pins the review summary the CLI prints, as text and JSON.
func TestSummary(t *testing.T) {
	g := testutil.Golden(t)
	for _, path := range traceFiles(t) {
		name := strings.TrimSuffix(filepath.Base(path), ".jsonl")
		t.Run(name, func(t *testing.T) {
			out, src := compileFile(t, path)
			out.Summary.Output = name + ".skill.md"
			var b bytes.Buffer
			if err := out.Summary.WriteText(&b); err != nil {
				t.Fatal(err)
			}
			js, err := json.MarshalIndent(out.Summary, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			b.WriteString("\n")
			b.Write(js)
			b.WriteString("\n")
			g.Assert(t, name, b.Bytes())
			// Every question is in the skill file word for word.
			for _, q := range out.Summary.Questions {
				if !bytes.Contains(src, []byte("- "+q.Text+"\n")) {
					t.Errorf("question missing from the skill: %s", q.Text)
				}
			}
		})
	}
}
