package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/reelier/reelier/testkit/skillgen"
	"github.com/reelier/reelier/testkit/tracegen"
)

// Config is one harness run.
type Config struct {
	// Rounds is how many times each workload and its limit run, interleaved.
	Rounds int
	// Work is the folder for binaries, inputs and outputs.
	Work string
	// Base, when set, is another reelier binary (an older build) run
	// interleaved with the new one on every workload: an A/B of two builds.
	Base string
	// Only, when set, selects the workloads whose names it matches.
	Only *regexp.Regexp
	// Sizes of the generated inputs.
	DryRunSteps, ParseSteps, TraceSmall, TraceLarge int
	// ScalingSteps are the skill sizes of the dry-run scaling workload
	// (scalingBench), smallest first; none skips it.
	ScalingSteps []int
	// ProxyCalls is the number of timed calls per path; ProxyThroughput
	// the calls made by 16 goroutines for the throughput figure. Zero
	// skips the proxy workload.
	ProxyCalls, ProxyThroughput int
	// Out receives the report.
	Out io.Writer
}

// DefaultConfig is the documented full run.
func DefaultConfig() Config {
	return Config{Rounds: 21, DryRunSteps: 500, ParseSteps: 1000, TraceSmall: 200, TraceLarge: 10000,
		ScalingSteps: []int{1000, 10000, 50000},
		ProxyCalls:   2000, ProxyThroughput: 5000, Out: os.Stdout}
}

// binaries built by Build.
type binaries struct {
	reelier, seatbelt, base, hello, copy, jsonl, relay, echoserver, rawecho, measure string
}

// moduleRoot returns the folder of the go.mod that holds this package.
func moduleRoot() (string, error) {
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOMOD: %w", err)
	}
	mod := strings.TrimSpace(string(out))
	if mod == "" || mod == os.DevNull {
		return "", fmt.Errorf("not inside the reelier module")
	}
	return filepath.Dir(mod), nil
}

// BuildFlags are the flags every program of the harness is built with,
// reelier and the limits alike: a static build (no cgo), no file paths.
var BuildFlags = []string{"build", "-trimpath"}

// build compiles reelier and the limit programs the same way into dir.
func build(dir string) (binaries, error) {
	root, err := moduleRoot()
	if err != nil {
		return binaries{}, err
	}
	b := binaries{
		reelier:    filepath.Join(dir, "reelier"),
		seatbelt:   filepath.Join(dir, "reelier-seatbelt"),
		hello:      filepath.Join(dir, "hello"),
		copy:       filepath.Join(dir, "copy"),
		jsonl:      filepath.Join(dir, "jsonl"),
		relay:      filepath.Join(dir, "relay"),
		echoserver: filepath.Join(dir, "echoserver"),
		rawecho:    filepath.Join(dir, "rawecho"),
		measure:    filepath.Join(dir, "measure"),
	}
	pkgs := [][2]string{
		{b.reelier, "./cmd/reelier"},
		{b.seatbelt, "./cmd/reelier-seatbelt"},
		{b.hello, "./bench/ab/limits/hello"},
		{b.copy, "./bench/ab/limits/copy"},
		{b.jsonl, "./bench/ab/limits/jsonl"},
		{b.relay, "./bench/ab/limits/relay"},
		{b.echoserver, "./bench/ab/limits/echoserver"},
		{b.rawecho, "./bench/ab/limits/rawecho"},
		{b.measure, "./bench/ab/limits/measure"},
	}
	for _, p := range pkgs {
		cmd := exec.Command("go", append(slices.Clone(BuildFlags), "-o", p[0], p[1])...)
		cmd.Dir = root
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			return binaries{}, fmt.Errorf("go build %s: %v\n%s", p[1], err, out)
		}
	}
	return b, nil
}

// inputs are the generated files.
type inputs struct {
	dryRun, parse, traceSmall, traceLarge string
	sizes                                 map[string]int64
}

