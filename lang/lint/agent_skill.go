package lint

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/reelier/reelier/lang/agentskill"
	"github.com/reelier/reelier/lang/ast"
	"github.com/reelier/reelier/lang/format"
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
"claude"; and a description of 1 to 1024 characters without an XML tag.
Its frontmatter holds only ` + "`name`, `description`, `license`, `allowed-tools`,\n`metadata` and `compatibility`" + `; ` + "`allowed-tools`" + ` is a text or a list,
` + "`metadata`" + ` a map of texts. Other data belongs under ` + "`metadata`" + ` (Reelier's own
keys start with ` + "`reelier-`" + `).

Tools of the format read the frontmatter as YAML, so a value must read
there as the text Reelier reads: ` + "`description: Replays it: 3 steps`" + ` is a
YAML error (": " opens a nested map; Reelier still reads it the original
way), and ` + "`name: 2024`" + ` or ` + "`version: 1.0`" + ` under metadata reads as a number,
not as text. A skill that breaks these rules still replays, but an agent
may not load it.`,
	FixDoc: "The fix replaces an invalid name with one the format accepts (lower case, hyphens for anything else), quotes a value YAML would read as something else, and moves a one-line key the format does not know under `metadata`.",
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

// agentSkillKeys are the top-level keys the Agent Skills format allows.
var agentSkillKeys = []string{"name", "description", "license", "allowed-tools", "metadata", "compatibility"}

func runAgentSkill(p *Pass) {
	fm := p.Skill.Frontmatter
	if fm == nil {
		return
	}
	if e := fm.Lookup("name"); e != nil && e.Kind == ast.ScalarValue && e.Value != "" {
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
	if e := fm.Lookup("description"); e != nil && e.Kind == ast.ScalarValue && e.Value != "" {
		if problems := agentskill.DescriptionProblems(e.Value); len(problems) > 0 {
			p.Reportf(0, e.ValueRange, "the description does not fit the Agent Skills format: %s", strings.Join(problems, "; "))
		}
	}
	for _, e := range fm.Entries {
		p.agentSkillEntry(fm, e)
	}
}

// agentSkillEntry checks one top-level entry against the format: an
// allowed key, the shape the format gives it, and a value that reads in
// YAML as the text it stands for.
func (p *Pass) agentSkillEntry(fm *ast.Frontmatter, e *ast.FrontmatterEntry) {
	switch e.Key {
	case "name", "description", "license", "compatibility":
		if e.Kind != ast.ScalarValue {
			p.Reportf(0, e.ValueRange, "%s is a list or map; the Agent Skills format wants text", e.Key)
			return
		}
		p.textValue(e, e.Key)
	case "allowed-tools":
		switch e.Kind {
		case ast.MapValue:
			p.Reportf(0, e.ValueRange, "allowed-tools is a map; the Agent Skills format wants a text or a list")
		case ast.ListValue:
			for _, it := range e.Items {
				p.textValue(it, "allowed-tools item")
			}
		default:
			p.textValue(e, e.Key)
		}
	case "metadata":
		if e.Kind != ast.MapValue {
			p.Reportf(0, e.ValueRange, "metadata is not a map; the Agent Skills format wants a map of texts")
			return
		}
		for _, it := range e.Items {
			if it.KeyType != "str" {
				p.Reportf(0, it.KeyRange, "the metadata key %s reads as %s in YAML; the Agent Skills format wants text keys", quoted(it.Key), typeName(it.KeyType))
			}
			p.textValue(it, "metadata."+it.Key)
		}
	default:
		d := ast.Diagnostic{
			Range:   e.KeyRange,
			Message: fmt.Sprintf("%s is not an Agent Skills frontmatter key (%s); keep other data under metadata", quoted(e.Key), strings.Join(agentSkillKeys, ", ")),
		}
		if edits := p.moveToMetadata(fm, e); edits != nil {
			d.Fixes = fix("Move "+e.Key+" under metadata", edits...)
		}
		p.Report(d)
	}
}

// textValue reports a scalar that Agent Skills tools, reading YAML, would
// not read as the text Reelier reads: a line YAML cannot read at all (read
// the original way), or a number, boolean or null where text is wanted.
// The fix writes the value so that YAML reads that text.
func (p *Pass) textValue(e *ast.FrontmatterEntry, what string) {
	if e.Kind != ast.ScalarValue || e.Value == "" && e.Type == "null" {
		return
	}
	var msg string
	switch {
	case e.Flat:
		msg = fmt.Sprintf("YAML cannot read the %s line, as Agent Skills tools parse it; Reelier reads it the original way, as %s", what, quoted(e.Value))
		if problems := agentskill.PlainProblems(e.Value); len(problems) > 0 {
			msg += ": " + strings.Join(problems, "; ")
		}
	case e.Type != "str":
		msg = fmt.Sprintf("the %s reads as %s in YAML, as Agent Skills tools parse it, not as text", what, typeName(e.Type))
	default:
		return
	}
	rng := e.ValueRange
	value := format.Scalar(e.Value)
	text := value
	if e.Flat && e.Key != "" {
		// `key:value` needs its blank after the colon too.
		rng = ast.Range{Start: e.KeyRange.End, End: e.ValueRange.End}
		text = ": " + value
	}
	p.Report(ast.Diagnostic{Range: e.ValueRange, Message: msg, Fixes: fix("Write it as "+value, replace(rng, text))})
}

func typeName(t string) string {
	switch t {
	case "int", "float":
		return "a number"
	case "bool":
		return "a boolean"
	case "null":
		return "null"
	case "timestamp":
		return "a date"
	}
	return "a " + t
}

// moveToMetadata returns the edits that move a one-line scalar entry into
// the metadata map: its line deleted, a `  key: value` line added at the
// end of a block metadata map or a new metadata map before the closing
// fence. It returns nil where the move is not that simple.
func (p *Pass) moveToMetadata(fm *ast.Frontmatter, e *ast.FrontmatterEntry) []ast.TextEdit {
	if e.Kind != ast.ScalarValue || e.Range.Start.Line != e.Range.End.Line || e.KeyRange.Start.Column != 1 || fm.Text == "" {
		return nil
	}
	if md := fm.Lookup("metadata"); md != nil && md.Lookup(e.Key) != nil {
		return nil
	}
	eol := p.eol()
	lineStart := int(e.KeyRange.Start.Offset)
	next := p.lineEnd(lineStart)
	if next < len(p.Src) && p.Src[next] == '\r' {
		next++
	}
	if next < len(p.Src) {
		next++
	}
	del := replace(p.span(lineStart, next), "")
	item := "  " + format.Scalar(e.Key) + ": " + format.Scalar(e.Value)
	md := fm.Lookup("metadata")
	switch {
	case md == nil:
		closing := int(fm.Range.End.Offset)
		for closing > 0 && p.Src[closing-1] != '\n' {
			closing--
		}
		return []ast.TextEdit{del, p.insertAt(closing, "metadata:"+eol+item+eol)}
	case md.Kind == ast.MapValue && len(md.Items) > 0 && md.ValueRange.Start.Line != md.KeyRange.Start.Line:
		return []ast.TextEdit{del, p.insertAt(p.lineEnd(int(md.ValueRange.End.Offset)), eol+item)}
	}
	return nil
}

func quoted(s string) string { return fmt.Sprintf("%q", s) }
