package grammar_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/reelier/reelier/lang/grammar"
	"github.com/reelier/reelier/testkit/skillgen"
)

// TestHostileInputs feeds inputs that break naive parsers. Each must come
// back with a tree and diagnostics (or none), never a panic; the test's
// own timeout catches a hang or a quadratic blow-up.
func TestHostileInputs(t *testing.T) {
	big := skillgen.Skill(20000) // about 10 MB
	header := "---\nname: n\ndescription: d\n---\n### Step 1 — T\n- intent: i\n- effect: read\n"
	tests := map[string][]byte{
		"ten megabytes":          big,
		"binary":                 bytes.Repeat([]byte{0, 0xff, 0xfe, '\n', 0x80, '-', '#'}, 100000),
		"one huge line":          []byte(header + "- action: t {\"a\": \"" + strings.Repeat("x", 5<<20) + "\"}\n"),
		"huge assert":            []byte(header + "- action: t {}\n- assert: body contains \"" + strings.Repeat("\"", 1<<20) + "\"\n"),
		"deep json":              []byte(header + "- action: t " + strings.Repeat("[", 1<<20) + "\n"),
		"brace storm":            []byte(header + "- action: t {\"a\": \"" + strings.Repeat("{{", 1<<19) + "x}}\"}\n"),
		"many fenced headers":    []byte("---\nname: n\ndescription: d\n---\n```\n" + strings.Repeat("### Step 1 — fake\n", 50000) + "```\n### Step 1 — Real\n- intent: i\n- action: t {}\n- effect: read\n"),
		"only dashes":            bytes.Repeat([]byte("---\n"), 100000),
		"crlf and cr mixed":      []byte("---\r\nname: n\rdescription: d\r\n---\r\n### Step 1 — T\r\n- intent: i\r- action: t {}\r\n- effect: read"),
		"bom then nothing":       {0xEF, 0xBB, 0xBF},
		"unclosed frontmatter":   []byte("---\n" + strings.Repeat("key: value\n", 100000)),
		"selection string storm": []byte(header + "- action: t {}\n- assert: first(json where a == \"" + strings.Repeat(`\"`, 30000) + "\") is set\n"),
		"selection regex storm":  []byte(header + "- action: t {}\n- bind: x = first(lines /" + strings.Repeat("[/", 30000) + "/)\n"),
		"selection paren storm":  []byte(header + "- action: t {}\n- bind: x = first(" + strings.Repeat("(", 60000) + "\n"),
		"selection lines storm":  []byte(header + "- action: t {}\n" + strings.Repeat("- bind: x = max(lines /(a)(b)/ by 2 as date).1\n", 20000)),
		"many steps misnumbered": []byte(header + strings.Repeat("### Step 7 — x\n- bogus: 1\n", 20000)),
	}
	for name, src := range tests {
		t.Run(name, func(t *testing.T) {
			skill, _ := grammar.Parse("hostile.skill.md", src)
			if skill == nil {
				t.Fatal("nil skill")
			}
		})
	}
}
