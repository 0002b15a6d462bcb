package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// TestTerminalStyle: live progress and colour only on a terminal; pipes,
// files and buffers get plain receipts.
func TestTerminalStyle(t *testing.T) {
	if s := terminalStyle(&bytes.Buffer{}); s != nil {
		t.Errorf("buffer: %+v, want plain", s)
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	if s := terminalStyle(w); s != nil {
		t.Errorf("pipe: %+v, want plain", s)
	}
	f, err := os.Create(filepath.Join(t.TempDir(), "out"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if s := terminalStyle(f); s != nil {
		t.Errorf("file: %+v, want plain", s)
	}
	null, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer null.Close()
	if s := terminalStyle(null); s != nil {
		t.Errorf("%s: %+v, want plain (a character device is not a terminal)", os.DevNull, s)
	}
}

func TestParseVars(t *testing.T) {
	vars, err := parseVars([]string{"a=1", "b=x=y", "_c=", "a=2"})
	if err != nil {
		t.Fatal(err)
	}
	if vars["a"] != "2" || vars["b"] != "x=y" || vars["_c"] != "" || len(vars) != 3 {
		t.Errorf("vars %v", vars)
	}
	for _, bad := range []string{"", "=1", "a", "1a=2", "a-b=1", "é=1", "today=1", "today-7d=1"} {
		if _, err := parseVars([]string{bad}); err == nil || exitCode(err) != exitUsage {
			t.Errorf("parseVars(%q) = %v, want a usage error", bad, err)
		}
	}
}
