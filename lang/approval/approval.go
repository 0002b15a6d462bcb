// Package approval is a skill's per-step approvals: the digest of what a
// step does (its tool, its server, its argument template and its effect),
// kept under the frontmatter's `metadata: reelier-approvals` once a person
// has reviewed it, so that a replay runs an approved step only while it
// still does what was reviewed (SPEC.md §2.3).
//
// An approval line is
//
//	<step> sha256:<64 hex> [tool=<8 hex>] [server=<8 hex>] [args=<8 hex>] [effect=<8 hex>]
//
// The full digest is what a replay compares; the four short digests, one
// per part, only let a mismatch say which part changed.
package approval

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/reelier/reelier/lang/ast"
	"github.com/reelier/reelier/lang/format"
	"github.com/reelier/reelier/lang/tooldef"
)

// MetadataKey is the metadata key approvals are kept under.
const MetadataKey = ast.MetadataPrefix + "approvals"

// Version is the first line of the canonical bytes.
const Version = "reelier-approval-v1"

// Parts are the parts of a step an approval covers, in the order the
// canonical bytes list them.
var Parts = []string{"tool", "server", "args", "effect"}

// Canonical returns the bytes a step's approval digest is taken over:
//
//	reelier-approval-v1
//	tool <the tool name as a JSON string>
//	server <the Servers-section entry listing the tool, as the JSON array [name, command, header…], or null>
//	args <the argument template as the canonical printer writes it (format.Value), or null>
//	effect <the step's declared effect, or "" when it declares none>
//
// each line ended by a line feed. The argument template is the action as
// written, holes unfilled: a value bound at run time does not change it,
// a reformatting (spacing) does not either.
func Canonical(skill *ast.Skill, st *ast.Step) []byte {
	parts := partBytes(skill, st)
	var b strings.Builder
	b.WriteString(Version)
	b.WriteByte('\n')
	for i, p := range Parts {
		b.WriteString(p)
		b.WriteByte(' ')
		b.WriteString(parts[i])
		b.WriteByte('\n')
	}
	return []byte(b.String())
}

// partBytes returns the text of each part, in the order of Parts.
func partBytes(skill *ast.Skill, st *ast.Step) [4]string {
	var out [4]string
	toolName := ""
	if st.Action != nil {
		toolName = st.Action.Tool
	}
	out[0] = jsonString(toolName)
	out[1] = "null"
	if skill != nil {
		if sv := skill.ServerOf(toolName); sv != nil && toolName != "" {
			arr := []string{sv.Name, sv.Command}
			for _, h := range sv.Headers {
				arr = append(arr, h.Text)
			}
			b, _ := json.Marshal(arr)
			out[1] = string(b)
		}
	}
	out[2] = "null"
	if st.Action != nil && st.Action.Args != nil {
		out[2] = format.Value(st.Action.Args)
	}
	out[3] = string(st.EffectValue())
	return out
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// Approval is one line of a skill's approvals.
type Approval struct {
	Step int
	// Digest is "sha256:" and 64 lower-case hex digits.
	Digest string
	// Parts are the short digests of the parts, by name (Parts); a part
	// the line does not give is absent.
	Parts map[string]string
	// Line is the line's index in the value, from 0.
	Line int
}

// For computes the approval of a step as it is now, with every part.
func For(skill *ast.Skill, st *ast.Step) Approval {
	sum := sha256.Sum256(Canonical(skill, st))
	a := Approval{Step: st.Number, Digest: "sha256:" + hex.EncodeToString(sum[:]), Parts: map[string]string{}}
	for i, p := range partBytes(skill, st) {
		a.Parts[Parts[i]] = short(p)
	}
	return a
}

func short(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:4])
}

// String writes the approval line.
func (a Approval) String() string {
	var b strings.Builder
	b.WriteString(strconv.Itoa(a.Step))
	b.WriteByte(' ')
	b.WriteString(a.Digest)
	for _, p := range Parts {
		if v, ok := a.Parts[p]; ok {
			b.WriteString(" " + p + "=" + v)
		}
	}
	return b.String()
}

