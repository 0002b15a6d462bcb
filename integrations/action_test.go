// Package integrations_test checks what ships for agents and CI: the
// composite GitHub Action at the repository root, run step by step on
// this machine the way a runner runs it, and the agent instruction files.
package integrations_test

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/reelier/reelier/replay/runlog"
	"github.com/reelier/reelier/testkit/llmtest"
	"github.com/reelier/reelier/testkit/testutil"
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
	With             map[string]string
}

func loadAction(t testing.TB) action {
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
// spliced into the script, where a value could inject shell), and every
// action it uses pinned by commit SHA.
func TestActionShape(t *testing.T) {
	a := loadAction(t)
	if a.Runs.Using != "composite" {
		t.Errorf("runs.using = %q", a.Runs.Using)
	}
	want := map[string]string{"skills": "", "wrap": "", "allow-writes": "false", "yes": "false", "max-level": "0", "vars": "",
		"var-file": "", "junit": "", "fail-on-unchecked": "false", "fail-on-open-questions": "false", "cloud-url": "", "cloud-key": "", "push": "always",
		"sign": "off", "signing-key": "", "comment": "true", "github-token": "${{ github.token }}"}
	for name, def := range want {
		in, ok := a.Inputs[name]
		if !ok {
			t.Errorf("input %q is missing", name)
			continue
		}
		if in.Default != def || in.Required != (name == "skills") {
			t.Errorf("input %q: required %t default %q", name, in.Required, in.Default)
		}
	}
	if len(a.Inputs) != len(want) {
		t.Errorf("inputs = %v, want exactly %v", a.Inputs, want)
	}
	for _, o := range []string{"verdict", "passed", "healed", "patch", "exit-code", "runs-dir", "push", "bundle-path"} {
		if _, ok := a.Outputs[o]; !ok {
			t.Errorf("output %q is missing", o)
		}
	}
	pinned := regexp.MustCompile(`^[\w.-]+/[\w.-]+@[0-9a-f]{40}$`)
	for _, s := range a.Runs.Steps {
		if s.Uses != "" && !pinned.MatchString(s.Uses) {
			t.Errorf("step %q uses %q, not pinned by commit SHA", s.Name, s.Uses)
		}
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
// step that fails. Steps that use other actions (actions/cache,
// actions/setup-go) are left out: Go is already here, and the install
// step itself finds a binary that is already in place, as it does after
// a cache hit.
type runner struct {
	t         testing.TB
	action    action
	workspace string
	temp      string
	inputs    map[string]string
	// env is added to every step's environment (the runner's own
	// variables, LLM settings).
	env     []string
	outputs map[string]map[string]string
	summary string
	log     strings.Builder
	// ref is github.action_ref ("test" unless set: a ref that is not a
	// commit SHA, like uses: ./ or a branch); timeout bounds each step
	// (5 minutes unless set).
	ref     string
	timeout time.Duration
	// uses stands in for the steps that use other actions, by step id:
	// the outputs such a step gives (none when absent), as a runner
	// would have them after it ran.
	uses map[string]map[string]string
	// token is github.token, the job's token ("" unless set).
	token string
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
			if r.ref != "" {
				return r.ref
			}
			return "test"
		case e == "github.token":
			return r.token
		case len(parts) == 2 && parts[0] == "inputs":
			if v, ok := r.inputs[parts[1]]; ok {
				return v
			}
			// A default may be an expression itself (github.token).
			return r.eval(r.action.Inputs[parts[1]].Default)
		case len(parts) == 4 && parts[0] == "steps" && parts[2] == "outputs":
			return r.outputs[parts[1]][parts[3]]
		}
		r.t.Fatalf("action.yml uses an expression this runner does not know: %s", m)
		return ""
	})
}

// installSteps are the steps that put the binary in place.
var installSteps = map[string]bool{"install-key": true, "install": true}

// installed caches the install steps' outputs across runs of the action:
// they run once, into a runner temp folder that outlives the tests.
var (
	installOnce sync.Once
	installed   map[string]map[string]string
	installErr  error
	installLog  string
)

