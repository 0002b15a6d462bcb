package main

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/reelier/reelier/testkit/skillgen"
)

// scalingBench is the whole-process form of the replay scaling goal
// (runtime's BenchmarkScopeScaling is the in-process one): `reelier run
// SKILL --dry-run` on generated skills of each size in ScalingSteps,
// interleaved with `reelier --version`, and the cost per step of what a
// run adds to start-up — (median of the dry run − median of --version) /
// steps, in wall and CPU time. In one process a skill is parsed once and
// run once, so no size has its tree left warm in the CPU caches by an
// earlier iteration, as a 1k-step skill has in a benchmark loop.
func scalingBench(c Config, b binaries) error {
	sizes := c.ScalingSteps
	if len(sizes) == 0 {
		return nil
	}
	type row struct {
		n   int
		run series
	}
	rows := make([]*row, len(sizes))
	var version series
	for i, n := range sizes {
		path := filepath.Join(c.Work, fmt.Sprintf("scale%d.skill.md", n))
		if err := os.WriteFile(path, skillgen.Skill(n), 0o644); err != nil {
			return err
		}
		rows[i] = &row{n: n}
	}
	load0 := loadAverage()
	for round := 0; round < c.Rounds; round++ {
		progs := []func() error{func() error {
			x, err := runOnce(b.measure, b.reelier, []string{"--version"}, []int{0})
			version = append(version, x)
			return err
		}}
		for _, r := range rows {
			path := filepath.Join(c.Work, fmt.Sprintf("scale%d.skill.md", r.n))
			progs = append(progs, func() error {
				x, err := runOnce(b.measure, b.reelier, []string{"run", path, "--dry-run"}, []int{0})
				r.run = append(r.run, x)
				return err
			})
		}
		if err := interleave(round, progs); err != nil {
			return err
		}
	}
	load1 := loadAverage()
	fmt.Fprintf(c.Out, "\ndry-run scaling: `reelier run SKILL --dry-run` whole process, medians of %d interleaved rounds with `reelier --version`; load average %s before, %s after\n", c.Rounds, load0, load1)
	fmt.Fprintf(c.Out, "per step = (dry run − --version) / steps; growth is against the smallest size; goal: growth ≤ 1.2×, and the largest ≤ 1 s\n\n")
	fmt.Fprintln(c.Out, "| steps | dry run ms | dry run cpu ms | µs/step | cpu µs/step | growth | cpu growth | goal | met |")
	fmt.Fprintln(c.Out, "| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
	vw, vc := version.median(), version.medianCPU()
	perStep := func(d, base time.Duration, n int) float64 {
		return float64(d-base) / float64(time.Microsecond) / float64(n)
	}
	w0, c0 := perStep(rows[0].run.median(), vw, rows[0].n), perStep(rows[0].run.medianCPU(), vc, rows[0].n)
	for i, r := range rows {
		rw, rc := r.run.median(), r.run.medianCPU()
		pw, pc := perStep(rw, vw, r.n), perStep(rc, vc, r.n)
		goal, met := "—", "—"
		if i > 0 {
			goal = "≤ 1.2×"
			met = yes(pw/w0 <= 1.2)
			if i == len(rows)-1 {
				goal += ", ≤ 1 s"
				met = yes(pw/w0 <= 1.2 && rw <= time.Second)
			}
		}
		fmt.Fprintf(c.Out, "| %d | %s | %s | %.2f | %.2f | %.2f× | %.2f× | %s | %s |\n", r.n, ms(rw), ms(rc), pw, pc, pw/w0, pc/c0, goal, met)
	}
	return nil
}
