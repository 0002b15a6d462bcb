package redact_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/reelier/reelier/redact"
)

// nested returns text of about n bytes that is the worst case of a search
// for quoted JSON done by trying a decode at every bracket and quote:
// arrays and objects opened and never closed, with a secret-bearing
// object at the very end.
func nested(n int, shape string) string {
	tail := `{"password":"` + password + `"}`
	var unit string
	switch shape {
	case "arrays":
		unit = "["
	case "objects":
		unit = `{"a":`
	case "quotes":
		unit = `"\q`
	case "mixed":
		unit = `[{"k":["x",`
	}
	return "got " + strings.Repeat(unit, (n-len(tail))/len(unit)) + tail
}

// TestTextLinear: a receipt's failure message quoting deeply nested,
// never-closed JSON is scrubbed in time linear in its size — on main a
// 256 KiB one took over a minute (a JSON decode tried at every bracket) —
// and the object at its end still loses its password.
func TestTextLinear(t *testing.T) {
	r := redactor()
	for _, shape := range []string{"arrays", "objects", "quotes", "mixed"} {
		t.Run(shape, func(t *testing.T) {
			in := nested(256<<10, shape)
			start := time.Now()
			got := redact.Text(r, "", in)
			if d := time.Since(start); d > 5*time.Second {
				t.Errorf("256 KiB of %s took %v", shape, d)
			}
			if strings.Contains(got, password) {
				t.Errorf("the password quoted after the %s survived", shape)
			}
		})
	}
}

// BenchmarkTextNested measures Text on nested, never-closed JSON at three
// sizes; time per op should grow with the size, not its square.
func BenchmarkTextNested(b *testing.B) {
	r := redactor()
	for _, shape := range []string{"arrays", "objects", "mixed"} {
		for _, n := range []int{64 << 10, 256 << 10, 1 << 20} {
			in := nested(n, shape)
			b.Run(fmt.Sprintf("%s/%dKiB", shape, n>>10), func(b *testing.B) {
				b.SetBytes(int64(len(in)))
				for b.Loop() {
					redact.Text(r, "", in)
				}
			})
		}
	}
}

// BenchmarkTextClosed measures Text on a deeply nested but valid document
// quoted in prose.
func BenchmarkTextClosed(b *testing.B) {
	r := &redact.Redactor{}
	for _, n := range []int{64 << 10, 256 << 10, 1 << 20} {
		depth := n / 16
		in := "got " + strings.Repeat(`{"a":[`, depth/6) + `"x"` + strings.Repeat("]}", depth/6)
		b.Run(fmt.Sprintf("%dKiB", n>>10), func(b *testing.B) {
			b.SetBytes(int64(len(in)))
			for b.Loop() {
				redact.Text(r, "", in)
			}
		})
	}
}

// TestTextContextCancelled: once the context has ended, TextContext stops
// looking into quoted JSON and says so, but the redactor's own pass has
// still blanked the secrets it finds by shape.
func TestTextContextCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	in := "use " + ghToken + " " + nested(1<<20, "mixed")
	got, err := redact.TextContext(ctx, redactor(), "", in)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
	if strings.Contains(got, ghToken) {
		t.Error("the token survived a cancelled scrub")
	}
	// Not cancelled: the same text is scrubbed whole.
	got, err = redact.TextContext(context.Background(), redactor(), "", in)
	if err != nil || strings.Contains(got, password) {
		t.Errorf("err %v; password kept: %v", err, strings.Contains(got, password))
	}
}
