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
		{[]string{"fmt", "--bogus"}, exitUsage},
	}
	for _, tt := range tests {
		var out, errb bytes.Buffer
		if got := run(tt.args, strings.NewReader(""), &out, &errb); got != tt.code {
			t.Errorf("%v: exit %d, want %d (stderr %q)", tt.args, got, tt.code, errb.String())
		}
	}
}
