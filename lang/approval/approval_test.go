package approval

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/reelier/reelier/lang/ast"
	"github.com/reelier/reelier/lang/format"
	"github.com/reelier/reelier/lang/grammar"
)

const skillSrc = `---
name: notes
description: Add a note and read it back
metadata:
  reelier-timeout: 30s
---

# Notes

## Servers

- ` + "`memory`: `npx -y @modelcontextprotocol/server-memory`" + ` (tools: create_entities, read_graph)

### Step 1 — Add
- intent: Add a note
- action: create_entities {"entities": [{"name": "{{who}}", "entityType": "person"}]}
- effect: idempotent-write

### Step 2 — Read
- intent: Read it back
- action: read_graph {}
- assert: json.entities length >= 1
- effect: read

### Step 3 — Remove
- intent: Remove it
- action: delete_entities {"entityNames":   ["{{who}}"]}
- effect: destructive
`

func parse(t *testing.T, src string) *ast.Skill {
	t.Helper()
	s, diags := grammar.Parse("s.skill.md", []byte(src))
	if diags.HasErrors() {
		t.Fatalf("parse: %v", diags)
	}
	return s
}

// TestCanonical holds the canonical bytes SPEC.md §2.3 defines.
func TestCanonical(t *testing.T) {
	s := parse(t, skillSrc)
	tests := []struct {
		step int
		want string
	}{
		{1, "reelier-approval-v1\ntool \"create_entities\"\nserver [\"memory\",\"npx -y @modelcontextprotocol/server-memory\"]\nargs {\"entities\": [{\"name\": \"{{who}}\", \"entityType\": \"person\"}]}\neffect idempotent-write\n"},
		{3, "reelier-approval-v1\ntool \"delete_entities\"\nserver null\nargs {\"entityNames\": [\"{{who}}\"]}\neffect destructive\n"},
	}
	for _, tt := range tests {
		if got := string(Canonical(s, s.Steps[tt.step-1])); got != tt.want {
			t.Errorf("step %d:\n got %q\nwant %q", tt.step, got, tt.want)
		}
	}
	// The digest is the SHA-256 of exactly those bytes.
	a := For(s, s.Steps[2])
	sum := sha256.Sum256([]byte(tests[1].want))
	if a.Digest != "sha256:"+hex.EncodeToString(sum[:]) {
		t.Fatalf("digest %q is not the SHA-256 of the canonical bytes", a.Digest)
	}
	// Each part's short digest is the first 8 hex digits of its text's SHA-256.
	p := sha256.Sum256([]byte(`"delete_entities"`))
	if a.Parts["tool"] != hex.EncodeToString(p[:4]) {
		t.Errorf("tool part %q", a.Parts["tool"])
	}
}

func TestParse(t *testing.T) {
	d := "sha256:" + strings.Repeat("ab", 32)
	tests := []struct {
		name, value string
		steps       []int
		errs        []string
	}{
		{"one", "3 " + d, []int{3}, nil},
		{"parts", "1 " + d + " tool=0011aabb args=deadbeef", []int{1}, nil},
		{"block", "1 " + d + "\n\n2 " + d + "\r", []int{1, 2}, nil},
		{"no digest", "1", nil, []string{"line 1, column 2: want a step number and its sha256: digest"}},
		{"zero", "0 " + d, nil, []string{"line 1, column 1: want a step number"}},
		{"leading zero", "01 " + d, nil, []string{"want a step number"}},
		{"bad digest", "1 sha256:AB", nil, []string{"column 3: want sha256: and 64 lower-case hex digits"}},
		{"bad part", "1 " + d + " color=00112233", nil, []string{"want tool=, server=, args= or effect="}},
		{"short part", "1 " + d + " tool=0011", nil, []string{"want 8 lower-case hex digits after tool="}},
		{"part twice", "1 " + d + " tool=00112233 tool=00112233", nil, []string{"tool= is given twice"}},
		{"step twice", "1 " + d + "\n1 " + d, []int{1}, []string{"line 2, column 1: step 1 is approved twice"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			as, errs := Parse(tt.value)
			var steps []int
			for _, a := range as {
				steps = append(steps, a.Step)
			}
			if !slices.Equal(steps, tt.steps) {
				t.Errorf("steps %v, want %v", steps, tt.steps)
			}
			if len(errs) != len(tt.errs) {
				t.Fatalf("errors %v, want %v", errs, tt.errs)
			}
			for i, e := range errs {
				if !strings.Contains(e.Error(), tt.errs[i]) {
					t.Errorf("error %q, want %q in it", e, tt.errs[i])
				}
			}
		})
	}
}

// TestRoundTrip: a line written by String reads back as the same
// approval.
func TestRoundTrip(t *testing.T) {
	s := parse(t, skillSrc)
	for _, st := range s.Steps {
		a := For(s, st)
		as, errs := Parse(a.String())
		if len(errs) > 0 || len(as) != 1 || as[0].String() != a.String() {
			t.Fatalf("%q read back as %v %v", a.String(), as, errs)
		}
	}
}

