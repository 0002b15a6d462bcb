package loader

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/reelier/reelier/internal/exitstatus"
)

func TestExpand(t *testing.T) {
	dir := t.TempDir()
	write := func(rel, content string) string {
		p := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	a := write("skills/a.skill.md", "")
	withSteps := write("agent/SKILL.md", "---\nname: x\n---\n\n### Step 1 — Look\n")
	write("plain/SKILL.md", "---\nname: y\n---\n\nJust instructions.\n")
	write("empty/notes.md", "")

	got, err := Expand([]string{filepath.Join(dir, "skills"), filepath.Join(dir, "agent"), "-", "missing.skill.md"})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{a, withSteps, "-", "missing.skill.md"}; !reflect.DeepEqual(got, want) {
		t.Errorf("Expand = %q, want %q", got, want)
	}
	for _, empty := range []string{"plain", "empty"} {
		_, err := Expand([]string{filepath.Join(dir, empty)})
		if err == nil || exitstatus.Code(err) != exitstatus.Usage || !strings.Contains(err.Error(), "holds no skill to replay") {
			t.Errorf("Expand(%s) = %v, want a usage error", empty, err)
		}
	}
}

func TestLoadStdinAndBefore(t *testing.T) {
	size := -1
	l, err := Load("-", strings.NewReader("not a skill"), func(n int) { size = n })
	if err != nil {
		t.Fatal(err)
	}
	if l.Path != StdinName || size != len("not a skill") || !l.Diags.HasErrors() || FirstError(l.Diags) == "" {
		t.Errorf("Load(-) = %+v (size %d)", l, size)
	}
	if _, err := Load(filepath.Join(t.TempDir(), "none.skill.md"), nil, nil); exitstatus.Code(err) != exitstatus.Usage {
		t.Errorf("a missing file: %v, want a usage error", err)
	}
}
