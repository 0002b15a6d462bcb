package integrations_test

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/reelier/reelier/mcpx"
	"github.com/reelier/reelier/serve"
	"github.com/reelier/reelier/testkit/testutil"
	"go.yaml.in/yaml/v3"
)

// instructionFiles are the agent instruction files and the frontmatter
// keys each agent needs to load them.
var instructionFiles = map[string][]string{
	"claude-code/reelier/SKILL.md": {"name", "description"},
	"cursor/reelier.mdc":           {"description", "alwaysApply"},
	"windsurf/reelier.md":          {"trigger", "description"},
}

// toolName matches a Reelier MCP tool named in prose.
var toolName = regexp.MustCompile("`(reelier_[a-z_]+)`")

// TestInstructionFiles: each file has the frontmatter its agent reads,
// stays within Windsurf's size limit, names only tools that exist (the
// server's, and the recorder's control tools), and is listed in the
// README.
func TestInstructionFiles(t *testing.T) {
	srv, err := serve.New(serve.Options{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	known := append(srv.Tools(), mcpx.ControlTools...)
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	for path, keys := range instructionFiles {
		data, err := os.ReadFile(filepath.FromSlash(path))
		if err != nil {
			t.Fatal(err)
		}
		text := string(data)
		front, body, ok := strings.Cut(strings.TrimPrefix(text, "---\n"), "\n---\n")
		if !strings.HasPrefix(text, "---\n") || !ok {
			t.Errorf("%s: no frontmatter", path)
			continue
		}
		var fm map[string]any
		if err := yaml.Unmarshal([]byte(front), &fm); err != nil {
			t.Errorf("%s: frontmatter: %v", path, err)
		}
		for _, k := range keys {
			if _, ok := fm[k]; !ok {
				t.Errorf("%s: frontmatter lacks %q", path, k)
			}
		}
		if v, ok := fm["alwaysApply"]; ok {
			if _, isBool := v.(bool); !isBool {
				t.Errorf("%s: alwaysApply must be a boolean, got %T", path, v)
			}
		}
		if len(text) > 6000 {
			t.Errorf("%s: %d characters; keep a rule file under 6000", path, len(text))
		}
		for _, m := range toolName.FindAllStringSubmatch(body, -1) {
			if !slices.Contains(known, m[1]) {
				t.Errorf("%s names a tool that does not exist: %s", path, m[1])
			}
		}
		if !strings.Contains(string(readme), "("+path+")") {
			t.Errorf("README.md does not link %s", path)
		}
	}
}

// TestSkillNamesEveryTool: the Claude Code skill teaches every tool the
// server has.
func TestSkillNamesEveryTool(t *testing.T) {
	srv, err := serve.New(serve.Options{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	data, err := os.ReadFile(filepath.Join(testutil.Root(), "integrations", "claude-code", "reelier", "SKILL.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range srv.Tools() {
		if !strings.Contains(string(data), "`"+tool+"`") {
			t.Errorf("SKILL.md never mentions %s", tool)
		}
	}
}