func writeInputs(dir string, c Config) (inputs, error) {
	in := inputs{
		dryRun:     filepath.Join(dir, fmt.Sprintf("skill%d.skill.md", c.DryRunSteps)),
		parse:      filepath.Join(dir, fmt.Sprintf("skill%d.skill.md", c.ParseSteps)),
		traceSmall: filepath.Join(dir, fmt.Sprintf("trace%d.jsonl", c.TraceSmall)),
		traceLarge: filepath.Join(dir, fmt.Sprintf("trace%d.jsonl", c.TraceLarge)),
		sizes:      map[string]int64{},
	}
	files := []struct {
		path string
		data []byte
	}{
		{in.dryRun, skillgen.Skill(c.DryRunSteps)},
		{in.parse, skillgen.Skill(c.ParseSteps)},
		{in.traceSmall, tracegen.Trace(c.TraceSmall, tracegen.Dense)},
		{in.traceLarge, tracegen.Trace(c.TraceLarge, tracegen.Dense)},
	}
	for _, f := range files {
		if err := os.WriteFile(f.path, f.data, 0o644); err != nil {
			return in, err
		}
		in.sizes[f.path] = int64(len(f.data))
	}
	return in, nil
}

// workload is a reelier command and the limit program it is measured
// against.
type workload struct {
	name string
	// args are reelier's arguments.
	args []string
	// codes are the exit codes that count as a normal run.
	codes []int
	// limit and limitArgs are the limit program and its arguments.
	limit     string
	limitName string
	limitArgs []string
	// goal is the largest acceptable ratio to the limit (0: none);
	// goalMs an absolute target in milliseconds (0: none).
	goal   float64
	goalMs float64
	// input is the file read, for memory per input byte.
	input string
	// memGoal is the largest acceptable peak RSS per input byte (0: none).
	memGoal float64
}

func workloads(b binaries, in inputs, work string) []workload {
	out := func(name string) string { return filepath.Join(work, name) }
	return []workload{
		{name: "startup", args: []string{"--version"}, limit: b.hello, limitName: "hello-world", goal: 2},
		{name: fmt.Sprintf("dry-run %s", filepath.Base(in.dryRun)), args: []string{"run", in.dryRun, "--dry-run"},
			limit: b.copy, limitName: "read+write", limitArgs: []string{in.dryRun, out("copy.out")}, goal: 5, input: in.dryRun},
		{name: fmt.Sprintf("parse %s", filepath.Base(in.parse)), args: []string{"parse", in.parse},
			limit: b.copy, limitName: "read+write", limitArgs: []string{in.parse, out("copy.out")}, goal: 5, input: in.parse, memGoal: 8},
		{name: fmt.Sprintf("lint %s", filepath.Base(in.parse)), args: []string{"lint", in.parse}, codes: []int{0, 1},
			limit: b.copy, limitName: "read+write", limitArgs: []string{in.parse, out("copy.out")}, goal: 5, input: in.parse},
		{name: fmt.Sprintf("fmt --check %s", filepath.Base(in.parse)), args: []string{"fmt", "--check", in.parse},
			limit: b.copy, limitName: "read+write", limitArgs: []string{in.parse, out("copy.out")}, goal: 6, input: in.parse},
		{name: fmt.Sprintf("compile %s", filepath.Base(in.traceSmall)), args: []string{"compile", in.traceSmall, "-o", out("small.skill.md"), "--force"},
			limit: b.jsonl, limitName: "JSONL decode", limitArgs: []string{in.traceSmall, out("small.jsonl")}, goal: 2.5, input: in.traceSmall},
		{name: fmt.Sprintf("compile %s", filepath.Base(in.traceLarge)), args: []string{"compile", in.traceLarge, "-o", out("large.skill.md"), "--force"},
			limit: b.jsonl, limitName: "JSONL decode", limitArgs: []string{in.traceLarge, out("large.jsonl")}, goalMs: 500, input: in.traceLarge, memGoal: 5},
	}
}

// sample is one process run.
type sample struct {
	wall time.Duration
	cpu  time.Duration // user + system
	rss  int64         // peak resident set, bytes
}

