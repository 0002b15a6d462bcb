package cli

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
		if c.Name() == "help" || c.Name() == "completion" || c.IsAdditionalHelpTopicCommand() {
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

// TestCommandNames: the names the lazy start-up matches a command line
// against are the commands' own names, each with a family.
func TestCommandNames(t *testing.T) {
	seen := map[string]bool{}
	for _, sub := range commands {
		if got := sub.newCmd().Name(); got != sub.name {
			t.Errorf("commands lists %q for a command named %q", sub.name, got)
		}
		if seen[sub.name] {
			t.Errorf("commands lists %q twice", sub.name)
		}
		seen[sub.name] = true
		if commandFamily[sub.name] == "" {
			t.Errorf("command %q has no family", sub.name)
		}
	}
}

// TestLazyRootMatchesFullRoot: a process builds only the subcommands its
// command line can reach (neededCommands); every line below must print and
// exit exactly as it does with every subcommand built.
func TestLazyRootMatchesFullRoot(t *testing.T) {
	t.Chdir(t.TempDir())
	lines := [][]string{
		{"--version"}, {"-v"}, {"--version", "--version"}, {"--version", "-v"}, {"-vh"}, {"--version", "--help"},
		{}, {""}, {"--help"}, {"-h"}, {"help"}, {"help", "run"}, {"help", "nope"},
		{"run"}, {"run", "--help"}, {"run", "--version"}, {"run", "missing.skill.md", "--dry-run"}, {"run", "--bogus"},
		{"parse", "--json", "missing.skill.md"}, {"lint", "--format", "sarif", "missing.skill.md"}, {"fmt", "--bogus"},
		{"nope"}, {"srve"}, {"Run"}, {"ledger", "srve"}, {"trace", "--help"}, {"mcp", "--help"}, {"serve", "--help"}, {"ci", "--help"},
		{"-h", "run"}, {"-h", "run", "x"}, {"--help", "run", "parse"}, {"--bogus", "run"}, {"--bogus", "run", "lint"},
		{"--var", "x=1", "run"}, {"--var=x", "run"}, {"-x", "run", "parse"}, {"-x=1", "run"}, {"--", "run"}, {"run", "--", "x"},
		{"--version", "run"}, {"-", "run"}, {"completion", "bash"}, {"__complete", "r"}, {"__complete", "run", "--d"},
	}
	for _, args := range lines {
		var lazyOut, lazyErr, fullOut, fullErr bytes.Buffer
		lazy := run(args, strings.NewReader(""), &lazyOut, &lazyErr)
		full := execute(newRootCmd(strings.NewReader(""), &fullOut, &fullErr), args, strings.NewReader(""), &fullOut, &fullErr)
		if lazy != full || lazyOut.String() != fullOut.String() || lazyErr.String() != fullErr.String() {
			t.Errorf("%q: lazy exit %d, stdout %q, stderr %q\nfull exit %d, stdout %q, stderr %q",
				args, lazy, lazyOut.String(), lazyErr.String(), full, fullOut.String(), fullErr.String())
		}
	}
}

func TestNeededCommands(t *testing.T) {
	tests := []struct {
		args []string
		want string // the one command built; "" none, "*" all
	}{
		{[]string{"--version"}, ""},
		{[]string{"-v"}, ""},
		{[]string{"--version", "--help"}, "*"},
		{[]string{}, "*"},
		{[]string{"run", "x.skill.md", "--dry-run"}, "run"},
		{[]string{"lint", "--format", "sarif", "."}, "lint"},
		{[]string{"help", "run"}, "*"},
		{[]string{"nope"}, "*"},
		{[]string{"--var", "x=1", "run"}, "run"},
		{[]string{"--var", "run"}, "*"},
		{[]string{"--var", "x", "nope", "lint"}, "*"},
		{[]string{"--var=x", "run"}, "run"},
		{[]string{"-h", "run", "x"}, "*"},
		{[]string{"--", "run"}, "*"},
	}
	for _, tt := range tests {
		want := neededCommands(tt.args)
		var built []string
		for _, sub := range commands {
			if want(sub.name) {
				built = append(built, sub.name)
			}
		}
		got := strings.Join(built, ",")
		switch {
		case tt.want == "*" && len(built) == len(commands):
		case tt.want != "*" && got == tt.want:
		default:
			t.Errorf("neededCommands(%q) builds %q, want %q", tt.args, got, tt.want)
		}
	}
}
