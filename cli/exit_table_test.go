package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/reelier/reelier/testkit/testutil"
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

// TestExitStatusTable: README's and SPEC.md's tables of every command's
// exit statuses are the table in the code (exitTable), `reelier help
// exit-status` prints it, each command's --help ends with its row, and
// every command has a row.
func TestExitStatusTable(t *testing.T) {
	want := exitTableMarkdown()
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(readme), "\n"+want+"\n") {
		t.Errorf("README's exit-status table is not the one in the code; it should read:\n%s", want)
	}
	rows := testutil.SpecTables(t)["Exit statuses of every command"]
	if len(rows) != len(exitTable) {
		t.Fatalf("SPEC.md's table has %d rows, the code %d", len(rows), len(exitTable))
	}
	for i, r := range exitTable {
		got := rows[i]
		if len(got) != 1+len(exitCodes) || got[0] != "`"+r.cmd+"`" {
			t.Errorf("SPEC.md row %d: %q, want command %s", i, got, r.cmd)
			continue
		}
		for j, c := range exitCodes {
			m := r.meaning(c)
			if m == "" {
				m = "—"
			}
			if got[1+j] != m {
				t.Errorf("SPEC.md: %s exit %d says %q, the code %q", r.cmd, c, got[1+j], m)
			}
		}
	}
	var out, errb strings.Builder
	if code := run([]string{"help", "exit-status"}, strings.NewReader(""), &out, &errb); code != 0 {
		t.Fatalf("reelier help exit-status: exit %d: %s", code, errb.String())
	}
	if got := strings.TrimSpace(out.String()); got != exitStatusHelp() {
		t.Errorf("reelier help exit-status printed:\n%s", got)
	}
	for _, sub := range commands {
		r, ok := exitRowOf(sub.name)
		if !ok {
			t.Errorf("command %s has no row in the exit-status table", sub.name)
			continue
		}
		if !strings.Contains(out.String(), "\n  "+sub.name+"\n") {
			t.Errorf("reelier help exit-status has no %s", sub.name)
		}
		var help strings.Builder
		if code := run([]string{sub.name, "--help"}, strings.NewReader(""), &help, &help); code != 0 {
			t.Fatalf("reelier %s --help: exit %d", sub.name, code)
		}
		if !strings.Contains(help.String(), exitRowText(r)) {
			t.Errorf("reelier %s --help does not end its text with its exit statuses:\n%s", sub.name, exitRowText(r))
		}
		for _, c := range r.codes {
			if !slices.Contains(exitCodes, c.code) {
				t.Errorf("%s: status %d is not a documented status", sub.name, c.code)
			}
		}
	}
	if len(exitTable) != len(commands) {
		t.Errorf("the table has %d rows for %d commands", len(exitTable), len(commands))
	}
}

// exitLine is a script line that runs reelier and names the status it
// must exit with: `exitcode N reelier CMD …`, or `exec reelier CMD …` (0).
var exitLine = regexp.MustCompile(`(?m)^(?:\[[^\]]*\] )*(exitcode (\d+)|exec) reelier ([a-z][a-z-]*)\b`)

// unexercised are the cells of the table no script reaches, each with why.
var unexercised = map[string]string{
	"run 130":       "a real signal to the built binary: TestRunInterrupted* (interrupt_test.go); every_record.txtar's kill -INT waits in the background, where a script has no status",
	"calibrate 130": "a signal during a calibration: not driven by a test (the handling is a context, as in run)",
	"calibrate 3":   "a server that cannot start goes through suite.StartTools, whose exit 3 run_servers.txtar shows for run; not scripted for calibrate",
	"lsp 1":         "lsp_test.go (TestLSPSessions: exit without shutdown)",
	"lsp 2":         "lsp_test.go (TestLSPSessions: a broken frame; TestLSPProcessBrokenFrame)",
	"init 1":        "a demo that fails to record or replay cannot be made to fail from outside",
	"scan 1":        "a chosen session that does not compile: not scripted",
}

// TestExitStatusesExercised: every script line that says what status a
// reelier command exits with (`exitcode N reelier CMD`, and `exec reelier
// CMD` for 0) names a status the command's row of the table has, and
// every cell of the table is reached by some script line or is listed in
// unexercised with the test that covers it or why none does.
func TestExitStatusesExercised(t *testing.T) {
	seen := map[string][]string{}
	for _, dir := range []string{"testdata/script", "testdata/servers", "testdata/contract"} {
		files, err := filepath.Glob(filepath.Join(dir, "*.txtar"))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			// Only the script, not the files it carries.
			script, _, _ := strings.Cut(string(data), "\n-- ")
			for _, m := range exitLine.FindAllStringSubmatch(script, -1) {
				code, cmd := 0, m[3]
				if m[2] != "" {
					code, _ = strconv.Atoi(m[2])
				}
				r, ok := exitRowOf(cmd)
				if !ok {
					continue // not a command (a flag such as --help)
				}
				if !slices.Contains(exitCodes, code) {
					// No code of reelier returns it: another program's
					// status passed through (seatbelt.txtar's stand-in for
					// reelier-seatbelt exits 7 to show the hand-off).
					continue
				}
				if r.meaning(code) == "" {
					t.Errorf("%s: %q exits %d, which the exit-status table does not list for %s", f, strings.TrimSpace(m[0]), code, cmd)
				}
				key := fmt.Sprintf("%s %d", cmd, code)
				seen[key] = append(seen[key], filepath.Base(f))
			}
		}
	}
	for _, r := range exitTable {
		for _, c := range r.codes {
			key := fmt.Sprintf("%s %d", r.cmd, c.code)
			_, listed := unexercised[key]
			switch {
			case len(seen[key]) == 0 && !listed:
				t.Errorf("no script shows %s exiting %d (%s); add one, or say in unexercised what covers it", r.cmd, c.code, c.meaning)
			case len(seen[key]) > 0 && listed:
				t.Errorf("%s is exercised by %v: take it out of unexercised", key, seen[key])
			}
		}
	}
	for key := range unexercised {
		cmd, code, _ := strings.Cut(key, " ")
		n, _ := strconv.Atoi(code)
		if r, ok := exitRowOf(cmd); !ok || r.meaning(n) == "" {
			t.Errorf("unexercised lists %s, which is not a cell of the table", key)
		}
	}
}
