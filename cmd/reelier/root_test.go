package main

import (
	"bytes"
	"strings"
	"testing"
)

// TestEveryCommandHasAFamily keeps --help honest as commands are added:
// each command must be listed under one of the families.
func TestEveryCommandHasAFamily(t *testing.T) {
	root := newRootCmd(strings.NewReader(""), &bytes.Buffer{}, &bytes.Buffer{})
	for _, c := range root.Commands() {
		if c.Name() == "help" || c.Name() == "completion" {
			continue
		}
		if c.GroupID == "" {
			t.Errorf("command %q has no family in commandFamily (root.go)", c.Name())
		}
	}
}

func TestExitCodes(t *testing.T) {
	tests := []struct {
		args []string
		code int
	}{
		{[]string{"--version"}, exitOK},
		{[]string{"nope"}, exitUsage},
		{[]string{"parse"}, exitUsage},
		{[]string{"run"}, exitUsage},
		{[]string{"fmt", "--bogus"}, exitUsage},
	}
	for _, tt := range tests {
		var out, errb bytes.Buffer
		if got := run(tt.args, strings.NewReader(""), &out, &errb); got != tt.code {
			t.Errorf("%v: exit %d, want %d (stderr %q)", tt.args, got, tt.code, errb.String())
		}
	}
}

// TestUnknownCommandNamesTheSplit: a mistyped command gets cobra's
// suggestion plus the mcp/serve role split (spec §10.3).
func TestUnknownCommandNamesTheSplit(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run([]string{"srve"}, strings.NewReader(""), &out, &errb); code != exitUsage {
		t.Fatalf("exit %d", code)
	}
	for _, want := range []string{`unknown command "srve"`, "serve", "reelier mcp    records", "reelier serve  offers Reelier's OWN tools", "|run|"} {
		if !strings.Contains(errb.String(), want) {
			t.Errorf("stderr lacks %q:\n%s", want, errb.String())
		}
	}
}
