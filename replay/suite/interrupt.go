package suite

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/reelier/reelier/internal/exitstatus"
)

// StoppingNotice is what the first Ctrl-C (or SIGTERM) prints: the run
// stops — the call in flight is cancelled (MCP: notifications/cancelled;
// HTTP: the request is abandoned) and its step recorded as interrupted in
// flight — and a second one quits at once.
const StoppingNotice = "stopping… (Ctrl-C again to quit at once)"

// interruptible returns a context cancelled by the first SIGINT or
// SIGTERM, which also prints StoppingNotice to errw; a second signal calls
// exit with the interrupted status (130) without waiting for anything.
// stop releases the signals.
func interruptible(ctx context.Context, errw io.Writer, exit func(int)) (context.Context, func()) {
	if exit == nil {
		exit = os.Exit
	}
	ctx, cancel := context.WithCancel(ctx)
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		select {
		case <-sigs:
		case <-done:
			return
		}
		fmt.Fprintln(errw, StoppingNotice)
		cancel()
		select {
		case <-sigs:
			exit(exitstatus.Interrupted)
		case <-done:
		}
	}()
	return ctx, func() {
		signal.Stop(sigs)
		close(done)
		cancel()
	}
}
