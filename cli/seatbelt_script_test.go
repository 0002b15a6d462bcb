package cli

import (
	"os"
	"os/exec"
	"path/filepath"

	"github.com/rogpeppe/go-internal/testscript"
)

// soloReelier is the script command `soloreelier DIR`: it copies the
// script's reelier program (the test binary under that name, without a
// policy engine) into DIR, alone, so that a script can run a reelier
// with no reelier-seatbelt beside it (and PATH set to leave it out too).
func soloReelier(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: soloreelier DIR")
	}
	// The reelier testscript put first on PATH.
	var src string
	for _, d := range filepath.SplitList(ts.Getenv("PATH")) {
		if p := filepath.Join(d, "reelier"); fileExists(p) {
			src = p
			break
		}
	}
	if src == "" {
		ts.Fatalf("soloreelier: no reelier on PATH")
	}
	dir := ts.MkAbs(args[0])
	if err := os.MkdirAll(dir, 0o755); err != nil {
		ts.Fatalf("soloreelier: %v", err)
	}
	b, err := os.ReadFile(src)
	ts.Check(err)
	ts.Check(os.WriteFile(filepath.Join(dir, "reelier"), b, 0o755))
	if _, err := exec.LookPath(filepath.Join(dir, "reelier")); err != nil {
		ts.Fatalf("soloreelier: %v", err)
	}
}

func fileExists(p string) bool {
	st, err := os.Stat(p)
	return err == nil && !st.IsDir()
}
