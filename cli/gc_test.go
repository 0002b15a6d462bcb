package cli

import (
	"os"
	"runtime/debug"
	"testing"
)

// TestGCForFile: files up to oneShotGCFile run at oneShotGCPercent; from
// the first larger file on, the default; GOGC set in the environment is
// left alone.
func TestGCForFile(t *testing.T) {
	if os.Getenv("GOGC") != "" {
		t.Skip("GOGC is set: gcForFile leaves the collector alone")
	}
	prev := debug.SetGCPercent(100)
	t.Cleanup(func() { debug.SetGCPercent(prev); bigFileSeen = false })
	bigFileSeen = false
	steps := []struct {
		size int
		want int
	}{
		{0, oneShotGCPercent},
		{oneShotGCFile, oneShotGCPercent},
		{oneShotGCFile + 1, 100},
		{10, 100},
	}
	for _, s := range steps {
		gcForFile(s.size)
		got := debug.SetGCPercent(-1)
		debug.SetGCPercent(got)
		if got != s.want {
			t.Fatalf("after a file of %d bytes GOGC is %d, want %d", s.size, got, s.want)
		}
	}
	t.Setenv("GOGC", "50")
	bigFileSeen = false
	debug.SetGCPercent(77)
	gcForFile(10)
	if got := debug.SetGCPercent(77); got != 77 {
		t.Fatalf("with GOGC set, gcForFile changed the collector to %d", got)
	}
}
