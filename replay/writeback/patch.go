package writeback

import (
	"strings"

	"github.com/reelier/reelier/lang/ast"
)

// patchStep gives the step the heal's asserts, binds and arguments. New
// bullets inherit, by position, the prose lines written above the old ones;
// prose above a bullet that no longer exists moves down to the next bullet
// printed, so no comment a person wrote is lost.
func patchStep(st *ast.Step, h *Heal) {
	oldA := make([]*ast.Bullet, len(st.Asserts))
	for i, a := range st.Asserts {
		oldA[i] = &a.Bullet
	}
	oldB := make([]*ast.Bullet, len(st.Binds))
	for i, b := range st.Binds {
		oldB[i] = &b.Bullet
	}
	leadA, orphans := reuse(oldA, len(h.Asserts))
	st.Asserts = make([]*ast.AssertField, len(h.Asserts))
	for i, a := range h.Asserts {
		st.Asserts[i] = &ast.AssertField{Bullet: ast.Bullet{Leading: leadA[i]}, Expr: a}
	}
	leadB, orphanB := reuse(oldB, len(h.Binds))
	st.Binds = make([]*ast.BindField, len(h.Binds))
	for i, b := range h.Binds {
		st.Binds[i] = &ast.BindField{Bullet: ast.Bullet{Leading: leadB[i]}, Expr: b}
	}
	if len(st.Binds) > 0 && len(orphans) > 0 {
		st.Binds[0].Leading = append(orphans, st.Binds[0].Leading...)
		orphans = nil
	}
	orphans = append(orphans, orphanB...)
	switch {
	case len(orphans) == 0:
	case st.Effect != nil:
		st.Effect.Leading = append(orphans, st.Effect.Leading...)
	default:
		st.TrailingProse = append(orphans, st.TrailingProse...)
	}
	if h.Args != nil {
		st.Action.Args = h.Args
	}
}

// reuse hands the leading prose of old bullets to n new ones by position,
// returning the prose of the old bullets past n.
func reuse(old []*ast.Bullet, n int) ([][]ast.Prose, []ast.Prose) {
	lead := make([][]ast.Prose, n)
	var orphans []ast.Prose
	for i, b := range old {
		if i < n {
			lead[i] = b.Leading
		} else {
			orphans = append(orphans, b.Leading...)
		}
	}
	return lead, orphans
}

// changelogHeading is the section heading heals are logged under.
const changelogHeading = "Changelog"

// AppendChangelog adds line (a `- …` bullet, without a line ending) to the
// skill's `## Changelog` section: after the section's last non-blank line,
// before whatever follows it. A skill without the section gets one at the
// end.
func AppendChangelog(skill *ast.Skill, line string) {
	eol := "\n"
	if skill.CRLF {
		eol = "\r\n"
	}
	texts := []*ast.Verbatim{&skill.Trailing}
	for _, st := range skill.Steps {
		texts = append(texts, &st.Interlude)
	}
	for _, v := range texts {
		if from, to, ok := changelogSection(v); ok {
			v.Text = insertAfterLast(v.Text, from, to, line, eol)
			return
		}
	}
	t := skill.Trailing.Text
	if t != "" {
		if !strings.HasSuffix(t, "\n") {
			t += eol
		}
		if !strings.HasSuffix(t, "\n\n") && !strings.HasSuffix(t, "\n\r\n") {
			t += eol
		}
	}
	skill.Trailing.Text = t + "## " + changelogHeading + eol + eol + line + eol
}

// changelogSection finds the `## Changelog` heading in v: the offset where
// its line starts and where its section ends (the next heading of level 1
// or 2, or the end of the text). Headings inside code blocks are not
// headings, which is why the parser's heading list is used.
func changelogSection(v *ast.Verbatim) (int, int, bool) {
	base := int(v.Range.Start.Offset)
	for i, h := range v.Headings {
		if h.Level != 2 || !strings.EqualFold(h.Text, changelogHeading) {
			continue
		}
		end := len(v.Text)
		for _, next := range v.Headings[i+1:] {
			if next.Level <= 2 {
				end = int(next.Range.Start.Offset) - base
				break
			}
		}
		from := int(h.Range.Start.Offset) - base
		if from < 0 || from > end || end > len(v.Text) {
			return 0, 0, false
		}
		return from, end, true
	}
	return 0, 0, false
}

// insertAfterLast inserts line after the last non-blank line of
// text[from:to], whose first line is the heading. Right under a bare
// heading it leaves one blank line first, as the convention writes it, and
// it keeps a blank line before a heading that would follow at once.
func insertAfterLast(text string, from, to int, line, eol string) string {
	at, headingOnly := from, true
	for pos := from; pos < to; {
		end := strings.IndexByte(text[pos:to], '\n')
		next := to
		if end >= 0 {
			next = pos + end + 1
		}
		if strings.TrimSpace(text[pos:next]) != "" {
			headingOnly = pos == from
			at = next
		}
		pos = next
	}
	insert := line + eol
	if headingOnly {
		insert = eol + insert
	}
	if at == 0 || text[at-1] != '\n' {
		insert = eol + insert
	}
	if rest := text[at:]; rest != "" && rest[0] != '\n' && rest[0] != '\r' {
		insert += eol // the next heading follows at once: keep a blank line
	}
	return text[:at] + insert + text[at:]
}
