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