func TestCheck(t *testing.T) {
	s := parse(t, skillSrc)
	a1, a3 := For(s, s.Steps[0]), For(s, s.Steps[2])
	approved := strings.Replace(skillSrc, "  reelier-timeout: 30s\n", "  reelier-timeout: 30s\n  reelier-approvals: |-\n    "+a1.String()+"\n    "+a3.String()+"\n    9 "+a1.Digest+"\n", 1)
	tests := []struct {
		name     string
		edit     func(string) string
		statuses []Status
		changed  []string
	}{
		{"unedited", func(s string) string { return s }, []Status{Approved, None, Approved}, nil},
		{"reformatted args", func(s string) string {
			return strings.Replace(s, `{"entityNames":   ["{{who}}"]}`, `{"entityNames": ["{{who}}"]}`, 1)
		}, []Status{Approved, None, Approved}, nil},
		{"args edited", func(s string) string { return strings.Replace(s, `"person"`, `"admin"`, 1) }, []Status{Stale, None, Approved}, []string{"args"}},
		{"effect lowered", func(s string) string { return strings.Replace(s, "- effect: destructive", "- effect: read", 1) }, []Status{Approved, None, Stale}, []string{"effect"}},
		{"server command edited", func(s string) string {
			return strings.Replace(s, "npx -y @modelcontextprotocol/server-memory", "npx -y evil-memory", 1)
		}, []Status{Stale, None, Approved}, []string{"server"}},
		{"tool renamed", func(s string) string {
			return strings.Replace(s, "action: delete_entities", "action: delete_relations", 1)
		}, []Status{Approved, None, Stale}, []string{"tool"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := Check(parse(t, tt.edit(approved)))
			if !c.Present() {
				t.Fatal("approvals not present")
			}
			var got []Status
			var changed []string
			for _, sc := range c.Steps {
				got = append(got, sc.Status)
				changed = append(changed, sc.Changed...)
			}
			if !slices.Equal(got, tt.statuses) || !slices.Equal(changed, tt.changed) {
				t.Errorf("statuses %v changed %v, want %v %v", got, changed, tt.statuses, tt.changed)
			}
			if len(c.Problems) != 1 || c.Problems[0].Code != "unknown_step" || !strings.Contains(c.Problems[0].Msg, "approves step 9") {
				t.Fatalf("problems %+v", c.Problems)
			}
			// The unknown step's line is placed on its own line of the file.
			if c.Problems[0].Pos.Line != 9 || c.Problems[0].Pos.Column != 5 {
				t.Errorf("unknown step at %d:%d, want 9:5", c.Problems[0].Pos.Line, c.Problems[0].Pos.Column)
			}
		})
	}
	if c := Check(parse(t, skillSrc)); c.Present() {
		t.Error("a skill without the key has approvals")
	}
}

func TestApprove(t *testing.T) {
	tests := []struct {
		name    string
		src     string
		steps   []int
		want    []int
		wantErr string
	}{
		{"write steps", skillSrc, nil, []int{1, 3}, ""},
		{"one step", skillSrc, []int{2}, []int{2}, ""},
		{"no metadata", strings.Replace(skillSrc, "metadata:\n  reelier-timeout: 30s\n", "", 1), nil, []int{1, 3}, ""},
		{"crlf", strings.ReplaceAll(skillSrc, "\n", "\r\n"), nil, []int{1, 3}, ""},
		{"empty metadata", strings.Replace(skillSrc, "  reelier-timeout: 30s\n", "", 1), []int{3}, []int{3}, ""},
		{"flow metadata", strings.Replace(skillSrc, "metadata:\n  reelier-timeout: 30s\n", "metadata: {reelier-timeout: 30s}\n", 1), nil, nil, "not a block map"},
		{"no such step", skillSrc, []int{7}, nil, "has no step 7 (it has 3)"},
		{"no write step", strings.NewReplacer("idempotent-write", "read", "destructive", "read").Replace(skillSrc), nil, nil, "no write step"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "s.skill.md")
			if err := os.WriteFile(path, []byte(tt.src), 0o644); err != nil {
				t.Fatal(err)
			}
			got, wrote, err := Approve(path, tt.steps)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err %v, want %q", err, tt.wantErr)
				}
				if b, _ := os.ReadFile(path); string(b) != tt.src {
					t.Error("the file changed on an error")
				}
				return
			}
			if err != nil || !wrote || !slices.Equal(got, tt.want) {
				t.Fatalf("Approve = %v %v %v, want %v", got, wrote, err, tt.want)
			}
			b, _ := os.ReadFile(path)
			c := Check(parse(t, string(b)))
			for _, sc := range c.Steps {
				if want := slices.Contains(tt.want, sc.Step.Number); want != (sc.Status == Approved) {
					t.Errorf("step %d status %v after approving %v", sc.Step.Number, sc.Status, tt.want)
				}
			}
			if len(c.Problems) > 0 {
				t.Errorf("problems %+v", c.Problems)
			}
			// Everything outside the frontmatter is left as it was.
			if i := strings.Index(tt.src, "# Notes"); !strings.HasSuffix(string(b), tt.src[i:]) {
				t.Error("the body changed")
			}
			// Approving again changes nothing.
			if _, wrote, err := Approve(path, tt.steps); wrote || err != nil {
				t.Errorf("second approve wrote=%v err=%v", wrote, err)
			}
		})
	}
}

