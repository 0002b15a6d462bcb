package truth

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/reelier/reelier/testkit/testutil"
)

// NPMDirEnv names the folder holding node_modules with the npm packages
// (.ci/run installs them into .ci/node).
const NPMDirEnv = "REELIER_NPM_DIR"

// OutEnv names a file the bench's table is written to as Markdown.
const OutEnv = "REELIER_TRUTHBENCH_OUT"

// KeepEnv names a folder each workflow's trace, skill and every
// scenario's run record are copied to.
const KeepEnv = "REELIER_TRUTHBENCH_KEEP"

// parallel is how many workflows run at once. Each is a chain of short
// processes that mostly wait on one another, so a few at a time keep two
// cores busy.
const parallel = 4

// The targets from the issue: a compiled skill tells the truth.
const (
	targetStable        = 1.0  // every stable replay passes and sends what the agent sent
	targetDriftHandled  = 0.95 // relevant drift is caught or followed
	targetFalseAlarms   = 0    // no replay that should pass fails
	targetSilentWrongOK = 0    // no replay passes while doing the wrong thing
	targetMildEffects   = 0    // no skill gated more mildly than its calls need
)

var npmPackages = []string{
	"@modelcontextprotocol/sdk",
	"@modelcontextprotocol/server-memory",
	"@modelcontextprotocol/server-filesystem",
	"@modelcontextprotocol/server-everything",
	"@executeautomation/database-server",
	"@cyanheads/git-mcp-server",
}

