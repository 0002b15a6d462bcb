package lint

import (
	"strings"

	"github.com/reelier/reelier/lang/ast"
)

var ruleDuplicateTitle = &Rule{
	Name:            "duplicate_title",
	Title:           "Two steps have the same title",
	Category:        CategoryClarity,
	DefaultSeverity: ast.SeverityWarning,
	Doc: `Step titles are how receipts, run records and the changelog name a step to
a person ("step 4 (Fetch the order) failed"). Two steps with one title make
those reports ambiguous, and usually mean a copied step whose title was not
updated. Titles are compared ignoring case and surrounding blanks.`,
	Example: `---
name: twice
description: Fetch two things
---

### Step 1 — Fetch
- intent: Fetch the first thing
- action: http.get {"url": "https://api.example.test/a"}
- assert: status == 200
- effect: read

### Step 2 — Fetch
- intent: Fetch the second thing
- action: http.get {"url": "https://api.example.test/b"}
- assert: status == 200
- effect: read
`,
	Run: runDuplicateTitle,
}

func runDuplicateTitle(p *Pass) {
	first := make(map[string]*ast.Step, len(p.Skill.Steps))
	for _, st := range p.Skill.Steps {
		key := strings.ToLower(strings.TrimSpace(st.Title))
		if prev, ok := first[key]; ok {
			p.Reportf(st.Number, st.TitleRange, "step %d has the same title as step %d: %q", st.Number, prev.Number, st.Title)
			continue
		}
		first[key] = st
	}
}