// runOnce runs a program through measure (stdout discarded, stderr kept
// for the error message) and returns its wall time and peak RSS.
func runOnce(measure, bin string, args []string, codes []int) (sample, error) {
	cmd := exec.Command(measure, append([]string{bin}, args...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return sample{}, fmt.Errorf("measure %s: %v\n%s", filepath.Base(bin), err, stderr.String())
	}
	var ns, cpu, kb int64
	var code int
	if _, err := fmt.Sscanf(string(out), "%d %d %d %d", &ns, &cpu, &kb, &code); err != nil {
		return sample{}, fmt.Errorf("measure %s printed %q: %v", filepath.Base(bin), out, err)
	}
	if !slices.Contains(codes, code) {
		return sample{}, fmt.Errorf("%s %s: exit %d\n%s", filepath.Base(bin), strings.Join(args, " "), code, stderr.String())
	}
	return sample{wall: time.Duration(ns), cpu: time.Duration(cpu), rss: kb * 1024}, nil
}

// series collects the samples of one program on one workload.
type series []sample

func (s series) median() time.Duration {
	return s.medianOf(func(x sample) time.Duration { return x.wall })
}

func (s series) medianCPU() time.Duration {
	return s.medianOf(func(x sample) time.Duration { return x.cpu })
}

func (s series) medianOf(f func(sample) time.Duration) time.Duration {
	ws := make([]time.Duration, len(s))
	for i, x := range s {
		ws[i] = f(x)
	}
	slices.Sort(ws)
	return ws[len(ws)/2]
}

func (s series) peakRSS() int64 {
	var m int64
	for _, x := range s {
		m = max(m, x.rss)
	}
	return m
}

// result is one workload's measurements.
type result struct {
	w              workload
	reelier, limit series
	base           series
	inputSize      int64
}

// Run builds everything, generates the inputs, runs every workload
// interleaved with its limit (and with Base) for Rounds rounds and writes
// the report to c.Out. It returns an error if a program fails.
func Run(c Config) error {
	if c.Work == "" {
		dir, err := os.MkdirTemp("", "abbench-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		c.Work = dir
	}
	if c.Out == nil {
		c.Out = os.Stdout
	}
	fmt.Fprintf(c.Out, "abbench: building reelier and the limit programs (CGO_ENABLED=0 go %s) in %s\n", strings.Join(BuildFlags, " "), c.Work)
	b, err := build(c.Work)
	if err != nil {
		return err
	}
	b.base = c.Base
	in, err := writeInputs(c.Work, c)
	if err != nil {
		return err
	}
	// The resident memory of a run that does nothing, to tell what a
	// workload adds for its input from what the binary costs anyway.
	idle, err := runOnce(b.measure, b.reelier, []string{"--version"}, []int{0})
	if err != nil {
		return err
	}
	load0 := loadAverage()
	var results []*result
	for _, w := range workloads(b, in, c.Work) {
		if c.Only != nil && !c.Only.MatchString(w.name) {
			continue
		}
		if w.codes == nil {
			w.codes = []int{0}
		}
		results = append(results, &result{w: w, inputSize: in.sizes[w.input]})
	}
	for round := 0; round < c.Rounds; round++ {
		for _, r := range results {
			progs := []func() error{
				func() error { return r.add(&r.reelier, b.measure, b.reelier, r.w.args, r.w.codes) },
				func() error { return r.add(&r.limit, b.measure, r.w.limit, r.w.limitArgs, []int{0}) },
			}
			if b.base != "" {
				progs = append(progs, func() error { return r.add(&r.base, b.measure, b.base, r.w.args, r.w.codes) })
			}
			if err := interleave(round, progs); err != nil {
				return err
			}
		}
	}
	load1 := loadAverage()
	printTable(c.Out, results, b.base != "", c.Rounds, load0, load1, idle.rss)
	if c.Only == nil || c.Only.MatchString("scaling") {
		if err := scalingBench(c, b); err != nil {
			return fmt.Errorf("scaling: %w", err)
		}
	}
	if c.ProxyCalls > 0 && (c.Only == nil || c.Only.MatchString("proxy")) {
		if err := proxyBench(c, b); err != nil {
			return fmt.Errorf("proxy: %w", err)
		}
	}
	if c.Only == nil || c.Only.MatchString("handoff") {
		if err := handoffBench(c, b); err != nil {
			return fmt.Errorf("handoff: %w", err)
		}
	}
	return nil
}

func (r *result) add(s *series, measure, bin string, args []string, codes []int) error {
	x, err := runOnce(measure, bin, args, codes)
	if err != nil {
		return err
	}
	*s = append(*s, x)
	return nil
}

// loadAverage returns the first line of /proc/loadavg, or "?".
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "?"
	}
	return strings.Join(f[:3], " ")
}

