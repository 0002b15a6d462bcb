package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
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

func TestLoadVars(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "vars.env")
	if err := os.WriteFile(file, []byte("# inputs\n\nstripe_key = 'sk_from_file'\nregion=\"eu west\"\nboth=file\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	environ := []string{"REELIER_VAR_token=from_env", "REELIER_VAR_both=env", "REELIER_VAR_today=x", "REELIER_VAR_bad-name=x", "OTHER=1"}
	vars, err := loadVars([]string{"both=flag"}, []string{file}, environ)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"token": "from_env", "stripe_key": "sk_from_file", "region": "eu west", "both": "flag"}
	if fmt.Sprint(vars) != fmt.Sprint(want) {
		t.Errorf("vars %v, want %v", vars, want)
	}
	for name, content := range map[string]string{"noeq": "just a line\n", "badname": "1x=2\n", "reserved": "today=2026-01-01\n"} {
		bad := filepath.Join(dir, name)
		if err := os.WriteFile(bad, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		_, err := loadVars(nil, []string{bad}, nil)
		if err == nil || exitCode(err) != exitUsage || !strings.Contains(err.Error(), bad+":1:") {
			t.Errorf("%s: %v, want a usage error naming %s:1", name, err, bad)
		}
	}
	if _, err := loadVars(nil, []string{filepath.Join(dir, "missing")}, nil); err == nil || exitCode(err) != exitUsage {
		t.Errorf("a missing --var-file: %v", err)
	}
}
