package lint

import (
	"github.com/reelier/reelier/lang/ast"
	"github.com/reelier/reelier/lang/tooldef"
)

var ruleToolSignature = &Rule{
	Name:            "tool_signature",
	Title:           "A reelier-tools signature line does not read",
	Category:        CategoryCorrectness,
	DefaultSeverity: ast.SeverityError,
	Doc: "A compiled skill keeps, under `metadata: reelier-tools`, one line per MCP tool its steps call: " + `
the arguments' names, types and requiredness, the digests of the input and
output schemas and the annotation hints, for example
` + "`search_nodes(query: string, limit?: integer) in=1a2b3c4d hints=readOnly`" + `.
Before step 1, ` + "`reelier run`" + ` compares them with what the servers offer now
and stops on a difference, naming what changed. A line that does not
read cannot be compared, so ` + "`reelier run`" + ` refuses the skill (exit 2) at
that line. Compile the skill again from its trace, or delete the key to
replay without the check.`,
	Example: `---
name: search
description: Search the graph
metadata:
  reelier-tools: |-
    search_nodes(query string) in=1a2b3c4d hints=readOnly
---

### Step 1 — Search
- intent: Find the node
- action: search_nodes {"query": "ada"}
- assert: status == 200
- effect: read
`,
	Run: runToolSignature,
}

func runToolSignature(p *Pass) {
	_, _, problems := tooldef.FromSkill(p.Skill)
	for _, pr := range problems {
		p.Reportf(0, ast.Range{Start: pr.Pos, End: pr.Pos}, "metadata %s: %s", tooldef.MetadataKey, pr.Msg)
	}
}