func (r *runner) install() {
	installOnce.Do(func() {
		temp := r.temp
		defer func() { r.temp = temp }()
		if r.temp, installErr = os.MkdirTemp("", "reelier-action-install-"); installErr != nil {
			return
		}
		installed = map[string]map[string]string{}
		for _, s := range r.action.Runs.Steps {
			if installSteps[s.ID] {
				r.outputs[s.ID], installErr = r.step(s, filepath.Join(r.temp, "summary"))
				installed[s.ID] = r.outputs[s.ID]
				if installErr != nil {
					break
				}
			}
		}
		installLog = r.log.String()
	})
	if installErr != nil {
		r.t.Fatalf("the install steps: %v\n%s", installErr, installLog)
	}
	for id, out := range installed {
		r.outputs[id] = out
	}
}

// binary is the reelier the install steps put in place.
func binary(t *testing.T) string {
	r := newRunner(t, nil)
	r.outputs = map[string]map[string]string{}
	r.install()
	return r.outputs["install"]["path"]
}

// run runs the action and returns the exit status of the step that
// failed (0 when none did) and its name.
func (r *runner) run() (int, string) {
	t := r.t
	r.outputs = map[string]map[string]string{}
	summaryFile := filepath.Join(r.temp, "step-summary.md")
	os.Remove(summaryFile)
	r.install()
	for _, s := range r.action.Runs.Steps {
		if s.Uses != "" || installSteps[s.ID] {
			if out, ok := r.uses[s.ID]; ok && s.Uses != "" {
				r.outputs[s.ID] = out
			}
			continue
		}
		if s.If != "" {
			t.Fatalf("step %q has an if: this runner runs every script step", s.Name)
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
	env = append(env, r.env...)
	for k, v := range s.Env {
		env = append(env, k+"="+r.eval(v))
	}
	timeout := r.timeout
	if timeout == 0 {
		timeout = 5 * time.Minute
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", s.Run)
	cmd.Dir, cmd.Env = dir, env
	fmt.Fprintf(&r.log, "--- %s\n", s.Name)
	cmd.Stdout, cmd.Stderr = &r.log, &r.log
	err := cmd.Run()
	outs := map[string]string{}
	if f, ferr := os.Open(output); ferr == nil {
		// name=value lines, and name<<DELIMITER … DELIMITER for a
		// value of several lines, as the runner reads $GITHUB_OUTPUT.
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			line := sc.Text()
			if k, delim, ok := strings.Cut(line, "<<"); ok && !strings.Contains(k, "=") {
				var vals []string
				for sc.Scan() && sc.Text() != delim {
					vals = append(vals, sc.Text())
				}
				outs[k] = strings.Join(vals, "\n")
				continue
			}
			if k, v, ok := strings.Cut(line, "="); ok {
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

func readFile(t testing.TB, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return string(data)
}

// newRunner sets up a workspace holding files for one job, with the
// variables a GitHub runner sets.
func newRunner(t testing.TB, files map[string]string) *runner {
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
	return &runner{t: t, action: loadAction(t), workspace: ws, temp: t.TempDir(), outputs: map[string]map[string]string{},
		env: []string{"CI=true", "GITHUB_ACTIONS=true", "GITHUB_REPOSITORY=acme/shop", "GITHUB_SHA=" + strings.Repeat("ab", 20),
			"GITHUB_REF=refs/heads/main", "GITHUB_SERVER_URL=https://github.com", "GITHUB_RUN_ID=777",
			"GITHUB_EVENT_NAME=push", "GITHUB_WORKFLOW=Reelier replay", "GITHUB_JOB=replay", "GITHUB_API_URL=http://127.0.0.1:1"}}
}

// fakeAPI answers the bookings skill; bk_2 is pending. GET /booking
// answers the booking wrapped in a data object (a drifted API).
func fakeAPI(t *testing.T) string {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /bookings/{id}", func(w http.ResponseWriter, r *http.Request) {
		status := "confirmed"
		if r.PathValue("id") != "bk_1" {
			status = "pending"
		}
		fmt.Fprintf(w, `{"id":%q,"status":%q}`, r.PathValue("id"), status)
	})
	mux.HandleFunc("GET /booking", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `{"data":{"id":"bk_1"}}`)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv.URL
}

// ledger is a real `reelier ledger serve` process on 127.0.0.1 with a
// SQLite store and one API key.
type ledger struct {
	url, key string
}

var listening = regexp.MustCompile(`listening on (http://\S+) `)

func startLedger(t *testing.T) *ledger {
	bin := binary(t)
	db := "sqlite:" + filepath.Join(t.TempDir(), "ledger.db")
	out, err := exec.Command(bin, "ledger", "key", "create", "ci", "--db", db).Output()
	if err != nil {
		t.Fatalf("ledger key create: %v", err)
	}
	l := &ledger{key: strings.TrimSpace(string(out))}
	cmd := exec.Command(bin, "ledger", "serve", "--addr", "127.0.0.1:0", "--db", db)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Signal(os.Interrupt)
		cmd.Wait()
	})
	sc := bufio.NewScanner(stdout)
	for sc.Scan() {
		if m := listening.FindStringSubmatch(sc.Text()); m != nil {
			l.url = m[1]
			break
		}
	}
	if l.url == "" {
		t.Fatal("the ledger never said where it listens")
	}
	go io.Copy(io.Discard, stdout)
	return l
}

// ledgerRun is what the ledger's API lists of a run.
type ledgerRun struct {
	Verdict string
	Record  struct {
		Provenance *runlog.Provenance
	}
}

// runs lists a skill's runs on the ledger, newest first.
func (l *ledger) runs(t *testing.T, skill string) []ledgerRun {
	req, _ := http.NewRequest("GET", l.url+"/api/v1/skills/"+skill+"/runs", nil)
	req.Header.Set("Authorization", "Bearer "+l.key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode == http.StatusNotFound {
		return nil
	}
	var page struct{ Runs []ledgerRun }
	if err := json.NewDecoder(resp.Body).Decode(&page); err != nil || resp.StatusCode != 200 {
		t.Fatalf("listing runs: %d %v", resp.StatusCode, err)
	}
	return page.Runs
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

const brokenSkill = `---
name: broken
description: A skill with a step that does not parse
---

## Steps

### Step 1 — Half written
- action: http.get {
`

// TestActionRun: the action's scripts end to end against a fake API and
// a real receipt ledger process. The job's verdict is the replay's;
// every run is pushed under push: always, a failing one too; passed
// pushes only passing runs and never none; failed steps and parse errors
// are annotated at their line; the job summary is written in every case
// and names no runner path.
func TestActionRun(t *testing.T) {
	api := fakeAPI(t)
	l := startLedger(t)
	files := map[string]string{"skills/booking.skill.md": bookingSkill, "skills/wip/broken.skill.md": brokenSkill, "docs/README.md": "# Not a skill\n"}
	vars := func(id string) string {
		// Blank lines, indentation and a CRLF line ending are tolerated.
		return "\n  base=" + api + "\r\n\nid=" + id + "  \n"
	}
	key := func(in map[string]string) map[string]string {
		in["cloud-url"], in["cloud-key"] = l.url, l.key
		return in
	}
	tests := []struct {
		name      string
		inputs    map[string]string
		wantCode  int
		verdict   string
		wantPush  string
		newRuns   int // runs the ledger gains
		wantInLog []string
		wantInSum []string
	}{
		{"passed, no key", map[string]string{"skills": "skills/booking.skill.md", "vars": vars("bk_1")},
			0, "passed", "skipped-no-key", 0, nil,
			[]string{"## ✅ Reelier: 1 of 1 skill(s) passed", "not pushed: no cloud key is configured"}},
		{"failed, pushed (push: always)", key(map[string]string{"skills": "skills/booking.skill.md", "vars": vars("bk_2")}),
			1, "failed", "pushed", 1,
			[]string{"::error file=skills/booking.skill.md,line=8,title=Reelier%3A step 1 (Check the booking) failed::"},
			[]string{"## ❌ Reelier: of 1 skill(s), 1 failed", "### Failed steps", "<code>skills/booking.skill.md</code> step 1 (line 8)", "got \"pending\"", "pushed to the receipt ledger"}},
		{"failed, push: passed", key(map[string]string{"skills": "skills/booking.skill.md", "vars": vars("bk_2"), "push": "passed"}),
			1, "failed", "not-attempted", 0, nil, []string{"not pushed: the push input is <code>passed</code>"}},
		{"passed, push: never", key(map[string]string{"skills": "skills/booking.skill.md", "vars": vars("bk_1"), "push": "never"}),
			0, "passed", "not-attempted", 0, nil, []string{"not pushed: the push input is <code>never</code>"}},
		{"passed, push: passed", key(map[string]string{"skills": "skills/booking.skill.md", "vars": vars("bk_1"), "push": "passed"}),
			0, "passed", "pushed", 1, nil, []string{"pushed to the receipt ledger (push: <code>passed</code>)"}},
		{"passed, wrong key", map[string]string{"skills": "skills/booking.skill.md", "vars": vars("bk_1"), "cloud-url": l.url, "cloud-key": "rk_wrong"},
			0, "passed", "failed", 0, []string{"::warning title=Reelier push::The run record of skills/booking.skill.md was not pushed"},
			[]string{"**the push failed**", "nothing will send it later"}},
		{"a glob that matches nothing", map[string]string{"skills": "skills/*.nope.md"},
			2, "", "skipped-no-key", 0, []string{`::error title=Reelier skills::The glob "skills/*.nope.md" matches no file`},
			[]string{"no skill to replay"}},
		{"a folder with no skill", map[string]string{"skills": "docs/"},
			2, "", "skipped-no-key", 0, []string{"docs/ holds no skill to replay"}, []string{"## ⚠️ Reelier: no summary", "(exit 2)"}},
		{"a suite with a broken and a missing skill", map[string]string{"skills": "skills/**/*.skill.md\nskills/nope.skill.md", "vars": vars("bk_1")},
			2, "failed", "skipped-no-key", 0,
			[]string{"::error file=skills/wip/broken.skill.md,line=9,col=21,", "parse_error"},
			[]string{"## ❌ Reelier: of 3 skill(s), 2 could not run", "| <code>skills/booking.skill.md</code> | ✅ passed", "<code>skills/wip/broken.skill.md</code> does not parse", "skills/wip/broken.skill.md:9:21: error: step 1: Action args are not valid JSON", "<code>skills/nope.skill.md</code> could not be read"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := len(l.runs(t, "booking-status"))
			r := newRunner(t, files)
			r.inputs = tt.inputs
			code, failed := r.run()
			if code != tt.wantCode || (code != 0) != (failed == "Verdict") {
				t.Errorf("the job ended with %d at step %q, want %d (at the verdict step)\n%s", code, failed, tt.wantCode, r.log.String())
			}
			if v, p := r.outputs["report"]["verdict"], r.outputs["report"]["passed"]; v != tt.verdict || p != fmt.Sprint(tt.verdict == "passed") {
				t.Errorf("outputs verdict %q passed %q, want %q", v, p, tt.verdict)
			}
			if got := r.outputs["push"]["status"]; got != tt.wantPush {
				t.Errorf("push status %q, want %q\n%s", got, tt.wantPush, r.log.String())
			}
			runs := l.runs(t, "booking-status")
			if n := len(runs) - before; n != tt.newRuns {
				t.Errorf("the ledger gained %d run(s), want %d", n, tt.newRuns)
			} else if n > 0 {
				if runs[0].Verdict != tt.verdict {
					t.Errorf("the ledger's newest run is %q, want %q", runs[0].Verdict, tt.verdict)
				}
				want := &runlog.Provenance{Provider: "github-actions", Repository: "acme/shop", Commit: strings.Repeat("ab", 20), Ref: "refs/heads/main", RunURL: "https://github.com/acme/shop/actions/runs/777"}
				if got := runs[0].Record.Provenance; got == nil || *got != *want {
					t.Errorf("the pushed record's provenance is %+v, want %+v", got, want)
				}
			}
			for _, w := range tt.wantInLog {
				if !strings.Contains(r.log.String(), w) {
					t.Errorf("the log lacks %q:\n%s", w, r.log.String())
				}
			}
			details := strings.Index(r.summary, "<details>")
			if details < 0 {
				details = len(r.summary)
			}
			for _, w := range tt.wantInSum {
				if i := strings.Index(r.summary, w); i < 0 || i > details {
					t.Errorf("the job summary lacks %q before its collapsible part:\n%s", w, r.summary)
				}
			}
			for _, leak := range []string{r.temp, r.workspace, os.TempDir() + "/", "resumes"} {
				if strings.Contains(r.summary, leak) {
					t.Errorf("the job summary shows %q:\n%s", leak, r.summary)
				}
			}
			if strings.Contains(r.log.String(), l.key) {
				t.Error("the key appeared in the log")
			}
		})
	}
}

// TestActionSign: the sign input, run step by step as a runner runs it.
// keyless hands actions/attest (pinned by SHA) the skill files that ran
// as subjects by SHA-256 and this job's run records as the predicate, and
// keeps the bundle it returns (stood in for here, the service being
// GitHub's) in the runs-dir; off signs nothing; key signs each record
// with the signing-key input (actionSignKey); key without a key and an
// unknown mode fail the job with exit 2, saying why.
func TestActionSign(t *testing.T) {
	api := fakeAPI(t)
	files := map[string]string{"skills/booking.skill.md": bookingSkill}
	vars := "base=" + api + "\nid=bk_1"
	a := loadAction(t)
	var attest *step
	for i, s := range a.Runs.Steps {
		if s.ID == "attest" {
			attest = &a.Runs.Steps[i]
		}
	}
	if attest == nil || !strings.HasPrefix(attest.Uses, "actions/attest@") || attest.If != "steps.sign-prep.outputs.enabled == 'true'" ||
		attest.With["subject-checksums"] != "${{ steps.sign-prep.outputs.subjects }}" || attest.With["predicate-path"] != "${{ steps.sign-prep.outputs.predicate }}" ||
		attest.With["predicate-type"] != "https://reelier.dev/run-records/v1" {
		t.Fatalf("the attest step: %+v", attest)
	}

	t.Run("keyless", func(t *testing.T) {
		r := newRunner(t, files)
		r.inputs = map[string]string{"skills": "skills/booking.skill.md", "vars": vars, "sign": "keyless"}
		bundle := filepath.Join(r.temp, "attestation.jsonl")
		if err := os.WriteFile(bundle, []byte(`{"mediaType":"application/vnd.dev.sigstore.bundle.v0.3+json"}`+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		r.uses = map[string]map[string]string{"attest": {"bundle-path": bundle}}
		if code, failed := r.run(); code != 0 {
			t.Fatalf("exit %d at %q\n%s", code, failed, r.log.String())
		}
		prep := r.outputs["sign-prep"]
		if prep["enabled"] != "true" {
			t.Fatalf("sign-prep outputs %v\n%s", prep, r.log.String())
		}
		sum := sha256.Sum256([]byte(bookingSkill))
		if got, want := readFile(t, prep["subjects"]), hex.EncodeToString(sum[:])+"  skills/booking.skill.md\n"; got != want {
			t.Errorf("subjects %q, want %q", got, want)
		}
		var predicate struct{ RunRecords []runlog.Record }
		if err := json.Unmarshal([]byte(readFile(t, prep["predicate"])), &predicate); err != nil || len(predicate.RunRecords) != 1 ||
			predicate.RunRecords[0].Skill != "booking-status" || predicate.RunRecords[0].Verdict != runlog.VerdictPassed {
			t.Errorf("predicate %+v, %v", predicate, err)
		}
		kept := r.outputs["sign-keep"]["bundle-path"]
		if filepath.Dir(kept) != r.outputs["replay"]["runs-dir"] || readFile(t, kept) != readFile(t, bundle) {
			t.Errorf("bundle kept as %q, want a copy in the runs-dir %q", kept, r.outputs["replay"]["runs-dir"])
		}
	})
	t.Run("off", func(t *testing.T) {
		r := newRunner(t, files)
		r.inputs = map[string]string{"skills": "skills/booking.skill.md", "vars": vars}
		if code, failed := r.run(); code != 0 {
			t.Fatalf("exit %d at %q\n%s", code, failed, r.log.String())
		}
		if r.outputs["sign-prep"]["enabled"] != "false" || r.outputs["sign-keep"]["bundle-path"] != "" {
			t.Errorf("sign off: %v %v", r.outputs["sign-prep"], r.outputs["sign-keep"])
		}
		if _, err := os.Stat(filepath.Join(r.outputs["replay"]["runs-dir"], "receipts.sigstore.json")); !os.IsNotExist(err) {
			t.Errorf("a bundle was kept with sign off: %v", err)
		}
	})
	t.Run("key", func(t *testing.T) { actionSignKey(t, files, vars) })
	t.Run("key without signing-key", func(t *testing.T) {
		r := newRunner(t, files)
		r.inputs = map[string]string{"skills": "skills/booking.skill.md", "vars": vars, "sign": "key"}
		code, failed := r.run()
		if code != 2 || failed != "Verdict" || !strings.Contains(r.log.String(), "::error title=Reelier sign::sign is key but the signing-key input is empty") {
			t.Errorf("exit %d at %q, want 2 at the verdict, naming the empty input\n%s", code, failed, r.log.String())
		}
	})
	for _, tt := range []struct{ sign, log string }{
		{"always", `::error title=Reelier sign::sign must be off, keyless or key, not "always"`},
	} {
		t.Run(tt.sign, func(t *testing.T) {
			r := newRunner(t, files)
			r.inputs = map[string]string{"skills": "skills/booking.skill.md", "vars": vars, "sign": tt.sign}
			code, failed := r.run()
			if code != 2 || failed != "Prepare the receipts for signing" || !strings.Contains(r.log.String(), tt.log) {
				t.Errorf("exit %d at %q, want 2 at the signing step saying %q\n%s", code, failed, tt.log, r.log.String())
			}
		})
	}
}

// TestActionMCP: a skill whose tools come from a real MCP server from
// npm (server-memory), started through the wrap input; its write step
// runs because allow-writes is set. A wrap line that cannot start is a
// tool error (exit 3) with a summary that says no record was written.
func TestActionMCP(t *testing.T) {
	dir := os.Getenv("REELIER_NPM_DIR")
	if dir == "" {
		t.Skip("REELIER_NPM_DIR is not set; .ci/run installs the npm MCP servers and sets it")
	}
	server := filepath.Join(dir, "node_modules", "@modelcontextprotocol", "server-memory", "dist", "index.js")
	if _, err := os.Stat(server); err != nil {
		t.Fatalf("REELIER_NPM_DIR=%s but server-memory is not installed: %v", dir, err)
	}
	memSkill := `---
name: memory-probe
description: Store an entity in the memory server and find it again
---

## Steps

### Step 1 — Store the probe
- intent: Create the probe entity
- action: create_entities {"entities": [{"name": "ci-probe", "entityType": "check", "observations": ["stored by CI"]}]}
- effect: idempotent-write

### Step 2 — Find the probe
- intent: Search for the probe entity
- action: search_nodes {"query": "ci-probe"}
- assert: json.entities.0.name == "ci-probe"
- assert: json.entities.0.observations.0 == "stored by CI"
- effect: read
`
	r := newRunner(t, map[string]string{"skills/memory.skill.md": memSkill})
	wrap := fmt.Sprintf("env MEMORY_FILE_PATH=%s node %s", filepath.Join(r.temp, "memory.jsonl"), server)
	r.inputs = map[string]string{"skills": "skills/", "wrap": "\n" + wrap + "\n", "allow-writes": "true", "junit": "replay.xml"}
	if code, failed := r.run(); code != 0 {
		t.Fatalf("exit %d at %q\n%s", code, failed, r.log.String())
	}
	if v := r.outputs["report"]["verdict"]; v != "passed" {
		t.Errorf("verdict %q\n%s", v, r.log.String())
	}
	if !strings.Contains(r.summary, "| <code>skills/memory.skill.md</code> | ✅ passed | 2 | 1 | 1 | 0 | 0 |") {
		t.Errorf("summary:\n%s", r.summary)
	}
	if junit := readFile(t, filepath.Join(r.workspace, "replay.xml")); !strings.Contains(junit, "Find the probe") {
		t.Errorf("the JUnit report lacks the steps:\n%s", junit)
	}

	// Without allow-writes the gate refuses the write step: the job fails
	// (exit 2), and the run's verdict is config, not drift.
	r.inputs = map[string]string{"skills": "skills/memory.skill.md", "wrap": wrap}
	if code, _ := r.run(); code != 2 || !strings.Contains(r.summary, "| <code>skills/memory.skill.md</code> | 🔧 config") {
		t.Errorf("without allow-writes: exit %d\n%s", code, r.summary)
	}

	// A wrap line that cannot start.
	r.inputs = map[string]string{"skills": "skills/memory.skill.md", "wrap": "reelier-no-such-server --stdio", "allow-writes": "true"}
	code, _ := r.run()
	if code != 3 || r.outputs["report"]["verdict"] != "" || !strings.Contains(r.summary, "no run record was written") {
		t.Errorf("a wrap that cannot start: exit %d, verdict %q\n%s\n%s", code, r.outputs["report"]["verdict"], r.summary, r.log.String())
	}
	if !strings.Contains(r.log.String(), "reelier-no-such-server") {
		t.Errorf("the log does not name the command that failed:\n%s", r.log.String())
	}
}

// TestActionHeal: at max-level 1, against the fake LLM provider, a
// drifted step heals; the skill file in the checkout is left alone, the
// heal becomes the patch output, the summary says it must be committed,
// the step is annotated, and the patch applied makes the skill pass at
// Level 0.
func TestActionHeal(t *testing.T) {
	api := fakeAPI(t)
	reply := `{"reason": "the API now wraps the booking in a data object", "asserts": ["json.data.id == \"bk_1\""], "binds": []}`
	llm := llmtest.New([]llmtest.Reply{{Match: "Fetch the booking", Text: reply, InputTokens: 700, OutputTokens: 40}}, llmtest.Options{})
	t.Cleanup(llm.Close)
	skill := `---
name: drifted
description: Read a booking whose shape changed
---

## Steps

### Step 1 — Fetch the booking
- intent: Read the current booking
- action: http.get {"url": "{{base}}/booking"}
- assert: json.id == "bk_1"
- effect: read
`
	r := newRunner(t, map[string]string{"skills/drifted.skill.md": skill})
	r.env = append(r.env, "REELIER_LLM_BASE_URL="+llm.URL+"/v1", "REELIER_LLM_API_KEY=sk-test-4242")
	r.inputs = map[string]string{"skills": "skills/drifted.skill.md", "vars": "base=" + api, "max-level": "1"}
	if code, failed := r.run(); code != 0 {
		t.Fatalf("exit %d at %q\n%s", code, failed, r.log.String())
	}
	if p := llm.Problems(); len(p) > 0 {
		t.Errorf("malformed LLM requests: %v", p)
	}
	if h := r.outputs["report"]["healed"]; h != "1" {
		t.Errorf("healed %q", h)
	}
	patch := r.outputs["replay"]["patch"]
	if patch == "" {
		t.Fatalf("no patch output\n%s", r.log.String())
	}
	diff := readFile(t, patch)
	if !strings.Contains(diff, "+- assert: json.data.id == \"bk_1\"") {
		t.Errorf("the patch:\n%s", diff)
	}
	if got := readFile(t, filepath.Join(r.workspace, "skills/drifted.skill.md")); got != skill {
		t.Error("the heal was written into the checkout")
	}
	for _, w := range []string{"### Healed steps", "<code>skills/drifted.skill.md</code> step 1 (line 8)", "The heal patch must be committed", "<code>reelier-heal.patch</code>"} {
		if i := strings.Index(r.summary, w); i < 0 || i > strings.Index(r.summary, "<details>") {
			t.Errorf("the summary lacks %q before its collapsible part:\n%s", w, r.summary)
		}
	}
	if !strings.Contains(r.log.String(), "::warning file=skills/drifted.skill.md,line=8,title=Reelier%3A step 1 healed at L1%2C not committed::") {
		t.Errorf("no heal annotation:\n%s", r.log.String())
	}
	// The patch, applied to the checkout, passes without the LLM.
	if _, err := exec.LookPath("patch"); err == nil {
		cmd := exec.Command("patch", "-p0", "-i", patch)
		cmd.Dir = r.workspace
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("patch: %v\n%s", err, out)
		}
		r.inputs["max-level"] = "0"
		if code, _ := r.run(); code != 0 || r.outputs["report"]["verdict"] != "passed" {
			t.Errorf("the patched skill: exit %d\n%s", code, r.log.String())
		}
	}
}

// installRun runs the install steps alone in the runner temp folder
// temp, as a use of the action at ref, with env added, and returns the
// steps' log and outputs.
func installRun(tb testing.TB, temp, ref string, env ...string) (string, map[string]map[string]string) {
	r := newRunner(tb, nil)
	r.temp, r.ref, r.timeout, r.env = temp, ref, 30*time.Minute, append(r.env, env...)
	for _, s := range r.action.Runs.Steps {
		if installSteps[s.ID] {
			out, err := r.step(s, filepath.Join(temp, "summary"))
			if err != nil {
				tb.Fatalf("step %q: %v\n%s", s.Name, err, r.log.String())
			}
			r.outputs[s.ID] = out
		}
	}
	return r.log.String(), r.outputs
}

// TestActionInstallCached: after a cache hit (the binary restored where
// the install steps put it) the install step builds nothing and needs no
// Go: it runs here with a PATH that has no go on it, as on a runner where
// setup-go was skipped.
func TestActionInstallCached(t *testing.T) {
	bin := binary(t)
	temp := filepath.Dir(filepath.Dir(filepath.Dir(bin))) // <temp>/reelier-action/<key>/reelier
	noGo := t.TempDir()
	for _, tool := range []string{"bash", "find", "sort", "xargs", "sha256sum", "mkdir", "mv", "env"} {
		p, err := exec.LookPath(tool)
		if err != nil {
			t.Fatal(err)
		}
		os.Symlink(p, filepath.Join(noGo, tool))
	}
	// The programs reelier runs are beside it: reelier-attest (sign:
	// key) and reelier-seatbelt (a repository's policy file).
	for _, prog := range []string{"reelier-attest", "reelier-seatbelt"} {
		if st, err := os.Stat(filepath.Join(filepath.Dir(bin), prog)); err != nil || st.Mode()&0o111 == 0 {
			t.Errorf("the install steps did not put %s beside reelier: %v", prog, err)
		}
	}
	log, out := installRun(t, temp, "", "PATH="+noGo)
	if out["install"]["path"] != bin || !strings.Contains(log, "reelier from the cache (src-") {
		t.Errorf("the warm install did not use the cached binary: %v\n%s", out, log)
	}
	// The binary runs, and says the ref it was built at.
	if !strings.Contains(log, "\nreelier test\n") {
		t.Errorf("the install step's version line:\n%s", log)
	}
}

// BenchmarkActionInstall measures the install steps as the runner above
// runs them, for a use pinned by commit SHA (the key is the SHA): cold (a
// cache miss: nothing in the runner temp folder and an empty Go build
// cache; the module cache is kept, as setup-go restores it) and warm (a
// cache hit: the binary is where actions/cache restores it); and warm for
// a use by branch or uses: ./ (the key is a hash of the action's files);
// and cold-pinned-gocache, a cache miss with the Go build cache kept.
// actions/cache's own download and setup-go are not measured here.
//
//	go test ./integrations -run '^$' -bench BenchmarkActionInstall -benchtime 1x
func BenchmarkActionInstall(b *testing.B) {
	const pinned = "0123456789abcdef0123456789abcdef01234567"
	b.Run("cold-pinned", func(b *testing.B) {
		for range b.N {
			b.StopTimer()
			temp, gocache := b.TempDir(), b.TempDir()
			b.StartTimer()
			log, _ := installRun(b, temp, pinned, "GOCACHE="+gocache)
			if strings.Contains(log, "from the cache") {
				b.Fatal("a cold install used a cached binary")
			}
		}
	})
	// A cache miss whose Go build cache setup-go restored from an earlier
	// run: the compile is mostly links.
	// (This machine's own Go build cache stands in for it.)
	b.Run("cold-pinned-gocache", func(b *testing.B) {
		installRun(b, b.TempDir(), pinned)
		b.ResetTimer()
		for range b.N {
			b.StopTimer()
			temp := b.TempDir()
			b.StartTimer()
			if log, _ := installRun(b, temp, pinned); strings.Contains(log, "from the cache") {
				b.Fatal("a cold install used a cached binary")
			}
		}
	})
	for _, tc := range []struct{ name, ref string }{{"warm-pinned", pinned}, {"warm-unpinned", "main"}} {
		b.Run(tc.name, func(b *testing.B) {
			temp := b.TempDir()
			installRun(b, temp, tc.ref)
			b.ResetTimer()
			for range b.N {
				if log, _ := installRun(b, temp, tc.ref); !strings.Contains(log, "from the cache") {
					b.Fatal("a warm install built again")
				}
			}
		})
	}
}
