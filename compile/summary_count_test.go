package compile_test

import (
	"io"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/reelier/reelier/compile"
)

// TestSummaryAfterWrite: the summary made after Write, which reuses the
// assert counts Write's steps found, equals the one a fresh compilation
// makes by building every step's asserts, on every trace of testdata and
// a generated one.
func TestSummaryAfterWrite(t *testing.T) {
	paths, err := filepath.Glob(filepath.Join("testdata", "traces", "*.jsonl"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no traces: %v", err)
	}
	gen := filepath.Join(t.TempDir(), "generated.jsonl")
	if err := os.WriteFile(gen, genTrace(300, denseLines), 0o644); err != nil {
		t.Fatal(err)
	}
	paths = append(paths, gen)
	compared := 0
	for _, path := range paths {
		fresh, err := compile.NewFile(path, compile.Options{Source: filepath.Base(path)})
		if err != nil {
			continue // traces of the error tests
		}
		written, err := compile.NewFile(path, compile.Options{Source: filepath.Base(path)})
		if err != nil {
			t.Fatal(err)
		}
		if err := written.Write(io.Discard); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		want, got := fresh.Summary(), written.Summary()
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: summary after Write\n%+v\nfresh\n%+v", path, got, want)
		}
		if got.Name != written.Name() {
			t.Errorf("%s: Name() %q, summary %q", path, written.Name(), got.Name)
		}
		compared++
	}
	if compared < 5 {
		t.Fatalf("only %d traces compiled", compared)
	}
	t.Logf("%d traces compared", compared)
}