// Changed names the parts whose short digests differ between the
// approval and the step's current approval now; nil when the approval
// gives none or none differ.
func (a Approval) Changed(now Approval) []string {
	var out []string
	for _, p := range Parts {
		if v, ok := a.Parts[p]; ok && v != now.Parts[p] {
			out = append(out, p)
		}
	}
	return out
}

// List writes approvals as the metadata value: one line each, by step.
func List(as []Approval) string {
	as = slices.Clone(as)
	slices.SortFunc(as, func(x, y Approval) int { return x.Step - y.Step })
	lines := make([]string, len(as))
	for i, a := range as {
		lines[i] = a.String()
	}
	return strings.Join(lines, "\n")
}

// Error is a line of the value that does not read.
type Error struct {
	// Line is the line's index in the value and Col the byte in it where
	// reading stopped, both from 0.
	Line, Col int
	Msg       string
}

func (e *Error) Error() string {
	return fmt.Sprintf("line %d, column %d: %s", e.Line+1, e.Col+1, e.Msg)
}

// maxLines bounds the lines read, so a hostile value cannot make the
// reader keep millions of approvals.
const maxLines = 10000

// Parse reads an approvals value: one approval a line, blank lines
// skipped. Each line that does not read gives an error; a step approved
// twice is an error at its second line.
func Parse(value string) ([]Approval, []*Error) {
	var out []Approval
	var errs []*Error
	seen := map[int]bool{}
	for i, line := range strings.Split(value, "\n") {
		if i >= maxLines {
			errs = append(errs, &Error{Line: i, Msg: fmt.Sprintf("more than %d lines", maxLines)})
			break
		}
		line = strings.TrimRight(line, "\r")
		if strings.TrimSpace(line) == "" {
			continue
		}
		a, err := parseLine(line)
		if err != nil {
			err.Line = i
			errs = append(errs, err)
			continue
		}
		if seen[a.Step] {
			errs = append(errs, &Error{Line: i, Msg: fmt.Sprintf("step %d is approved twice", a.Step)})
			continue
		}
		seen[a.Step] = true
		a.Line = i
		out = append(out, a)
	}
	return out, errs
}

func parseLine(line string) (Approval, *Error) {
	a := Approval{Parts: map[string]string{}}
	col := 0
	fields := strings.Split(line, " ")
	for fi, f := range fields {
		if f == "" {
			col++
			continue
		}
		switch {
		case fi == firstField(fields):
			n, err := strconv.Atoi(f)
			if err != nil || n < 1 || n > 1_000_000 || f[0] == '+' || f[0] == '0' {
				return a, &Error{Col: col, Msg: fmt.Sprintf("want a step number, not %q", clip(f))}
			}
			a.Step = n
		case a.Digest == "":
			hexPart, ok := strings.CutPrefix(f, "sha256:")
			if !ok || !tooldef.IsLowerHex(hexPart, 64) {
				return a, &Error{Col: col, Msg: fmt.Sprintf("want sha256: and 64 lower-case hex digits, not %q", clip(f))}
			}
			a.Digest = f
		default:
			name, v, ok := strings.Cut(f, "=")
			if !ok || !slices.Contains(Parts, name) {
				return a, &Error{Col: col, Msg: fmt.Sprintf("want tool=, server=, args= or effect=, not %q", clip(f))}
			}
			if _, dup := a.Parts[name]; dup {
				return a, &Error{Col: col, Msg: fmt.Sprintf("%s= is given twice", name)}
			}
			if !tooldef.IsLowerHex(v, 8) {
				return a, &Error{Col: col + len(name) + 1, Msg: fmt.Sprintf("want 8 lower-case hex digits after %s=, not %q", name, clip(v))}
			}
			a.Parts[name] = v
		}
		col += len(f) + 1
	}
	if a.Digest == "" {
		return a, &Error{Col: len(line), Msg: "want a step number and its sha256: digest"}
	}
	return a, nil
}

func firstField(fields []string) int {
	for i, f := range fields {
		if f != "" {
			return i
		}
	}
	return 0
}

func clip(s string) string {
	if len(s) > 40 {
		return s[:40] + "…"
	}
	return s
}

// Status is what a step's approval says about it now.
type Status int

