// Command measure runs one program for the A/B harness (bench/ab):
// measure BIN [ARG…] runs BIN with its stdout discarded and its stderr
// passed through, then prints "WALL_NS CPU_NS MAXRSS_KB EXIT" on stdout:
// CPU is the child's user and system time, which other jobs on a shared
// machine inflate far less than wall time.
//
// The harness runs every program through measure rather than starting it
// itself because a child's peak RSS from wait4 counts the memory of the
// process that forked it until the exec: started from the harness (an MCP
// client, some 30 MB) a hello-world would report 30 MB.
package main

import (
	"fmt"
	"os"
	"os/exec"
	"syscall"
	"time"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: measure BIN [ARG…]")
		os.Exit(2)
	}
	devnull, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		fmt.Fprintln(os.Stderr, "measure:", err)
		os.Exit(2)
	}
	cmd := exec.Command(os.Args[1], os.Args[2:]...)
	cmd.Stdout = devnull
	cmd.Stderr = os.Stderr
	t0 := time.Now()
	err = cmd.Run()
	wall := time.Since(t0)
	if cmd.ProcessState == nil {
		fmt.Fprintln(os.Stderr, "measure:", err)
		os.Exit(2)
	}
	var rss int64
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		rss = ru.Maxrss
	}
	cpu := cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	fmt.Printf("%d %d %d %d\n", wall.Nanoseconds(), cpu.Nanoseconds(), rss, cmd.ProcessState.ExitCode())
}
