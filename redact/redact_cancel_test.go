package redact

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// countdownCtx is a context that ends after its Err has been asked n
// times: it tells whether, and how often, a search looks at its context.
type countdownCtx struct {
	context.Context
	left  atomic.Int64
	asked atomic.Int64
}

func newCountdown(n int64) *countdownCtx {
	c := &countdownCtx{Context: context.Background()}
	c.left.Store(n)
	return c
}

func (c *countdownCtx) Err() error {
	c.asked.Add(1)
	if c.left.Add(-1) < 0 {
		return context.Canceled
	}
	return nil
}

// TestRedactHonoursCancellation: the redactor's own pass looks at its
// context inside a long string — not only before or after it — and when
// the context ends it gives up with the context's error and never hands
// out the text it did not finish searching.
func TestRedactHonoursCancellation(t *testing.T) {
	r := &Redactor{}
	secret := "sk-proj-" + strings.Repeat("Zq9", 12)
	long := strings.Repeat("password=", (4<<20)/9) + " " + secret
	doc := `{"a":"` + long + `"}`
	tests := []struct {
		name string
		run  func(ctx context.Context) (string, error)
	}{
		{"StringContext", func(ctx context.Context) (string, error) { return r.StringContext(ctx, "", long) }},
		{"JSONContext", func(ctx context.Context) (string, error) {
			out, err := r.JSONContext(ctx, []byte(doc))
			return string(out), err
		}},
		{"JSON quoted in a string", func(ctx context.Context) (string, error) {
			return r.StringContext(ctx, "", doc)
		}},
	}
	for _, tc := range tests {
		// A context that is still going changes nothing.
		got, err := tc.run(context.Background())
		if err != nil || strings.Contains(got, secret) {
			t.Errorf("%s, live context: error %v, secret kept %v", tc.name, err, strings.Contains(got, secret))
		}
		// One that ends after a few looks: the 4 MiB string is searched
		// with a look every 64 KiB, so the search stops inside it.
		ctx := newCountdown(3)
		got, err = tc.run(ctx)
		if !errors.Is(err, context.Canceled) {
			t.Errorf("%s: error %v, want the context's", tc.name, err)
		}
		if strings.Contains(got, "password=") || strings.Contains(got, secret) {
			t.Errorf("%s: handed out text it did not finish searching (%d bytes)", tc.name, len(got))
		}
		if ctx.asked.Load() < 4 {
			t.Errorf("%s: looked at its context %d times", tc.name, ctx.asked.Load())
		}
	}
}

// TestRedactCancelReturnsPromptly: a cancelled context stops the search of
// 32 MiB of adversarial text (about 4 s of work here) well before its end. A
// hang guard, not a speed measure.
func TestRedactCancelReturnsPromptly(t *testing.T) {
	if testing.Short() {
		t.Skip("redacts 32 MiB")
	}
	s := strings.Repeat("password=", (32<<20)/9)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := (&Redactor{}).StringContext(ctx, "", s)
		done <- err
	}()
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("error %v", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the search went on after its context ended")
	}
}
