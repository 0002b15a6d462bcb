package lint

import "github.com/reelier/reelier/lang/ast"

var ruleParseError = &Rule{
	Name:            "parse_error",
	Title:           "The file does not follow the SKILL.md format",
	Category:        CategorySyntax,
	DefaultSeverity: ast.SeverityError,
	Doc: `Every problem the parser finds is reported here, with the parser's
own message and, in the detail, the parser's rejection code (such as
` + "`unrecognized_assert`" + `). A file that does not parse cannot be
replayed, and the rules that read its tree do not run on it: they would
reason about a tree with pieces missing. A rule that reads the text alone
(` + "`control_character`" + `) still does. All of the parser's findings are reported, not
just the first.

This rule is always on and always an error; it cannot be disabled,
re-weighted or silenced with a comment.`,
	Example: `---
name: fetch
description: Fetch a thing
---

### Step 1 — Fetch
- intent: Fetch it
- action: http.get {"url": "https://example.test/a"}
- assert: json.items iss array
- effect: read
`,
	Run: runParseError,
}

func runParseError(p *Pass) {
	for _, d := range p.File.Diags {
		detail := "parser code: " + d.Code
		if d.Detail != "" {
			detail += "\n" + d.Detail
		}
		p.Report(ast.Diagnostic{Range: d.Range, Step: d.Step, Message: d.Message, Detail: detail})
	}
}
