package lint

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/reelier/reelier/ast"
	"github.com/reelier/reelier/internal/agentskill"
)

var ruleAgentSkill = &Rule{
	Name:            "agent_skill",
	Title:           "The name or description breaks the Agent Skills format",
	Category:        CategoryClarity,
	DefaultSeverity: ast.SeverityWarning,
	Doc: `A Reelier skill is also an Agent Skill (agentskills.io): a folder holding
` + "`SKILL.md`" + ` that an agent such as Claude Code loads by its name and
description. The format allows a name of 1 to 64 lower-case letters, digits
and single hyphens (not at either end), equal to the skill's folder name
when the file is ` + "`SKILL.md`" + `, without an XML tag or the words "anthropic" or
"claude"; and a description of 1 to 1024 characters without an XML tag. Tools of
the format read the frontmatter as YAML, so a value must also read there
as the plain text it is: ` + "`description: Replays it: 3 steps`" + ` is a YAML
error (": " opens a nested map), and ` + "`name: 2024`" + ` or ` + "`description: true`" + ` reads
as a number or a boolean, not as text. A skill that breaks them still replays,
but an agent will not load it.`,
	FixDoc: "The fix replaces an invalid name with one the format accepts (lower case, hyphens for anything else).",
	Example: `---
name: Weekly_Bookings
description: List this week's bookings
---

### Step 1 — Bookings
- intent: List this week's bookings
- action: http.get {"url": "https://api.example.test/bookings"}
- assert: status == 200
- effect: read
`,
	Run: runAgentSkill,
}

func runAgentSkill(p *Pass) {
	fm := p.Skill.Frontmatter
	if e := fm.Lookup("name"); e != nil && e.Value != "" {
		if problems := agentskill.NameProblems(e.Value); len(problems) > 0 {
			d := ast.Diagnostic{Range: e.ValueRange, Message: fmt.Sprintf("%s is not an Agent Skills name: %s", quoted(e.Value), strings.Join(problems, "; "))}
			if fixed := agentskill.Name(e.Value); fixed != "" && fixed != e.Value {
				d.Fixes = fix("Rename to "+fixed, replace(e.ValueRange, fixed))
			}
			p.Report(d)
		}
		if p.File != nil && filepath.Base(p.File.Name) == "SKILL.md" {
			if dir := filepath.Base(filepath.Dir(p.File.Name)); dir != "." && dir != e.Value {
				p.Reportf(0, e.ValueRange, "%s differs from the skill's folder %s; an Agent Skill's name is its folder's", quoted(e.Value), quoted(dir))
			}
		}
	}
	for _, key := range []string{"name", "description"} {
		if e := fm.Lookup(key); e != nil && e.Value != "" {
			if problems := agentskill.PlainProblems(e.Value); len(problems) > 0 {
				p.Reportf(0, e.ValueRange, "the %s does not read as plain text in YAML, as Agent Skills tools parse it: %s", key, strings.Join(problems, "; "))
			}
		}
	}
	if e := fm.Lookup("description"); e != nil && e.Value != "" {
		if problems := agentskill.DescriptionProblems(e.Value); len(problems) > 0 {
			p.Reportf(0, e.ValueRange, "the description does not fit the Agent Skills format: %s", strings.Join(problems, "; "))
		}
	}
}

func quoted(s string) string { return fmt.Sprintf("%q", s) }