// setup finds what the bench runs. With REELIER_NPM_DIR unset the test is
// skipped; with it set, anything missing fails it, so CI cannot pass by
// skipping.
func setup(t *testing.T) *bench {
	t.Helper()
	dir := os.Getenv(NPMDirEnv)
	if dir == "" {
		t.Skipf("%s is not set; run `npm ci --prefix .ci/node` (see .ci/run) and set %s=$PWD/.ci/node to run the truth bench", NPMDirEnv, NPMDirEnv)
	}
	dir, err := filepath.Abs(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, pkg := range npmPackages {
		if _, err := os.Stat(filepath.Join(dir, "node_modules", filepath.FromSlash(pkg), "package.json")); err != nil {
			t.Fatalf("%s=%s but npm package %s is not installed there: %v", NPMDirEnv, dir, pkg, err)
		}
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatalf("%s is set but node is not on PATH: %v", NPMDirEnv, err)
	}
	envBin, err := exec.LookPath("env")
	if err != nil {
		t.Fatalf("env is not on PATH: %v", err)
	}
	gitBin, err := exec.LookPath("git")
	if err != nil {
		t.Fatalf("%s is set but git (the git server's workflows) is not on PATH: %v", NPMDirEnv, err)
	}
	agent, err := filepath.Abs(filepath.Join("agent", "agent.mjs"))
	if err != nil {
		t.Fatal(err)
	}
	return &bench{bin: testutil.ReelierBinary(t), npm: dir, node: node, envBin: envBin, agent: agent, gitDir: filepath.Dir(gitBin)}
}

// TestTruthBench records every workflow with the scripted agent against
// the real npm servers, compiles each trace, replays the skill in every
// scenario and judges each replay against what the agent itself does in
// the same world. It prints the table and asserts the targets.
func TestTruthBench(t *testing.T) {
	b := setup(t)
	specs, err := b.list(context.Background())
	if err != nil {
		t.Fatalf("listing the workflows: %v", err)
	}
	keep := os.Getenv(KeepEnv)
	if keep != "" {
		if err := os.MkdirAll(keep, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	reports := make([]workflowReport, len(specs))
	var wg sync.WaitGroup
	slots := make(chan struct{}, parallel)
	for i, spec := range specs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			slots <- struct{}{}
			defer func() { <-slots }()
			t.Run(spec.Name, func(t *testing.T) {
				reports[i] = b.runWorkflow(t, spec, keep)
			})
		}()
	}
	wg.Wait()
	// A workflow that -run left out has no report.
	reports = slices.DeleteFunc(reports, func(r workflowReport) bool { return r.Spec.Name == "" })

	tot := totals(reports)
	text := renderText(reports, tot)
	fmt.Print(text)
	if out := os.Getenv(OutEnv); out != "" {
		if err := os.WriteFile(out, []byte(renderMarkdown(reports, tot)), 0o644); err != nil {
			t.Errorf("%s: %v", OutEnv, err)
		}
	}
	if tot.stableRate() < targetStable {
		t.Errorf("stable pass rate %s; target %.0f%%", tot.stableFigure(), targetStable*100)
	}
	if tot.FalseAlarms > targetFalseAlarms {
		t.Errorf("%d false alarms; target %d", tot.FalseAlarms, targetFalseAlarms)
	}
	if tot.driftRate() < targetDriftHandled {
		t.Errorf("drift caught or followed %s; target ≥ %.0f%%", tot.driftFigure(), targetDriftHandled*100)
	}
	if tot.SilentWrong > targetSilentWrongOK {
		t.Errorf("%d silent wrong passes; target %d", tot.SilentWrong, targetSilentWrongOK)
	}
	if tot.MildEffects > targetMildEffects {
		t.Errorf("%d skills are gated more mildly than their calls need; target %d", tot.MildEffects, targetMildEffects)
	}
	if tot.Errors > 0 {
		t.Errorf("%d scenarios could not be judged (see the errors above)", tot.Errors)
	}
}

// scenario is one replay the bench judges.
type scenario struct {
	ID, Kind, What string
	// Expect is "pass" (must pass, sending what the agent sends),
	// "fail" (must not pass) or "fail or follow" (must fail, or pass
	// sending what the agent sends in the changed world).
	Expect string
}

// result is one judged replay.
type result struct {
	scenario
	Outcome string // "passed", "failed at step N: …", or what went wrong
	Verdict string // ok, false-alarm, silent-wrong-pass, caught, followed, error
	Note    string
}

// workflowReport is a workflow's skill and its judged replays.
type workflowReport struct {
	Spec  workflowSpec
	Steps int
	Needs string // the flag the skill needed: --yes, --allow-writes or none
	// Milder says the skill's effects ask for a milder flag than its
	// calls need (the workflow's needs), or is "".
	Milder  string
	Err     string // why there is no skill, if there is none
	Results []result
}

func scenariosOf(spec workflowSpec) []scenario {
	rerun := scenario{ID: "rerun", Kind: "rerun", Expect: "pass", What: "replay again on the world the first stable replay left; re-runnable: " + spec.RerunWhy}
	if !spec.Rerunnable {
		rerun.Expect = "fail"
		rerun.What = "replay again on the world the first stable replay left; not re-runnable: " + spec.RerunWhy
	}
	out := []scenario{
		{ID: "stable-1", Kind: "stable", Expect: "pass", What: "a fresh seed world"},
		{ID: "stable-2", Kind: "stable", Expect: "pass", What: "another fresh seed world"},
		rerun,
	}
	for _, s := range spec.Scenarios {
		sc := scenario{ID: s.ID, Kind: s.Kind, What: s.What, Expect: "pass"}
		if s.Kind == "relevant" {
			sc.Expect = "fail or follow"
		}
		out = append(out, sc)
	}
	return out
}

// runWorkflow records the workflow in a fresh seed world, compiles the
// trace and judges every scenario. The world is always the same folder,
// as a person's project folder is, so paths in the skill stay valid.
func (b *bench) runWorkflow(t *testing.T, spec workflowSpec, keep string) workflowReport {
	ctx := context.Background()
	rep := workflowReport{Spec: spec}
	base := t.TempDir()
	world := filepath.Join(base, "world")
	scenarios := scenariosOf(spec)
	fail := func(format string, args ...any) workflowReport {
		msg := fmt.Sprintf(format, args...)
		t.Error(msg)
		rep.Err = msg
		for _, s := range scenarios {
			rep.Results = append(rep.Results, result{scenario: s, Outcome: "no skill", Verdict: "error", Note: clip(msg, 160)})
		}
		return rep
	}
	sanitize := strings.NewReplacer(world, "/world/"+spec.Name, b.npm, "$REELIER_NPM_DIR", b.node, "node", b.envBin, "env", base, "/bench")

	// Record.
	if err := b.buildWorld(ctx, spec.Name, "seed", world); err != nil {
		return fail("building the seed world: %v", err)
	}
	server, err := b.serverArgv(spec.Server, world)
	if err != nil {
		return fail("%v", err)
	}
	traces := filepath.Join(base, "traces")
	recorded, err := b.play(ctx, base, spec.Name, world, true, []string{b.bin, "mcp", "--trace-dir", traces, "--wrap", wrapCommand(server)})
	if err != nil {
		return fail("recording: %v", err)
	}
	if recorded.GaveUp != "" {
		return fail("the agent gave up while recording in the seed world: %s", recorded.GaveUp)
	}
	tracePath := filepath.Join(traces, spec.Name+"-1.jsonl")
	if _, err := os.Stat(tracePath); err != nil {
		return fail("no trace after recording (%+v): %v", recorded.Recording, err)
	}

	// Compile, plainly.
	skill := filepath.Join(base, spec.Name+".skill.md")
	if _, _, err := b.exec(ctx, base, nil, b.bin, "compile", tracePath, "-o", skill); err != nil {
		keepFile(t, keep, sanitize, tracePath, filepath.Base(tracePath))
		return fail("reelier compile: %v", err)
	}
	keepFile(t, keep, sanitize, tracePath, filepath.Base(tracePath))
	keepFile(t, keep, sanitize, skill, filepath.Base(skill))
	src, err := os.ReadFile(skill)
	if err != nil {
		return fail("%v", err)
	}
	rep.Steps, rep.Needs = skillShape(string(src))
	if spec.Needs != "" && gateRank(rep.Needs) < gateRank(spec.Needs) {
		rep.Milder = fmt.Sprintf("the skill needs %s but its calls need %s", rep.Needs, spec.Needs)
	}

	// Replay offline against the recording itself (reelier mock): with
	// no server behind it, every step must pass.
	if err := b.replayMock(ctx, base, skill, tracePath); err != nil {
		t.Errorf("%s: the skill does not replay against reelier mock of its own recording: %v", spec.Name, err)
	}

	// Judge every scenario.
	var afterFirst worldState
	for _, s := range scenarios {
		prepare := func() error {
			switch {
			case s.Kind == "stable":
				return b.buildWorld(ctx, spec.Name, "seed", world)
			case s.Kind == "rerun":
				if afterFirst == nil {
					return fmt.Errorf("the first stable replay left no world")
				}
				return afterFirst.restore(world)
			default:
				return b.buildWorld(ctx, spec.Name, s.ID, world)
			}
		}
		res, after := b.judge(ctx, t, spec, s, base, world, skill, prepare, recorded.Calls, keep, sanitize)
		if s.ID == "stable-1" {
			afterFirst = after
		}
		rep.Results = append(rep.Results, res)
	}
	return rep
}

// judge plays the agent in the scenario's world (what a correct run
// does), replays the skill in an identical world, and compares.
func (b *bench) judge(ctx context.Context, t *testing.T, spec workflowSpec, s scenario, base, world, skill string,
	prepare func() error, recordedCalls []call, keep string, sanitize *strings.Replacer) (result, worldState) {
	res := result{scenario: s}
	errorf := func(format string, args ...any) (result, worldState) {
		msg := fmt.Sprintf(format, args...)
		t.Errorf("%s: %s", s.ID, msg)
		res.Outcome, res.Verdict, res.Note = "bench error", "error", clip(msg, 160)
		return res, nil
	}

	// The oracle: the agent itself in this world.
	if err := prepare(); err != nil {
		return errorf("building the world: %v", err)
	}
	initial, err := snapshot(world)
	if err != nil {
		return errorf("%v", err)
	}
	server, err := b.serverArgv(spec.Server, world)
	if err != nil {
		return errorf("%v", err)
	}
	oracle, err := b.play(ctx, base, spec.Name, world, false, server)
	if err != nil {
		return errorf("the agent: %v", err)
	}
	want, err := snapshot(world)
	if err != nil {
		return errorf("%v", err)
	}
	// The bench checks its own worlds: a stable or irrelevant world must
	// leave the agent's calls as recorded, a relevant drift must change them.
	same := diffCalls(oracle.Calls, recordedCalls) == ""
	switch {
	case (s.Kind == "stable" || s.Kind == "irrelevant") && !same:
		t.Errorf("bench: in %s the agent does not do what it recorded: %s", s.ID, diffCalls(oracle.Calls, recordedCalls))
	case s.Kind == "relevant" && same:
		t.Errorf("bench: drift %s is not relevant: the agent does exactly what it recorded", s.ID)
	}

	// The replay, in an identical world.
	if err := initial.restore(world); err != nil {
		return errorf("building the world again: %v", err)
	}
	spyLog := filepath.Join(base, "spy-"+s.ID+".log")
	run, err := b.replay(ctx, base, skill, spyLog, server)
	if err != nil {
		return errorf("reelier run: %v", err)
	}
	got, err := snapshot(world)
	if err != nil {
		return errorf("%v", err)
	}
	if keep != "" {
		keepBytes(t, keep, sanitize, run.Stdout, fmt.Sprintf("%s.%s.run.json", spec.Name, s.ID))
		keepJSON(t, keep, sanitize, map[string]any{
			"workflow": spec.Name, "scenario": s.ID, "kind": s.Kind, "what": s.What, "expect": s.Expect,
			"received": run.Received, "correct": oracle.Calls, "correctStops": oracle.GaveUp,
		}, fmt.Sprintf("%s.%s.calls.json", spec.Name, s.ID))
	}

	// Notes name the world "<world>"; the same replacement on both sides
	// leaves every comparison as it was.
	short := strings.NewReplacer(world, "<world>")
	received, correct := shorten(short, run.Received), shorten(short, oracle.Calls)
	passed := run.Record != nil && run.Record.Passed && run.Exit == 0
	res.Outcome = outcome(run, short)
	wrong := diffCalls(received, correct)
	if wrong == "" {
		wrong = diffState(got, want)
	}
	if wrong != "" && oracle.GaveUp != "" {
		wrong += " (a correct run stops: " + oracle.GaveUp + ")"
	}
	switch {
	case s.Expect == "pass" && !passed:
		res.Verdict = "false-alarm"
	case s.Expect == "pass" && wrong != "":
		res.Verdict, res.Note = "silent-wrong-pass", wrong
	case s.Expect == "pass":
		res.Verdict = "ok"
	case !passed:
		res.Verdict = "caught"
		// A replay that fails after it already did the wrong thing is
		// still caught, but say so.
		for i, c := range received {
			if i >= len(correct) || !sameCall(c, correct[i]) {
				res.Note = fmt.Sprintf("before failing it sent call %d %s %s, which a correct run does not", i+1, c.Tool, clip(string(c.Args), 80))
				break
			}
		}
	case s.Expect == "fail":
		res.Verdict, res.Note = "silent-wrong-pass", "passed on a world where the workflow cannot truthfully be done again"
	case wrong != "":
		res.Verdict, res.Note = "silent-wrong-pass", wrong
	default:
		res.Verdict = "followed"
	}
	return res, got
}

// outcome says how a replay ended: passed, or the first failed step and
// its first failure.
func outcome(r *replayRun, short *strings.Replacer) string {
	if r.Record == nil {
		return fmt.Sprintf("no run record (exit %d): %s", r.Exit, clip(short.Replace(lastLines(r.Stderr, 3)), 120))
	}
	if r.Record.Passed {
		return "passed"
	}
	for _, st := range r.Record.Steps {
		if st.Outcome == "failed" {
			why := ""
			if len(st.Failures) > 0 {
				why = ": " + st.Failures[0]
			}
			return clip(short.Replace(fmt.Sprintf("failed at step %d%s", st.N, why)), 140)
		}
	}
	return "failed"
}

// shorten returns copies of calls with the replacement made in their
// arguments.
func shorten(r *strings.Replacer, calls []call) []call {
	out := make([]call, len(calls))
	for i, c := range calls {
		out[i] = c
		out[i].Args = json.RawMessage(r.Replace(string(c.Args)))
	}
	return out
}

// gateRank orders the flags a skill can need, mildest first.
func gateRank(needs string) int {
	switch needs {
	case "--yes":
		return 2
	case "--allow-writes":
		return 1
	}
	return 0
}

var effectLine = regexp.MustCompile(`(?m)^- effect: (\S+)`)

// skillShape counts a skill's steps and says which flag its effects need.
func skillShape(src string) (steps int, needs string) {
	needs = "none"
	for _, m := range effectLine.FindAllStringSubmatch(src, -1) {
		steps++
		switch m[1] {
		case "destructive":
			needs = "--yes"
		case "idempotent-write":
			if needs == "none" {
				needs = "--allow-writes"
			}
		}
	}
	return steps, needs
}

func keepFile(t *testing.T, keep string, sanitize *strings.Replacer, path, name string) {
	if keep == "" {
		return
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Errorf("keeping %s: %v", path, err)
		return
	}
	keepBytes(t, keep, sanitize, data, name)
}

func keepBytes(t *testing.T, keep string, sanitize *strings.Replacer, data []byte, name string) {
	if keep == "" {
		return
	}
	if err := os.WriteFile(filepath.Join(keep, name), []byte(sanitize.Replace(string(data))), 0o644); err != nil {
		t.Errorf("keeping %s: %v", name, err)
	}
}
