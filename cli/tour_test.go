package cli

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/reelier/reelier/testkit/testutil"
)

// tourCommand is one `$ reelier …` line of a README console block and the
// output printed under it.
type tourCommand struct {
	line, want string
}

// readmeTour returns the commands of README's "Try it offline" section.
func readmeTour(t *testing.T) []tourCommand {
	t.Helper()
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(readme), "### Try it offline\n")
	if !ok {
		t.Fatal(`README.md has no "Try it offline" section`)
	}
	section, _, _ = strings.Cut(section, "\n### ")
	var cmds []tourCommand
	inBlock := false
	for _, line := range strings.Split(section, "\n") {
		switch {
		case line == "```console":
			inBlock = true
		case line == "```":
			inBlock = false
		case !inBlock:
		case strings.HasPrefix(line, "$ "):
			cmds = append(cmds, tourCommand{line: strings.TrimPrefix(line, "$ ")})
		case len(cmds) > 0:
			cmds[len(cmds)-1].want += line + "\n"
		}
	}
	return cmds
}

// durations are the measured times a receipt prints.
var durations = regexp.MustCompile(`\b\d+(\.\d+)?ms\b`)

// TestREADMETour runs the commands of README's "Try it offline" section
// as written, with the reelier binary on PATH, in a fresh directory that
// holds a copy of examples/, and holds each one's output to what README
// prints under it (durations aside) and its exit status to its receipt's
// result (1 for FAILED, else 0): the tour runs offline, no server needed.
func TestREADMETour(t *testing.T) {
	cmds := readmeTour(t)
	if len(cmds) < 3 {
		t.Fatalf("README's tour has %d commands; want parse, lint and run at least", len(cmds))
	}
	bin := testutil.ReelierBinary(t)
	dir := t.TempDir()
	if err := os.CopyFS(filepath.Join(dir, "examples"), os.DirFS("../examples")); err != nil {
		t.Fatal(err)
	}
	env := append(os.Environ(), "PATH="+filepath.Dir(bin)+string(os.PathListSeparator)+os.Getenv("PATH"),
		"HOME="+dir, "XDG_CONFIG_HOME="+filepath.Join(dir, ".config"), "NO_COLOR=1")
	for _, c := range cmds {
		if !strings.HasPrefix(c.line, "reelier ") {
			t.Errorf("README tour line %q does not run reelier", c.line)
			continue
		}
		cmd := exec.Command("sh", "-c", c.line)
		cmd.Dir, cmd.Env = dir, env
		out, err := cmd.CombinedOutput()
		status := 0
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			status = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		want := strings.TrimRight(c.want, "\n") + "\n"
		wantStatus := 0
		if strings.Contains(want, "\n  result:       FAILED") {
			wantStatus = 1
		}
		if status != wantStatus {
			t.Errorf("$ %s\nexit %d, want %d:\n%s", c.line, status, wantStatus, out)
		}
		if got := durations.ReplaceAllString(string(out), "Nms"); got != durations.ReplaceAllString(want, "Nms") {
			t.Errorf("$ %s\nprinted:\n%s\nREADME shows:\n%s", c.line, out, want)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, ".reelier", "runs", "weekly-bookings.jsonl")); err != nil {
		t.Errorf("the tour's runs wrote no record: %v", err)
	}
}
