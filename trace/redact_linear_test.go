package trace

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

// TestRedactLinear: making the text eight times longer at most multiplies
// the time by 40 (linear is 8, quadratic 64, with room for a loaded machine and the collector); a quadratic
// path takes 64. On main `password=`, `?token=a1` and `password is `
// repeated were quadratic (128 KiB: 12.6 s, 7.7 s, 0.7 s).
func TestRedactLinear(t *testing.T) {
	r := &Redactor{}
	for _, a := range adversarial {
		t.Run(a.name, func(t *testing.T) {
			measure := func(n int) time.Duration {
				s := strings.Repeat(a.unit, n/len(a.unit))
				best := time.Duration(1 << 62)
				for range 5 {
					start := time.Now()
					r.String("", s)
					best = min(best, time.Since(start))
				}
				return best
			}
			// A loaded machine can stall one measurement; a quadratic path
			// fails every attempt.
			var small, large time.Duration
			for range 3 {
				small, large = measure(64<<10), measure(512<<10)
				if large <= 40*small || large <= 50*time.Millisecond {
					break
				}
			}
			t.Logf("%s: 64 KiB %v, 512 KiB %v", a.name, small, large)
			if large > 40*small && large > 50*time.Millisecond {
				t.Errorf("%s: 64 KiB took %v, 512 KiB %v: not linear", a.name, small, large)
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
