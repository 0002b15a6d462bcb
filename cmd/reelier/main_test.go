package main

import (
	"os"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"reelier": func() { os.Exit(Main()) },
	})
}

// TestScripts runs the CLI scripts in testdata/script: each .txtar file is
// a sequence of reelier invocations with their expected output and exit.
func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{Dir: "testdata/script"})
}
