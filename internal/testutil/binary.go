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
		cmd := exec.Command("go", "build", "-o", binPath, "github.com/reelier/reelier/cmd/reelier")
		cmd.Dir = Root()
		if out, err := cmd.CombinedOutput(); err != nil {
			buildErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return binPath
}
