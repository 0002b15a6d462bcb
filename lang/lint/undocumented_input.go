package lint

import (
	"fmt"
	"strings"

	"github.com/reelier/reelier/lang/ast"
)

var ruleUndocumentedInput = &Rule{
	Name:            "undocumented_input",
	Title:           "An input variable is not named on the Inputs line",
	Category:        CategoryClarity,
	DefaultSeverity: ast.SeverityWarning,
	Doc: `A ` + "`{{name}}`" + ` that no step binds is an input: the replay needs it passed as
` + "`--var name=…`" + `, or it stops at the first step that uses it. The preamble's
` + "`Inputs:`" + ` line (or an ` + "`Inputs`" + ` heading) is where a reader learns what to pass.
This rule reports each input the Inputs documentation does not mention,
once, at its first use. A name counts as documented when it appears there
as a word, with or without braces.

A name close to one bound earlier is reported by ` + "`unbound_variable`" + ` as a
likely typo instead.`,
	FixDoc: "When the preamble has an `Inputs:` line, the fix adds every undocumented input to it as `{{name}}` (replacing a bare \"none\").",
	Example: `---
name: repo
description: Read a repository
---

# Repository

Inputs: none

### Step 1 — Repository
- intent: Read the repository
- action: http.get {"url": "https://api.github.test/repos/{{owner}}/{{repo}}"}
- assert: status == 200
- effect: read
`,
	Run: runUndocumentedInput,
}

func runUndocumentedInput(p *Pass) {
	f := p.dataflow()
	var first []*unresolvedUse // the first use of each undocumented input
	seen := map[string]bool{}
	for _, u := range f.unresolved {
		if u.suggestion == "" && u.later == nil && !seen[u.hole.Name] {
			seen[u.hole.Name] = true
			first = append(first, u)
		}
	}
	if len(first) == 0 {
		return
	}
	// Every finding offers the same fix, documenting all the inputs at
	// once, so applying any one of them leaves nothing to document.
	var fixes []ast.SuggestedFix
	if f.inputs.valueStart >= 0 {
		holes := make([]string, len(first))
		for i, u := range first {
			holes[i] = "{{" + u.hole.Name + "}}"
		}
		list := strings.Join(holes, ", ")
		fixes = fix("Add "+list+" to the Inputs line", inputsEdit(p, f.inputs, list))
	}
	for _, u := range first {
		d := ast.Diagnostic{Step: u.step.Number, Range: u.hole.Range, Fixes: fixes}
		switch {
		case !f.inputs.found:
			d.Message = fmt.Sprintf("{{%s}} is an input (no step binds it), and the preamble has no Inputs line naming it", u.hole.Name)
		default:
			d.Message = fmt.Sprintf("{{%s}} is an input (no step binds it), but the Inputs documentation does not name it", u.hole.Name)
		}
		p.Report(d)
	}
}

// noneValues are Inputs line texts that say there are no inputs.
var noneValues = map[string]bool{"": true, "none": true, "(none)": true, "-": true, "n/a": true, "(none for this skill)": true}

// inputsEdit adds list (the new `{{name}}`s) to the Inputs line: it
// replaces a value that says "none", and otherwise appends "; list" before
// a final period.
func inputsEdit(p *Pass, doc inputsDoc, list string) ast.TextEdit {
	value := string(p.Src[doc.valueStart:doc.valueEnd])
	if noneValues[strings.ToLower(strings.TrimSuffix(strings.TrimRight(value, "*_ "), "."))] {
		return replace(p.span(doc.valueStart, doc.valueEnd), list)
	}
	at := doc.valueEnd
	if strings.HasSuffix(value, ".") {
		at--
	}
	return p.insertAt(at, "; "+list)
}