// TestApproveKeepsOthers: approving one step keeps the other steps'
// approvals and drops one for a step the skill no longer has.
func TestApproveKeepsOthers(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.skill.md")
	os.WriteFile(path, []byte(skillSrc), 0o644)
	if _, _, err := Approve(path, []int{1}); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(path)
	d := For(parse(t, skillSrc), parse(t, skillSrc).Steps[0]).Digest
	b = []byte(strings.Replace(string(b), "  reelier-approvals: 1 "+d, "  reelier-approvals: |-\n    1 "+d+"\n    12 "+d, 1))
	os.WriteFile(path, b, 0o644)
	if _, _, err := Approve(path, []int{3}); err != nil {
		t.Fatal(err)
	}
	b, _ = os.ReadFile(path)
	c := Check(parse(t, string(b)))
	if c.Steps[0].Status != Approved || c.Steps[2].Status != Approved || c.Steps[1].Status != None || len(c.Problems) != 0 {
		t.Fatalf("after approving 3: %+v %+v\n%s", c.Steps, c.Problems, b)
	}
}

func FuzzParse(f *testing.F) {
	d := "sha256:" + strings.Repeat("0f", 32)
	for _, s := range []string{"1 " + d, "2 " + d + " tool=00112233 server=aabbccdd args=01234567 effect=89abcdef\n3 " + d, "x", "1  " + d + "  ", "1 sha256:\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, value string) {
		as, errs := Parse(value)
		for _, e := range errs {
			if e.Line < 0 || e.Col < 0 || e.Col > len(value) {
				t.Fatalf("error out of range: %+v", e)
			}
		}
		// What reads writes back to lines that read as the same.
		again, errs2 := Parse(List(as))
		if len(errs2) > 0 || len(again) != len(as) {
			t.Fatalf("List(%v) read back as %v %v", as, again, errs2)
		}
	})
}

// FuzzSetMetadata: writing approvals into any skill that parses either
// refuses with an error or gives a file that parses, whose metadata reads
// back as the value written, and whose text after the frontmatter is the
// same bytes.
func FuzzSetMetadata(f *testing.F) {
	f.Add(skillSrc)
	f.Add(strings.ReplaceAll(skillSrc, "\n", "\r\n"))
	f.Add(strings.Replace(skillSrc, "metadata:\n  reelier-timeout: 30s\n", "", 1))
	f.Add(strings.Replace(skillSrc, "metadata:\n  reelier-timeout: 30s\n", "metadata: {a: b}\n", 1))
	f.Add(strings.Replace(skillSrc, "  reelier-timeout: 30s\n", "  reelier-approvals: |-\n    1 sha256:00\n  # c\n", 1))
	f.Add(strings.Replace(skillSrc, "  reelier-timeout: 30s\n", "", 1))
	f.Fuzz(func(t *testing.T, src string) {
		if len(src) > 1<<14 {
			return
		}
		skill, diags := grammar.Parse("s.skill.md", []byte(src))
		if diags.HasErrors() || skill.Frontmatter == nil || len(skill.Steps) == 0 {
			return
		}
		var as []Approval
		for _, st := range skill.Steps {
			as = append(as, For(skill, st))
		}
		value := List(as)
		out, err := format.SetMetadata([]byte(src), skill.Frontmatter, skill.CRLF, MetadataKey, value)
		if err != nil {
			return
		}
		again, diags := grammar.Parse("s.skill.md", out)
		if diags.HasErrors() {
			t.Fatalf("the rewritten file does not parse: %v\n%s", diags, out)
		}
		if e := again.Frontmatter.Metadata(MetadataKey); e == nil || e.Value != value {
			t.Fatalf("metadata reads back as %+v, want %q\n%s", e, value, out)
		}
		end := int(skill.Frontmatter.Range.End.Offset)
		if !strings.HasSuffix(string(out), src[end:]) {
			t.Fatalf("the text after the frontmatter changed:\n%s", out)
		}
		c := Check(again)
		for _, sc := range c.Steps {
			if sc.Status != Approved {
				t.Fatalf("step %d is %v after approving every step\n%s", sc.Step.Number, sc.Status, out)
			}
		}
	})
}