// The statuses of a step in a skill.
const (
	// None: the skill keeps no approval for the step.
	None Status = iota
	// Approved: the approval matches the step as it is.
	Approved
	// Stale: the step changed after it was approved.
	Stale
)

// StepCheck is one step's approval, checked.
type StepCheck struct {
	Step   *ast.Step
	Status Status
	// Approval is the line the skill keeps (zero when Status is None);
	// Now is the step's approval as it is.
	Approval, Now Approval
	// Changed names what changed for a stale step ("args", "effect"); nil
	// when the line gives no part digests or they all match.
	Changed []string
	// Pos is where the approval's line is in the file.
	Pos ast.Pos
}

// Message says what changed, for a stale step.
func (c StepCheck) Message() string {
	if len(c.Changed) == 0 {
		return "its action no longer matches its approval (the approval's digest differs); review it and run reelier approve again"
	}
	names := make([]string, len(c.Changed))
	for i, p := range c.Changed {
		names[i] = partName(p)
	}
	return fmt.Sprintf("its %s changed after it was approved; review it and run reelier approve again", strings.Join(names, " and "))
}

func partName(p string) string {
	switch p {
	case "args":
		return "argument template"
	case "server":
		return "server (the Servers entry listing its tool)"
	}
	return p
}

// Problem is an approval that does not read or names no step, placed in
// the skill file.
type Problem struct {
	Pos ast.Pos
	// Code is "syntax" for a line that does not read and "unknown_step"
	// for an approval of a step the skill does not have.
	Code string
	Msg  string
}

// Checked is a skill's approvals, read and compared with its steps.
type Checked struct {
	// Entry is the metadata entry; nil when the skill keeps no approvals.
	Entry *ast.FrontmatterEntry
	// Steps parallel the skill's steps.
	Steps    []StepCheck
	Problems []Problem
}

// Present reports whether the skill keeps approvals at all: then a
// replay runs a write step only when its approval matches.
func (c *Checked) Present() bool { return c != nil && c.Entry != nil }

// Of returns the check of step n, or nil.
func (c *Checked) Of(n int) *StepCheck {
	for i := range c.Steps {
		if c.Steps[i].Step.Number == n {
			return &c.Steps[i]
		}
	}
	return nil
}

// Check reads the skill's approvals and compares each with its step.
func Check(skill *ast.Skill) *Checked {
	c := &Checked{}
	if skill == nil {
		return c
	}
	c.Steps = make([]StepCheck, len(skill.Steps))
	for i, st := range skill.Steps {
		c.Steps[i] = StepCheck{Step: st}
	}
	fm := skill.Frontmatter
	if fm == nil {
		return c
	}
	e := fm.Metadata(MetadataKey)
	if e == nil {
		return c
	}
	c.Entry = e
	if e.Kind != ast.ScalarValue {
		c.Problems = append(c.Problems, Problem{Pos: e.ValueRange.Start, Code: "syntax", Msg: "metadata " + MetadataKey + " is not a text"})
		return c
	}
	as, errs := Parse(e.Value)
	for _, le := range errs {
		c.Problems = append(c.Problems, Problem{Pos: tooldef.ValuePos(fm, e, le.Line, le.Col), Code: "syntax", Msg: le.Msg})
	}
	for _, a := range as {
		pos := tooldef.ValuePos(fm, e, a.Line, 0)
		sc := c.Of(a.Step)
		if sc == nil {
			c.Problems = append(c.Problems, Problem{Pos: pos, Code: "unknown_step",
				Msg: fmt.Sprintf("metadata %s approves step %d, which the skill does not have (it has %d); run reelier approve again", MetadataKey, a.Step, len(skill.Steps))})
			continue
		}
		sc.Approval, sc.Now, sc.Pos = a, For(skill, sc.Step), pos
		if sc.Now.Digest == a.Digest {
			sc.Status = Approved
		} else {
			sc.Status = Stale
			sc.Changed = a.Changed(sc.Now)
		}
	}
	return c
}

// IsWrite reports an effect that changes something.
func IsWrite(e ast.Effect) bool {
	return e == ast.EffectIdempotentWrite || e == ast.EffectDestructive
}
