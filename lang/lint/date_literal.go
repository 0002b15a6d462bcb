package lint

import (
	"bytes"
	"fmt"
	"time"

	"github.com/reelier/reelier/lang/ast"
)

var ruleDateLiteral = &Rule{
	Name:            "date_literal",
	Title:           "A calendar date is written literally in the arguments",
	Category:        CategoryDrift,
	DefaultSeverity: ast.SeverityWarning,
	Doc: `A skill recorded on one day and replayed on another keeps asking for the
recording day's dates: "bookings since 2026-07-10" becomes a question about
an ever more distant past. When the date was meant relative to the run, write
it as a computed date: ` + "`{{today}}`, `{{today-7d}}`, `{{today+30d}}`" + ` (1 to 365 days).

The rule finds ` + "`YYYY-MM-DD`" + ` dates in string arguments (also inside URLs and
before a ` + "`T…`" + ` time); its fix says how far each lies from today. A date
inside text, such as "signed up 2026-07-10", is a recorded fact: it is
reported, never rewritten. A date that
is date-shaped but does not exist on the calendar (` + "`2026-02-30`" + `) is
reported as such. When a date really is fixed — a birthday, a launch day —
silence the finding with ` + "`<!-- reelier:ignore date_literal -->`" + ` on the line
above.`,
	FixDoc: "When the string is the date itself (alone, before a time, or inside a URL or path) and the date lies within 365 days of today, the fix replaces it with the computed date that resolves to it today; a time after the date is kept. A date inside text (a string with spaces) is reported but never rewritten, and the message never depends on today's date.",
	Example: exampleSkill("Bookings this week",
		`- action: list_bookings {"from": "2026-07-10", "to": "2026-07-17T23:59:59Z", "since": "2026-02-30"}`),
	Run: runDateLiteral,
}

func runDateLiteral(p *Pass) {
	for _, st := range p.Skill.Steps {
		if st.Action == nil {
			continue
		}
		ast.Walk(st.Action.Args, func(v ast.Value) bool {
			if s, ok := v.(*ast.String); ok {
				start, end, _ := p.stringInner(s)
				inner := p.Src[start:end]
				prose := inProse(inner)
				for _, at := range findDates(inner) {
					reportDate(p, st.Number, start+at, prose)
				}
			}
			return true
		})
	}
}

// inProse reports whether a string argument (its source text between the
// quotes) reads as text rather than as one value: it holds a space, a tab or
// an escaped line break. A date, a timestamp, a URL or a path is one value.
func inProse(inner []byte) bool {
	return bytes.ContainsAny(inner, " \t") || bytes.Contains(inner, []byte(`\n`)) || bytes.Contains(inner, []byte(`\t`))
}

// findDates returns the offsets of YYYY-MM-DD shapes in b (month 01-12,
// day 01-31) that are not part of a longer run of digits or dashes.
func findDates(b []byte) []int {
	var out []int
	for i := 0; i+10 <= len(b); i++ {
		if b[i+4] != '-' || b[i+7] != '-' || !dateShape(b[i:i+10]) || i > 0 && (isDigitByte(b[i-1]) || b[i-1] == '-') || i+10 < len(b) && isDigitByte(b[i+10]) {
			continue
		}
		out = append(out, i)
		i += 9
	}
	return out
}

func isDigitByte(c byte) bool { return c >= '0' && c <= '9' }

func dateShape(b []byte) bool {
	for i, c := range b {
		if i == 4 || i == 7 {
			if c != '-' {
				return false
			}
		} else if !isDigitByte(c) {
			return false
		}
	}
	m := int(b[5]-'0')*10 + int(b[6]-'0')
	d := int(b[8]-'0')*10 + int(b[9]-'0')
	return m >= 1 && m <= 12 && d >= 1 && d <= 31
}

// reportDate reports the date at off. The message names only the date, so
// it reads the same on every day the linter runs (baselines and SARIF
// fingerprints stay stable); how far the date lies from today goes into the
// fix title. A date inside prose gets no fix: "signed up 2026-11-30" is a
// recorded fact, and turning it into {{today-2d}} would move it every day.
func reportDate(p *Pass, step, off int, prose bool) {
	lit := string(p.Src[off : off+10])
	rng := p.span(off, off+10)
	date, err := time.Parse(time.DateOnly, lit)
	if err != nil {
		p.Reportf(step, rng, "%s is date-shaped but is not a real calendar date", lit)
		return
	}
	d := ast.Diagnostic{Step: step, Range: rng}
	if prose {
		d.Message = fmt.Sprintf("literal date %s inside text stays the same on every run; if it should move with the run, write it as a computed date ({{today}}, {{today-Nd}} or {{today+Nd}})", lit)
		p.Report(d)
		return
	}
	d.Message = fmt.Sprintf("literal date %s stays the same on every run; if it should move with the run, write it as a computed date ({{today}}, {{today-Nd}} or {{today+Nd}})", lit)
	days := int(date.Sub(p.Today).Hours() / 24)
	if abs(days) <= maxTodayOffset {
		repl := "{{" + computedDate(days) + "}}"
		title := fmt.Sprintf("Use %s (%s is today)", repl, lit)
		if days != 0 {
			title = fmt.Sprintf("Use %s (%s is %s today, %s)", repl, lit, distance(days), p.Today.Format(time.DateOnly))
		}
		d.Fixes = fix(title, replace(rng, repl))
	}
	p.Report(d)
}

// computedDate returns the template name that resolves to today+days.
func computedDate(days int) string {
	switch {
	case days < 0:
		return fmt.Sprintf("today-%dd", -days)
	case days > 0:
		return fmt.Sprintf("today+%dd", days)
	}
	return "today"
}

// distance describes a day offset from today in words.
func distance(days int) string {
	unit := "days"
	if abs(days) == 1 {
		unit = "day"
	}
	if days < 0 {
		return fmt.Sprintf("%d %s before", -days, unit)
	}
	return fmt.Sprintf("%d %s after", days, unit)
}
