package cli

import (
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestExitCodeTables: reelier --help and README's "Exit codes" table list
// the same exit statuses, and they are the statuses the commands use
// (internal/exitstatus), so no place lists 0/1/2 while another adds 3 and
// 130.
func TestExitCodeTables(t *testing.T) {
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, table, ok := strings.Cut(string(readme), "### Exit codes\n")
	if !ok {
		t.Fatal("README has no Exit codes section")
	}
	var inReadme []string
	for _, m := range regexp.MustCompile(`(?m)^\| (\d+) \|`).FindAllStringSubmatch(table, -1) {
		inReadme = append(inReadme, m[1])
	}
	_, help, ok := strings.Cut(rootLong, "Exit codes")
	if !ok {
		t.Fatal("reelier --help has no exit codes")
	}
	var inHelp []string
	for _, m := range regexp.MustCompile(`(?m)^  (\d+) `).FindAllStringSubmatch(help, -1) {
		inHelp = append(inHelp, m[1])
	}
	want := []string{"0", "1", "2", "3", "130"}
	if !slices.Equal(inReadme, want) || !slices.Equal(inHelp, want) {
		t.Errorf("README lists %v, --help lists %v; want %v", inReadme, inHelp, want)
	}
	for _, code := range []int{exitOK, exitFailed, exitUsage, exitTool, exitInterrupted} {
		if !slices.Contains(want, strconv.Itoa(code)) {
			t.Errorf("exit status %d is used but listed nowhere", code)
		}
	}
}
