package testutil

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

var (
	buildOnce sync.Once
	binPath   string
	buildErr  error
)

// ReelierBinary builds cmd/reelier once per test binary, into a temporary
// folder, and returns its path, for end-to-end tests that need the real
// process.
func ReelierBinary(t testing.TB) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "reelier-bin-")
		if err != nil {
			buildErr = err
			return
		}
		binPath = filepath.Join(dir, "reelier")
		// Built the way the README builds it: static, no cgo.
		cmd := exec.Command("go", "build", "-trimpath", "-o", binPath, "github.com/reelier/reelier/cmd/reelier")
		cmd.Dir = Root()
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			buildErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return binPath
}

var (
	seatbeltOnce sync.Once
	seatbeltErr  error
)

// SeatbeltBinary builds cmd/reelier-seatbelt once per test binary, beside
// the reelier ReelierBinary built (where reelier looks for it first), and
// returns reelier's path: a test that runs reelier under a policy calls
// this instead of ReelierBinary, and its policy goes through the
// hand-off as a user's would.
func SeatbeltBinary(t testing.TB) string {
	t.Helper()
	reelier := ReelierBinary(t)
	seatbeltOnce.Do(func() {
		out := filepath.Join(filepath.Dir(reelier), "reelier-seatbelt")
		cmd := exec.Command("go", "build", "-trimpath", "-o", out, "github.com/reelier/reelier/cmd/reelier-seatbelt")
		cmd.Dir = Root()
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		if b, err := cmd.CombinedOutput(); err != nil {
			seatbeltErr = fmt.Errorf("go build reelier-seatbelt: %v\n%s", err, b)
		}
	})
	if seatbeltErr != nil {
		t.Fatal(seatbeltErr)
	}
	return reelier
}
