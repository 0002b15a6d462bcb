package lint

import (
	"bytes"
	"fmt"
	"sort"
	"strings"

	"github.com/reelier/reelier/lang/ast"
	"github.com/reelier/reelier/lang/format"
)

// maxFixPasses bounds the fix loop: one fix can uncover another (a
// secret replaced by a variable leaves an input to document), so fixing
// repeats until nothing is left to fix, at most this many times.
const maxFixPasses = 10

// FixResult is the outcome of Fix.
type FixResult struct {
	// Src is the fixed file, or the original bytes when no fix applied.
	Src []byte
	// Applied counts the fixes applied.
	Applied int
	// Diagnostics are the findings that remain in Src, plus an error for
	// every fix that was refused because its result did not parse.
	Diagnostics ast.Diagnostics
}

// Changed reports whether the fixes changed the file.
func (r *FixResult) Changed() bool { return r.Applied > 0 }

// Fix applies the first suggested fix of every finding whose edits do not
// overlap an earlier one, re-parses, prints the result in canonical form,
// and repeats until no fix is left. A fix whose result does not parse is
// never applied; it is reported as a bug in its rule. A file that does not
// parse is returned unchanged.
func (d *Driver) Fix(f *File) *FixResult {
	res := &FixResult{Src: f.Src}
	refused := map[string]bool{}
	var bugs ast.Diagnostics
	cur := f
	for pass := 0; ; pass++ {
		diags := d.Run(cur)
		chosen := chooseFixes(diags, cur.body(), refused)
		if len(chosen) == 0 || pass == maxFixPasses {
			res.Diagnostics = append(diags, bugs...)
			sortDiagnostics(res.Diagnostics)
			return res
		}
		next, applied, refusals := applyFixes(cur, chosen, refused)
		bugs = append(bugs, refusals...)
		if next == nil {
			continue
		}
		cur = next
		res.Src = cur.Src
		res.Applied += applied
	}
}

// choice is a fix picked for application, with the finding it resolves.
type choice struct {
	diag ast.Diagnostic
	fix  ast.SuggestedFix
	key  string
}

// chooseFixes picks the first fix of each finding, in position order,
// skipping fixes refused before and fixes that overlap one already picked.
func chooseFixes(diags ast.Diagnostics, body []byte, refused map[string]bool) []choice {
	var chosen []choice
	var taken []ast.TextEdit // sorted, non-overlapping
	for _, dg := range diags {
		if len(dg.Fixes) == 0 {
			continue
		}
		fx := dg.Fixes[0]
		key := fixKey(dg.Code, fx, body)
		if refused[key] || overlapsAny(taken, fx.Edits) {
			continue
		}
		for _, e := range fx.Edits {
			taken = insertEdit(taken, e)
		}
		chosen = append(chosen, choice{diag: dg, fix: fx, key: key})
	}
	return chosen
}

// overlapsAny reports whether any of edits conflicts with the sorted,
// non-overlapping taken edits.
func overlapsAny(taken, edits []ast.TextEdit) bool {
	for _, e := range edits {
		i := sort.Search(len(taken), func(i int) bool { return taken[i].Range.End.Offset >= e.Range.Start.Offset })
		for ; i < len(taken) && taken[i].Range.Start.Offset <= e.Range.End.Offset; i++ {
			a, b := taken[i], e
			if b.Range.Start.Offset < a.Range.Start.Offset || (b.Range.Start.Offset == a.Range.Start.Offset && b.Range.End.Offset < a.Range.End.Offset) {
				a, b = b, a
			}
			if conflict(a, b) {
				return true
			}
		}
	}
	return false
}

// insertEdit inserts e into the sorted edits, keeping them sorted.
func insertEdit(sorted []ast.TextEdit, e ast.TextEdit) []ast.TextEdit {
	i := sort.Search(len(sorted), func(i int) bool {
		r := sorted[i].Range
		return r.Start.Offset > e.Range.Start.Offset || r.Start.Offset == e.Range.Start.Offset && r.End.Offset > e.Range.End.Offset
	})
	sorted = append(sorted, ast.TextEdit{})
	copy(sorted[i+1:], sorted[i:])
	sorted[i] = e
	return sorted
}

// fixKey identifies a fix independently of where it sits, so a fix
// refused in one pass is not tried again after other fixes moved it.
func fixKey(code string, fx ast.SuggestedFix, body []byte) string {
	var b strings.Builder
	b.WriteString(code)
	b.WriteByte(0)
	b.WriteString(fx.Title)
	for _, e := range fx.Edits {
		b.WriteByte(0)
		b.Write(body[e.Range.Start.Offset:e.Range.End.Offset])
		b.WriteByte(0)
		b.WriteString(e.NewText)
	}
	return b.String()
}

// applyFixes applies the chosen fixes to cur and returns the re-parsed,
// re-formatted file, how many fixes it holds, and a report for every fix
// refused because the file would no longer parse. When the fixes together
// break the file, each is tried in turn on top of those kept so far. It
// returns a nil file when nothing could be applied.
func applyFixes(cur *File, chosen []choice, refused map[string]bool) (*File, int, ast.Diagnostics) {
	body := cur.body()
	if next := tryFixes(cur, body, chosen); next != nil {
		return next, len(chosen), nil
	}
	var kept []choice
	var bugs ast.Diagnostics
	var next *File
	for _, c := range chosen {
		if f := tryFixes(cur, body, append(kept, c)); f != nil {
			kept = append(kept, c)
			next = f
			continue
		}
		refused[c.key] = true
		_, diags := parseEdited(cur, body, []choice{c})
		bugs = append(bugs, fixBug(c.diag, c.fix, "the fixed file would not parse: "+firstError(diags)))
	}
	return next, len(kept), bugs
}

// tryFixes applies fixes to body and returns the canonical re-parsed file,
// or nil when the result does not parse.
func tryFixes(cur *File, body []byte, fixes []choice) *File {
	f, diags := parseEdited(cur, body, fixes)
	if diags.HasErrors() {
		return nil
	}
	canon := ParseFile(cur.Name, format.Source(f.Skill))
	if canon.Diags.HasErrors() {
		return nil
	}
	return canon
}

func parseEdited(cur *File, body []byte, fixes []choice) (*File, ast.Diagnostics) {
	var edits []ast.TextEdit
	for _, c := range fixes {
		edits = append(edits, c.fix.Edits...)
	}
	out := applyEdits(body, edits)
	if cur.Skill != nil && cur.Skill.BOM {
		out = append(append([]byte(nil), utf8BOM...), out...)
	}
	f := ParseFile(cur.Name, out)
	return f, f.Diags
}

// applyEdits returns src with the non-overlapping edits applied.
func applyEdits(src []byte, edits []ast.TextEdit) []byte {
	var b bytes.Buffer
	at := 0
	for _, e := range sortedEdits(edits) {
		b.Write(src[at:e.Range.Start.Offset])
		b.WriteString(e.NewText)
		at = int(e.Range.End.Offset)
	}
	b.Write(src[at:])
	return b.Bytes()
}

func firstError(diags ast.Diagnostics) string {
	for _, d := range diags {
		if d.Severity == ast.SeverityError {
			return fmt.Sprintf("%s at %d:%d", d.Message, d.Range.Start.Line, d.Range.Start.Column)
		}
	}
	return "unknown parse error"
}
