package redact

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// adversarial are repeated units that set off the detectors at every
// position: each must be redacted in time linear in the text's size.
var adversarial = []struct{ name, unit string }{
	{"bearer", "Bearer "},
	{"basic", "Basic QQ"},
	{"scheme", "a://"},
	{"url-auth", "a://u:"},
	{"named", "password="},
	{"header", "Authorization: "},
	{"flag", "--api-key "},
	{"is", "password is "},
	{"query", "?token=a1"},
	{"pem", "-----BEGIN "},
	{"aws-id", "AKIA"},
	{"sk", "sk-"},
	{"github", "ghp_"},
	{"jwt", "eyJ."},
	{"hex", "0123456789abcdef"},
	{"b64", "QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVo"},
	{"percent", "%41%"},
	{"colons", ":"},
	{"quotes", `"a":"`},
	{"json-in-string", `{\"a\":`},
}

// TestRedactAdversarialFinishes is a hang guard, not a speed measure
// (BenchmarkRedactAdversarial gives the figures, BENCHMARKS.md the
// linearity): each adversarial unit repeated to 1 MiB must be redacted
// before a deadline a hundred times the benchmark's slowest figure. On
// main, before the detectors kept their cursors, `password=`, `?token=a1`
// and `password is ` repeated to 128 KiB took 12.6 s, 7.7 s and 0.7 s —
// at 1 MiB they ran for minutes, which this still catches on any machine.
func TestRedactAdversarialFinishes(t *testing.T) {
	if testing.Short() {
		t.Skip("redacts 20 MiB of adversarial text")
	}
	r := &Redactor{}
	for _, a := range adversarial {
		t.Run(a.name, func(t *testing.T) {
			s := strings.Repeat(a.unit, (1<<20)/len(a.unit))
			done := make(chan struct{})
			go func() {
				r.String("", s)
				close(done)
			}()
			select {
			case <-done:
			case <-time.After(30 * time.Second):
				t.Fatalf("%s: redacting 1 MiB did not finish in 30 s", a.name)
			}
		})
	}
}

func BenchmarkRedactAdversarial(b *testing.B) {
	r := &Redactor{}
	for _, a := range adversarial {
		for _, n := range []int{64 << 10, 256 << 10, 1 << 20} {
			s := strings.Repeat(a.unit, n/len(a.unit))
			b.Run(fmt.Sprintf("%s/%dKiB", a.name, n>>10), func(b *testing.B) {
				b.SetBytes(int64(len(s)))
				for b.Loop() {
					r.String("", s)
				}
			})
		}
	}
}
