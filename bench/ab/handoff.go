package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"time"
)

// handoffPolicy is the policy of the hand-off workload: a few rules, none
// of which the start-up evaluates.
const handoffPolicy = `rules:
  - name: no-deletes
    when: effect == "destructive"
    action: deny
  - name: rehearse
    when: has(args.dry) && args.dry == true
    action: dry-run
`

// handoffBench is the one-time cost of the seatbelt's hand-off (#34):
// whole `reelier mcp` processes in front of rawecho, each timed from its
// start to the initialize response its first request gets, interleaved
// for Rounds rounds — without a policy (nothing handed off), with one
// (reelier execs reelier-seatbelt, which loads the policy), and
// reelier-seatbelt started directly with the same policy (the same work
// without the exec), so the hand-off's own cost is the difference of the
// last two; with -base, the older reelier with and without the policy.
func handoffBench(c Config, b binaries) error {
	pol := filepath.Join(c.Work, "handoff-policy.yaml")
	if err := os.WriteFile(pol, []byte(handoffPolicy), 0o644); err != nil {
		return err
	}
	traces := filepath.Join(c.Work, "handoff-traces")
	type path struct {
		name string
		bin  string
		args []string
		lat  []time.Duration
	}
	mcp := []string{"mcp", "--wrap", b.rawecho, "--trace-dir", traces}
	withPolicy := append(slices.Clone(mcp), "--policy", pol)
	paths := []*path{
		{name: "reelier mcp, no policy", bin: b.reelier, args: mcp},
		{name: "reelier mcp --policy (hand-off to reelier-seatbelt)", bin: b.reelier, args: withPolicy},
		{name: "reelier-seatbelt mcp --policy (no hand-off)", bin: b.seatbelt, args: withPolicy},
	}
	if b.base != "" {
		paths = append(paths,
			&path{name: "base mcp, no policy", bin: b.base, args: mcp},
			&path{name: "base mcp --policy", bin: b.base, args: withPolicy})
	}
	ctx := context.Background()
	load0 := loadAverage()
	for round := 0; round < c.Rounds; round++ {
		order := slices.Clone(paths)
		if round%2 == 1 {
			slices.Reverse(order)
		}
		for _, p := range order {
			cmd := exec.Command(p.bin, p.args...)
			// No REELIER_SEATBELT from the environment: reelier finds the
			// program beside itself, as an installed one would.
			cmd.Env = append(os.Environ(), "REELIER_SEATBELT=")
			t0 := time.Now()
			cl, err := connectRaw(ctx, cmd)
			if err != nil {
				return fmt.Errorf("%s: %w", p.name, err)
			}
			p.lat = append(p.lat, time.Since(t0))
			cl.close()
		}
	}
	fmt.Fprintf(c.Out, "\nhand-off: %d interleaved rounds, each a whole `reelier mcp --wrap rawecho` process timed from its start to the answer to initialize; load average %s → %s\n\n", c.Rounds, load0, loadAverage())
	fmt.Fprintln(c.Out, "| path | p25 ms | median ms | p75 ms |")
	fmt.Fprintln(c.Out, "| --- | --- | --- | --- |")
	for _, p := range paths {
		fmt.Fprintf(c.Out, "| %s | %.2f | %.2f | %.2f |\n", p.name, msf(percentile(p.lat, 25)), msf(percentile(p.lat, 50)), msf(percentile(p.lat, 75)))
	}
	return nil
}