func ms(d time.Duration) string { return fmt.Sprintf("%.2f", float64(d)/float64(time.Millisecond)) }

func mb(n int64) string { return fmt.Sprintf("%.1f", float64(n)/(1<<20)) }

func printTable(w io.Writer, results []*result, withBase bool, rounds int, load0, load1 string, idle int64) {
	fmt.Fprintf(w, "\nmedians of %d interleaved rounds; load average %s before, %s after\n", rounds, load0, load1)
	fmt.Fprintf(w, "RSS / input: peak RSS over the input's size; (RSS − idle) / input leaves out the %s MB of `reelier --version`\n\n", mb(idle))
	fmt.Fprintf(w, "ratio and met are on wall time; cpu ratio is the same on user+system CPU time, which other jobs on the machine inflate less\n\n")
	head := "| workload | reelier ms | limit | limit ms | ratio | goal | met | cpu ms | limit cpu ms | cpu ratio | peak RSS MB | RSS / input | (RSS − idle) / input |"
	rule := "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"
	if withBase {
		head += " base ms | new / base | base cpu ms | new / base cpu |"
		rule += " --- | --- | --- | --- |"
	}
	fmt.Fprintln(w, head)
	fmt.Fprintln(w, rule)
	for _, r := range results {
		rm, lm := r.reelier.median(), r.limit.median()
		ratio := float64(rm) / float64(lm)
		goal, met := "—", "—"
		switch {
		case r.w.goal > 0:
			goal = fmt.Sprintf("≤ %.1f×", r.w.goal)
			met = yes(ratio <= r.w.goal)
		case r.w.goalMs > 0:
			goal = fmt.Sprintf("≤ %.0f ms", r.w.goalMs)
			met = yes(float64(rm)/float64(time.Millisecond) <= r.w.goalMs)
		}
		perInput, added := "—", "—"
		if r.inputSize > 0 {
			perInput = fmt.Sprintf("%.1f×", float64(r.reelier.peakRSS())/float64(r.inputSize))
			added = fmt.Sprintf("%.1f×", float64(r.reelier.peakRSS()-idle)/float64(r.inputSize))
			if r.w.memGoal > 0 {
				perInput += fmt.Sprintf(" (goal ≤ %.0f×)", r.w.memGoal)
			}
		}
		rc, lc := r.reelier.medianCPU(), r.limit.medianCPU()
		fmt.Fprintf(w, "| %s | %s | %s | %s | %.2f× | %s | %s | %s | %s | %.2f× | %s | %s | %s |", r.w.name, ms(rm), r.w.limitName, ms(lm), ratio, goal, met,
			ms(rc), ms(lc), float64(rc)/float64(max(lc, time.Microsecond)), mb(r.reelier.peakRSS()), perInput, added)
		if withBase {
			bm, bc := r.base.median(), r.base.medianCPU()
			fmt.Fprintf(w, " %s | %.2f× | %s | %.2f× |", ms(bm), float64(rm)/float64(bm), ms(bc), float64(rc)/float64(max(bc, time.Microsecond)))
		}
		fmt.Fprintln(w)
	}
}

func yes(ok bool) string {
	if ok {
		return "yes"
	}
	return "no"
}

// interleave runs one round of progs: in order on even rounds, reversed on
// odd ones, so that no program always runs on a cache another warmed. It
// stops at the first error.
func interleave(round int, progs []func() error) error {
	if round%2 == 1 {
		slices.Reverse(progs)
	}
	for _, p := range progs {
		if err := p(); err != nil {
			return err
		}
	}
	return nil
}
