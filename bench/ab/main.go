// Command abbench is the whole-process A/B harness of issue #20
// (BENCHMARKS.md, "Whole-process A/B"). It builds reelier and the limit
// programs the same way (CGO_ENABLED=0, -trimpath), generates the inputs,
// runs each workload interleaved with its limit program for a number of
// rounds and prints medians, ratios and peak RSS, then the dry run's cost
// per step at 1k, 10k and 50k steps (scaling.go), then the proxy's added
// latency and recording throughput on a stdio server: with the MCP Go
// SDK's client and test server, on the client's default protocol revision
// (2026-07-28, which the proxy serves through the SDK) and on 2025-11-25
// (its fast path), and with a raw JSON-RPC client and the limit server
// rawecho, whose own cost is next to nothing (see proxy.go).
//
// Last, the one-time cost of the seatbelt's hand-off to reelier-seatbelt
// on a proxy's start (handoff.go).
//
//	go run ./bench/ab [-rounds 21] [-base OLD-REELIER] [-only REGEXP]
package main

import (
	"flag"
	"fmt"
	"os"
	"regexp"
)

func main() {
	c := DefaultConfig()
	flag.IntVar(&c.Rounds, "rounds", c.Rounds, "interleaved rounds per workload")
	flag.StringVar(&c.Work, "work", "", "folder for binaries, inputs and outputs (default: a temporary one, removed)")
	flag.StringVar(&c.Base, "base", "", "another reelier binary to run interleaved as the A of an A/B")
	only := flag.String("only", "", "run only the workloads whose names match this regular expression (\"proxy\" for the proxy, \"scaling\" for the dry-run scaling, \"handoff\" for the seatbelt's hand-off)")
	flag.IntVar(&c.ProxyCalls, "proxy-calls", c.ProxyCalls, "timed calls per proxy path (0 skips the proxy)")
	flag.IntVar(&c.ProxyThroughput, "proxy-throughput", c.ProxyThroughput, "calls for the throughput figure")
	flag.Parse()
	if *only != "" {
		re, err := regexp.Compile(*only)
		if err != nil {
			fmt.Fprintln(os.Stderr, "abbench: -only:", err)
			os.Exit(2)
		}
		c.Only = re
	}
	if c.Rounds < 1 {
		fmt.Fprintln(os.Stderr, "abbench: -rounds must be at least 1")
		os.Exit(2)
	}
	if err := Run(c); err != nil {
		fmt.Fprintln(os.Stderr, "abbench:", err)
		os.Exit(1)
	}
}
