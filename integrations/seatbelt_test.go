package integrations_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestCELOnlyInTheSeatbelt holds #34's split: the reelier program links
// no cel-go (its start-up initialises none of it), and policy/engine is
// the one package of the module that imports it, which reelier-seatbelt
// links.
func TestCELOnlyInTheSeatbelt(t *testing.T) {
	deps := func(pkg string) []string {
		cmd := exec.Command("go", "list", "-deps", pkg)
		cmd.Dir = ".."
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("go list -deps %s: %v", pkg, err)
		}
		return strings.Fields(string(out))
	}
	cel := func(list []string) (n int) {
		for _, p := range list {
			if strings.HasPrefix(p, "github.com/google/cel-go/") {
				n++
			}
		}
		return n
	}
	if n := cel(deps("./cmd/reelier")); n != 0 {
		t.Errorf("reelier links %d cel-go packages; the policy engine belongs in reelier-seatbelt", n)
	}
	if n := cel(deps("./cmd/reelier-seatbelt")); n == 0 {
		t.Errorf("reelier-seatbelt links no cel-go: it has no policy engine")
	}
	cmd := exec.Command("go", "list", "-f", `{{.ImportPath}} {{join .Imports " "}}`, "./...")
	cmd.Dir = ".."
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		pkg, imports, _ := strings.Cut(line, " ")
		if strings.Contains(imports, "github.com/google/cel-go/") && pkg != module+"policy/engine" {
			t.Errorf("%s imports cel-go; only policy/engine may", pkg)
		}
	}
}
