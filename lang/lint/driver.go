package lint

import (
	"fmt"
	"sort"
	"time"

	"github.com/reelier/reelier/lang/ast"
)

// Driver runs a configured set of rules over files.
type Driver struct {
	rules    []*Rule // enabled rules, parse_error excluded (it always runs)
	severity map[string]ast.Severity
	today    time.Time
}

// New returns a driver for every registered rule, configured by cfg. It
// fails on unknown rule names and on settings that cannot be honoured.
func New(cfg Config) (*Driver, error) { return newDriver(registry, cfg) }

func newDriver(rules []*Rule, cfg Config) (*Driver, error) {
	if err := registryErr; err != nil {
		return nil, fmt.Errorf("invalid rule registry: %w", err)
	}
	if err := Validate(rules); err != nil {
		return nil, err
	}
	enabled, severity, err := cfg.resolve(rules)
	if err != nil {
		return nil, err
	}
	d := &Driver{severity: severity, today: cfg.Today}
	if d.today.IsZero() {
		d.today = time.Now()
	}
	d.today = dateOf(d.today)
	for _, r := range rules {
		if enabled[r.Name] && r != ruleParseError {
			d.rules = append(d.rules, r)
		}
	}
	return d, nil
}

// dateOf truncates t to midnight UTC of its UTC calendar day.
func dateOf(t time.Time) time.Time {
	y, m, day := t.UTC().Date()
	return time.Date(y, m, day, 0, 0, 0, 0, time.UTC)
}

// Rules returns the rules the driver runs, parse_error first, then the
// enabled rules in documentation order.
func (d *Driver) Rules() []*Rule { return append([]*Rule{ruleParseError}, d.rules...) }

// Severity returns the severity the driver gives the rule's findings.
func (d *Driver) Severity(r *Rule) ast.Severity {
	if s, ok := d.severity[r.Name]; ok {
		return s
	}
	return r.DefaultSeverity
}

// Run lints one file and returns its findings sorted by position. The
// parser's diagnostics come first as parse_error findings; when the file
// has parse errors only the rules that read the text alone (TextOnly)
// run, since the others would reason about a tree with pieces missing.
func (d *Driver) Run(f *File) ast.Diagnostics {
	c := &collector{driver: d, file: f}
	p := &Pass{File: f, Skill: f.Skill, Src: f.body(), Today: d.today, report: c.add}
	if p.Skill == nil {
		p.Skill = &ast.Skill{}
	}
	c.src = p.Src
	p.Rule = ruleParseError
	ruleParseError.Run(p)
	broken := f.Diags.HasErrors()
	for _, r := range d.rules {
		if broken && !r.TextOnly {
			continue
		}
		p.Rule = r
		r.Run(p)
	}
	sortDiagnostics(c.out)
	return c.out
}

// collector receives the reports of one Run.
type collector struct {
	driver  *Driver
	file    *File
	src     []byte
	ignores map[int]ignoreSet // by 1-based line of the comment
	out     ast.Diagnostics
}

func (c *collector) add(r *Rule, d ast.Diagnostic) {
	d.File, d.Code, d.Severity = c.file.Name, r.Name, c.driver.Severity(r)
	if r != ruleParseError && c.ignored(int(d.Range.Start.Line), r.Name) {
		return
	}
	kept := d.Fixes[:0:0]
	for _, fx := range d.Fixes {
		if err := checkEdits(fx.Edits, len(c.src)); err != nil {
			c.out = append(c.out, fixBug(d, fx, err.Error()))
			continue
		}
		kept = append(kept, fx)
	}
	d.Fixes = kept
	c.out = append(c.out, d)
}

// ignored reports whether a `reelier:ignore` comment on the line before
// line names the rule.
func (c *collector) ignored(line int, rule string) bool {
	if c.ignores == nil {
		c.ignores = findIgnores(c.src)
	}
	return c.ignores[line-1].covers(rule)
}

// fixBug reports a suggested fix that is unusable: a bug in the rule that
// suggested it, never a problem of the skill. It has error severity so
// that it is seen.
func fixBug(d ast.Diagnostic, fx ast.SuggestedFix, why string) ast.Diagnostic {
	return ast.Diagnostic{
		File: d.File, Range: d.Range, Severity: ast.SeverityError, Code: d.Code, Step: d.Step,
		Message: fmt.Sprintf("internal error: the suggested fix %q was refused (%s); this is a bug in the %s rule, please report it", fx.Title, why, d.Code),
	}
}

// checkEdits verifies that edits lie inside a text of size bytes and do
// not overlap: sorted by position, each starts at or after the end of the
// one before, and no two insert at the same point.
func checkEdits(edits []ast.TextEdit, size int) error {
	sorted := sortedEdits(edits)
	for i, e := range sorted {
		s, end := int(e.Range.Start.Offset), int(e.Range.End.Offset)
		if s < 0 || s > end || end > size {
			return fmt.Errorf("edit of bytes %d-%d (line %d) lies outside the file", s, end, e.Range.Start.Line)
		}
		if i > 0 && conflict(sorted[i-1], e) {
			return fmt.Errorf("edits overlap at offset %d", s)
		}
	}
	return nil
}

// conflict reports whether edit b (sorted after a) overlaps a.
func conflict(a, b ast.TextEdit) bool {
	as, ae := a.Range.Start.Offset, a.Range.End.Offset
	bs, be := b.Range.Start.Offset, b.Range.End.Offset
	return bs < ae || (as == ae && bs == be && as == bs)
}

// sortedEdits returns a copy of edits sorted by start, then end.
func sortedEdits(edits []ast.TextEdit) []ast.TextEdit {
	out := append([]ast.TextEdit(nil), edits...)
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i].Range, out[j].Range
		if a.Start.Offset != b.Start.Offset {
			return a.Start.Offset < b.Start.Offset
		}
		return a.End.Offset < b.End.Offset
	})
	return out
}

// sortDiagnostics orders findings by file, position, rule and message.
func sortDiagnostics(ds ast.Diagnostics) {
	sort.SliceStable(ds, func(i, j int) bool {
		a, b := ds[i], ds[j]
		switch {
		case a.File != b.File:
			return a.File < b.File
		case a.Range.Start.Offset != b.Range.Start.Offset:
			return a.Range.Start.Offset < b.Range.Start.Offset
		case a.Code != b.Code:
			return a.Code < b.Code
		}
		return a.Message < b.Message
	})
}
