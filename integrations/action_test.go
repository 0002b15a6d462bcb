// Package integrations_test checks what ships for agents and CI: the
// composite GitHub Action at the repository root, run step by step on
// this machine the way a runner runs it, and the agent instruction files.
package integrations_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/reelier/reelier/cloud/ledger/ledgertest"
	"github.com/reelier/reelier/cloud/ledger/sqlitestore"
	"github.com/reelier/reelier/internal/testutil"
	"go.yaml.in/yaml/v3"
)

// action is the part of action.yml the runner reads.
type action struct {
	Name        string
	Description string
	Inputs      map[string]struct {
		Required bool
		Default  string
	}
	Outputs map[string]struct{ Value string }
	Runs    struct {
		Using string
		Steps []step
	}
}

type step struct {
	ID               string
	Name             string
	Uses             string
	Shell            string
	Run              string
	If               string
	Env              map[string]string
	WorkingDirectory string `yaml:"working-directory"`
}

func loadAction(t *testing.T) action {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(testutil.Root(), "action.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var a action
	dec := yaml.NewDecoder(strings.NewReader(string(data)))
	if err := dec.Decode(&a); err != nil {
		t.Fatalf("action.yml: %v", err)
	}
	return a
}

// TestActionShape: the inputs the README documents, a composite action,
// every script step in bash with its inputs passed through env (never
// spliced into the script, where a value could inject shell).
func TestActionShape(t *testing.T) {
	a := loadAction(t)
	if a.Runs.Using != "composite" {
		t.Errorf("runs.using = %q", a.Runs.Using)
	}
	want := map[string]string{"skill": "", "max-level": "0", "vars": "", "cloud-url": "", "cloud-key": ""}
	for name, def := range want {
		in, ok := a.Inputs[name]
		if !ok {
			t.Errorf("input %q is missing", name)
			continue
		}
		if in.Default != def || in.Required != (name == "skill") {
			t.Errorf("input %q: required %t default %q", name, in.Required, in.Default)
		}
	}
	if len(a.Inputs) != len(want) {
		t.Errorf("inputs = %v, want exactly %v", a.Inputs, want)
	}
	for _, s := range a.Runs.Steps {
		if s.Run == "" {
			continue
		}
		if s.Shell != "bash" {
			t.Errorf("step %q: shell %q, want bash", s.Name, s.Shell)
		}
		if strings.Contains(s.Run, "${{") {
			t.Errorf("step %q splices an expression into its script; pass it through env", s.Name)
		}
	}
}

// TestActionScripts: every script parses, and passes shellcheck when it
// is installed (CI installs it, and then it must be).
func TestActionScripts(t *testing.T) {
	shellcheck, err := exec.LookPath("shellcheck")
	if err != nil && os.Getenv("CI") != "" {
		t.Fatal("CI is set but shellcheck is not installed: .ci/run installs it for this test")
	}
	for _, s := range loadAction(t).Runs.Steps {
		if s.Run == "" {
			continue
		}
		script := filepath.Join(t.TempDir(), "step.sh")
		if err := os.WriteFile(script, []byte("#!/usr/bin/env bash\nset -eo pipefail\n"+s.Run), 0o644); err != nil {
			t.Fatal(err)
		}
		if out, err := exec.Command("bash", "-n", script).CombinedOutput(); err != nil {
			t.Errorf("step %q does not parse: %v\n%s", s.Name, err, out)
		}
		if shellcheck == "" {
			continue
		}
		if out, err := exec.Command(shellcheck, "--shell=bash", script).CombinedOutput(); err != nil {
			t.Errorf("shellcheck on step %q: %v\n%s", s.Name, err, out)
		}
	}
	if shellcheck == "" {
		t.Log("shellcheck is not installed; only bash -n was run")
	}
}

// runner runs the action's steps on this machine as a GitHub runner
// would: each script under `bash --noprofile --norc -eo pipefail`, with
// its env, $GITHUB_OUTPUT and $GITHUB_STEP_SUMMARY, stopping at the first
// step that fails. Steps that use other actions (actions/setup-go) are
// left out: Go is already here.
type runner struct {
	t         *testing.T
	action    action
	workspace string
	temp      string
	inputs    map[string]string
	outputs   map[string]map[string]string
	summary   string
	log       strings.Builder
}

// expr matches the expressions action.yml may use.
var expr = regexp.MustCompile(`\$\{\{\s*([a-z._-]+)\s*\}\}`)

// eval fills in the ${{ … }} expressions of a value; one this runner
// does not know fails the test, so the action cannot drift into
// expressions nothing here has exercised.
func (r *runner) eval(v string) string {
	return expr.ReplaceAllStringFunc(v, func(m string) string {
		e := expr.FindStringSubmatch(m)[1]
		parts := strings.Split(e, ".")
		switch {
		case e == "github.action_path":
			return testutil.Root()
		case e == "github.action_ref":
			return "test"
		case len(parts) == 2 && parts[0] == "inputs":
			if v, ok := r.inputs[parts[1]]; ok {
				return v
			}
			return r.action.Inputs[parts[1]].Default
		case len(parts) == 4 && parts[0] == "steps" && parts[2] == "outputs":
			return r.outputs[parts[1]][parts[3]]
		}
		r.t.Fatalf("action.yml uses an expression this runner does not know: %s", m)
		return ""
	})
}

// built caches the build step's outputs across runs of the action.
var (
	builtOnce sync.Once
	built     map[string]string
	buildErr  error
)

// run runs the action and returns the exit status of the step that
// failed (0 when none did) and its name.
func (r *runner) run() (int, string) {
	t := r.t
	r.outputs = map[string]map[string]string{}
	summaryFile := filepath.Join(r.temp, "step-summary.md")
	for _, s := range r.action.Runs.Steps {
		if s.Uses != "" {
			continue
		}
		if s.ID == "build" {
			// One build for every test: into a folder that outlives them.
			builtOnce.Do(func() {
				temp := r.temp
				if r.temp, buildErr = os.MkdirTemp("", "reelier-action-build-"); buildErr == nil {
					built, buildErr = r.step(s, summaryFile)
				}
				r.temp = temp
			})
			if buildErr != nil {
				t.Fatalf("the build step: %v\n%s", buildErr, r.log.String())
			}
			r.outputs[s.ID] = built
			continue
		}
		out, err := r.step(s, summaryFile)
		r.outputs[s.ID] = out
		if err != nil {
			var ee *exec.ExitError
			if !errors.As(err, &ee) {
				t.Fatalf("step %q: %v", s.Name, err)
			}
			r.summary = readFile(t, summaryFile)
			return ee.ExitCode(), s.Name
		}
	}
	r.summary = readFile(t, summaryFile)
	return 0, ""
}

// step runs one script step and returns what it wrote to $GITHUB_OUTPUT.
func (r *runner) step(s step, summaryFile string) (map[string]string, error) {
	t := r.t
	dir := r.workspace
	if s.WorkingDirectory != "" {
		dir = r.eval(s.WorkingDirectory)
	}
	output := filepath.Join(r.temp, "output-"+s.ID)
	os.Remove(output)
	env := append(os.Environ(), "RUNNER_TEMP="+r.temp, "GITHUB_OUTPUT="+output, "GITHUB_STEP_SUMMARY="+summaryFile, "GITHUB_WORKSPACE="+r.workspace)
	for k, v := range s.Env {
		env = append(env, k+"="+r.eval(v))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", s.Run)
	cmd.Dir, cmd.Env = dir, env
	fmt.Fprintf(&r.log, "--- %s\n", s.Name)
	cmd.Stdout, cmd.Stderr = &r.log, &r.log
	err := cmd.Run()
	outs := map[string]string{}
	if f, ferr := os.Open(output); ferr == nil {
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			if k, v, ok := strings.Cut(sc.Text(), "="); ok {
				outs[k] = v
			}
		}
		f.Close()
	}
	if s.ID == "" && len(outs) > 0 {
		t.Errorf("step %q writes outputs but has no id", s.Name)
	}
	return outs, err
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return string(data)
}

// newRunner sets up a workspace holding files for one job.
func newRunner(t *testing.T, files map[string]string) *runner {
	ws := t.TempDir()
	for name, content := range files {
		p := filepath.Join(ws, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return &runner{t: t, action: loadAction(t), workspace: ws, temp: t.TempDir()}
}

// fakeAPI answers the bookings skill; bk_2 is pending.
func fakeAPI(t *testing.T) string {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /bookings/{id}", func(w http.ResponseWriter, r *http.Request) {
		status := "confirmed"
		if r.PathValue("id") != "bk_1" {
			status = "pending"
		}
		fmt.Fprintf(w, `{"id":%q,"status":%q}`, r.PathValue("id"), status)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv.URL
}

// startLedger runs the receipt ledger on 127.0.0.1 with one API key and
// counts the connections it accepts.
func startLedger(t *testing.T) (url, key string, store *sqlitestore.Store, conns *atomic.Int64) {
	return ledgertest.StartSQLite(t)
}

const bookingSkill = `---
name: booking-status
description: Check that a booking is confirmed
---

## Steps

### Step 1 — Check the booking
- intent: The booking should be confirmed
- action: http.get {"url": "{{base}}/bookings/{{id}}"}
- assert: json.status == "confirmed"
- effect: read

### Step 2 — Read it again
- intent: Read it once more, checking nothing
- action: http.get {"url": "{{base}}/bookings/{{id}}"}
- effect: read
`

// TestActionRun: the action's scripts end to end against a fake API and
// the real receipt ledger. The job's verdict is the replay's; the record
// is pushed only when the replay passed and a key is set; the job summary
// is written in every case, including when no record was written.
func TestActionRun(t *testing.T) {
	api := fakeAPI(t)
	url, key, store, conns := startLedger(t)
	files := map[string]string{"skills/booking.skill.md": bookingSkill}
	vars := func(id string) string {
		// Blank lines, indentation and a CRLF line ending are tolerated.
		return "\n  base=" + api + "\r\n\nid=" + id + "  \n"
	}
	tests := []struct {
		name       string
		inputs     map[string]string
		wantCode   int
		wantPush   string
		wantRuns   int // records on the ledger afterwards
		wantInSumm []string
	}{
		{"passed, no key", map[string]string{"skill": "skills/booking.skill.md", "vars": vars("bk_1")},
			0, "skipped-no-key", 0, []string{"## ✅ Reelier replay passed: <code>booking-status</code>", "not pushed: no cloud key is configured"}},
		{"failed, key set", map[string]string{"skill": "skills/booking.skill.md", "vars": vars("bk_2"), "cloud-url": url, "cloud-key": key},
			1, "not-attempted", 0, []string{"## ❌ Reelier replay failed", "got \"pending\"", "not pushed: the replay did not pass"}},
		{"missing skill, key set", map[string]string{"skill": "skills/nope.skill.md", "cloud-url": url, "cloud-key": key},
			2, "not-attempted", 0, []string{"no run record was written", "<code>skills/nope.skill.md</code>"}},
		{"passed, wrong key", map[string]string{"skill": "skills/booking.skill.md", "vars": vars("bk_1"), "cloud-url": url, "cloud-key": "rk_wrong"},
			0, "failed", 0, []string{"✅", "**the push failed**"}},
		{"passed, key set", map[string]string{"skill": "skills/booking.skill.md", "vars": vars("bk_1"), "cloud-url": url, "cloud-key": key},
			0, "pushed", 1, []string{"✅", "pushed to the receipt ledger."}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := conns.Load()
			r := newRunner(t, files)
			r.inputs = tt.inputs
			code, failed := r.run()
			if code != tt.wantCode || (code != 0) != (failed == "Verdict") {
				t.Errorf("the job ended with %d at step %q, want %d (at the verdict step)\n%s", code, failed, tt.wantCode, r.log.String())
			}
			// The verdict output is the record's word; passed follows it.
			wantVerdict := map[int]string{0: "passed", 1: "failed", 2: ""}[tt.wantCode]
			if v, p := r.outputs["replay"]["verdict"], r.outputs["replay"]["passed"]; v != wantVerdict || p != fmt.Sprint(wantVerdict == "passed") {
				t.Errorf("outputs verdict %q passed %q, want %q", v, p, wantVerdict)
			}
			if got := r.outputs["push"]["status"]; got != tt.wantPush {
				t.Errorf("push status %q, want %q\n%s", got, tt.wantPush, r.log.String())
			}
			if tt.wantPush == "not-attempted" || tt.wantPush == "skipped-no-key" {
				if n := conns.Load() - before; n != 0 {
					t.Errorf("%d connections to the ledger when nothing was to be pushed", n)
				}
			}
			if s, err := store.Skill(context.Background(), "booking-status"); tt.wantRuns > 0 && (err != nil || s.Runs != tt.wantRuns) {
				t.Errorf("the ledger holds %+v (%v), want %d run(s)", s, err, tt.wantRuns)
			}
			for _, w := range tt.wantInSumm {
				if !strings.Contains(r.summary, w) {
					t.Errorf("the job summary lacks %q:\n%s", w, r.summary)
				}
			}
			if strings.Contains(r.log.String(), key) {
				t.Error("the key appeared in the log")
			}
		})
	}

	// Twice in one job: each use pushes its own record, whatever the
	// other left behind.
	r := newRunner(t, files)
	r.inputs = map[string]string{"skill": "skills/booking.skill.md", "vars": vars("bk_1"), "cloud-url": url, "cloud-key": key}
	for i := range 2 {
		if code, _ := r.run(); code != 0 || r.outputs["push"]["status"] != "pushed" {
			t.Fatalf("use %d: exit %d, push %q\n%s", i+1, code, r.outputs["push"]["status"], r.log.String())
		}
	}
	if s, err := store.Skill(context.Background(), "booking-status"); err != nil || s.Runs != 3 {
		t.Errorf("the ledger holds %+v (%v), want 3 runs", s, err)
	}
}
