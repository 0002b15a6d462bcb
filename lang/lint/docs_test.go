package lint

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/reelier/reelier/lang/ast"
	"github.com/reelier/reelier/lang/format"
	"github.com/sebdah/goldie/v2"
)

// TestDocs fails when docs/lint.md is not what the rules generate.
// Regenerate it with: go test ./lang/lint -run TestDocs -update
func TestDocs(t *testing.T) {
	goldie.New(t, goldie.WithFixtureDir("../../docs"), goldie.WithNameSuffix(".md")).Assert(t, "lint", generateDocs(t))
}

// TestExamples checks that every rule's documented example draws at least
// one finding of the rule, and that its fixed text parses and is canonical.
func TestExamples(t *testing.T) {
	for _, r := range All() {
		d := onlyRule(t, r.Name)
		f := ParseFile("example.skill.md", []byte(r.Example))
		n := 0
		for _, dg := range d.Run(f) {
			if dg.Code == r.Name {
				n++
			}
		}
		if n == 0 {
			t.Errorf("%s: the example draws no finding", r.Name)
		}
		res := d.Fix(f)
		if res.Changed() {
			checkFixed(t, d, r.Name, res.Src)
		}
		if res.Changed() != (r.FixDoc != "") {
			t.Errorf("%s: the example's fix applies = %v, but FixDoc is %q", r.Name, res.Changed(), r.FixDoc)
		}
	}
}

const docsIntro = `# Lint rules

<!-- Generated from the rules in lint/ by ` + "`go test ./lang/lint -run TestDocs -update`" + `. Do not edit. -->

` + "`reelier lint`" + ` reads skills and reports what is likely to break a replay
before it runs. Each finding names its rule; this page explains every rule,
shows an example, and says what ` + "`--fix`" + ` does about it.

    reelier lint [path…] [--fix] [--format text|json|sarif|github]
                 [--enable RULE]… [--disable RULE]… [--config FILE]

With no path, the current directory is searched for ` + "`*.skill.md`" + ` files; ` + "`-`" + `
reads standard input. The exit status is 0 when no error-severity finding
remains, 1 when one does, and 2 when a file does not parse (its parse
errors are reported like any finding; ` + "`parse`, `fmt` and `run`" + ` exit 2 for
such a file too) or on a usage error (an unknown rule or format, an
unreadable file, a bad configuration).

## Output formats

Every format gives the same 1-based lines and columns, and a column counts
characters (Unicode code points), the unit editors show: ` + "`é`" + `, ` + "`中`" + `, ` + "`😀`" + ` and a
tab are one column each.

- ` + "`text`" + ` (default): one finding per line, sorted by file and position —
  ` + "`path:line:col: severity: step N: message [rule]`" + `, with any detail on
  indented lines below.
- ` + "`json`" + `: one document, ` + "`{\"diagnostics\": [...]}`" + `, each finding with its file,
  start and end line and column, severity, rule, step, message, detail,
  documentation URL and suggested fixes (text edits with byte offsets as
  well as lines and columns).
- ` + "`sarif`" + `: SARIF 2.1.0 with one run whose driver lists the rules that ran at
  their configured level, for code-scanning upload. The run declares its
  column unit (` + "`\"columnKind\": \"unicodeCodePoints\"`" + `).
- ` + "`github`" + `: GitHub Actions workflow commands (` + "`::error file=…,line=…,col=…::…`" + `),
  which annotate the lines of a pull request.

## Fixes

` + "`--fix`" + ` applies the first suggested fix of every finding whose edits do not
overlap another's, re-parses the file, prints it in canonical form (as
` + "`reelier fmt`" + ` would) and writes it atomically. It repeats until nothing is
left to fix — replacing a secret with a variable leaves an input to
document, for example — so a second ` + "`--fix`" + ` changes nothing. A fix whose
result would not parse is never written; it is reported as an error naming
the rule, as a bug in that rule. A file that does not parse is not fixed.
The file is written under the lock heal write-back takes, and fixed as it
is once the lock is held: a heal written since lint read it is kept, not
overwritten. A symbolic link is followed and its target rewritten (the
link stays a link); a read-only file is not rewritten.

## Configuration

Every rule is on at its default severity. ` + "`--disable RULE`" + ` and ` + "`--enable RULE`" + `
switch rules off and on (` + "`all`" + ` stands for every rule, and a named rule
beats ` + "`all`" + `, so ` + "`--disable all --enable unbound_variable`" + ` runs one rule). A
project can keep settings in ` + "`.reelier/lint.toml`" + `, found in the current
directory or the nearest parent that has one (or named with ` + "`--config`" + `);
flags win over the file:

` + "```toml" + `
# .reelier/lint.toml
disable = ["drift_index"]        # rules to switch off ("all" for every rule)
enable  = []                     # rules to switch back on
[severity]                       # error, warning, info or hint
unused_bind  = "error"
date_literal = "info"
` + "```" + `

Unknown rule names, keys and severities are errors. ` + "`parse_error`" + ` cannot be
disabled or re-weighted.

## Silencing a finding

An HTML comment alone on the line before a finding silences it; name one or
more rules, or none to silence every rule on that line:

` + "```markdown" + `
<!-- reelier:ignore date_literal -->
- action: list_bookings {"since": "2020-01-01"}
` + "```" + `

Inside a step the comment is a prose line, which the formatter keeps.
Before a step header it is ordinary Markdown. Parse errors cannot be
silenced.

## Rules

`

// generateDocs renders docs/lint.md: the introduction, a table of the
// rules, and a section per rule with its example run through the rule.
func generateDocs(t *testing.T) []byte {
	var b bytes.Buffer
	b.WriteString(docsIntro)
	b.WriteString("| rule | category | default | fix | what it finds |\n| --- | --- | --- | --- | --- |\n")
	for _, r := range All() {
		fixes := "—"
		if r.FixDoc != "" {
			fixes = "yes"
		}
		fmt.Fprintf(&b, "| [`%s`](#%s) | %s | %s | %s | %s |\n", r.Name, r.Name, r.Category, r.DefaultSeverity, fixes, r.Title)
	}
	for _, r := range All() {
		writeRuleDoc(t, &b, r)
	}
	return b.Bytes()
}

func writeRuleDoc(t *testing.T, b *bytes.Buffer, r *Rule) {
	d := onlyRule(t, r.Name)
	f := ParseFile("example.skill.md", []byte(r.Example))
	fmt.Fprintf(b, "\n## %s\n\n**%s.** Category: %s. Default severity: %s.\n\n%s\n\n", r.Name, r.Title, r.Category, r.DefaultSeverity, strings.TrimSpace(r.Doc))
	fmt.Fprintf(b, "**Example** (linted as if today were %s):\n\n```markdown\n%s```\n\n", testToday.Format("2006-01-02"), r.Example)
	flags := "--disable all --enable " + r.Name + " "
	if r == ruleParseError {
		flags = "" // parse_error always runs
	}
	fmt.Fprintf(b, "```text\n$ reelier lint %sexample.skill.md\n", flags)
	var diags ast.Diagnostics
	for _, dg := range d.Run(f) {
		if dg.Code == r.Name {
			diags = append(diags, dg)
		}
	}
	for _, dg := range diags {
		b.WriteString(dg.String() + "\n")
	}
	b.WriteString("```\n")
	if r.FixDoc == "" {
		b.WriteString("\n**Fix:** none; the finding needs a decision only the author can make.\n")
		return
	}
	fmt.Fprintf(b, "\n**Fix:** %s\n\n```diff\n%s```\n", r.FixDoc, format.Diff("example.skill.md", f.Src, d.Fix(f).Src))
}
