// Package writeback persists a heal in its skill file, so the same drift
// never has to escalate twice.
//
// Apply patches the step in the typed tree, appends one line to the
// skill's `## Changelog` section (SPEC.md's changelog convention), prints
// the skill with the canonical printer, checks that the result parses back
// to the patch, and replaces the file atomically (a temporary file in the
// same directory renamed over it). The read-modify-write is
// lang/skillfile's Update, the one rewrite path `reelier fmt -w`,
// `reelier lint --fix` and calibrate share: it runs under an advisory lock
// on a sidecar file, `.<name>.lock` beside the skill, so two runs healing
// the same skill at once, or a heal and a format, each work on the other's
// result and no heal is lost.
package writeback

import (
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/reelier/reelier/lang/ast"
	"github.com/reelier/reelier/lang/format"
	"github.com/reelier/reelier/lang/grammar"
	"github.com/reelier/reelier/lang/skillfile"
)

// Heal is one accepted heal to persist.
type Heal struct {
	// Step, Title and Tool identify the healed step: its number, its title
	// and its action's tool. A file whose step no longer matches is not
	// written.
	Step  int
	Title string
	Tool  string
	// Level is the level that healed it (1 or 2) and Reason the heal's own
	// one-sentence reason.
	Level  int
	Reason string
	// Date is the day of the run; the changelog line carries it (UTC).
	Date time.Time
	// Asserts and Binds replace the step's; Args, when not nil, replaces
	// its action's arguments.
	Asserts []ast.Assert
	Binds   []ast.Bind
	Args    ast.Value
}

// MaxReason is the longest reason, in characters, a changelog line keeps.
const MaxReason = 300

// Apply writes the heal into the skill file at path, through
// lang/skillfile: under the lock every rewrite of the file takes, the
// heal is patched into the file as it is then, so a heal, a format or a
// fix that landed since the run read the file is kept. A symbolic link is
// followed and its target replaced. Nothing is written when the file is
// read-only (no write permission bit at all, a choice honoured even for
// root), no longer parses, or no longer has the healed step; the error
// says which.
func Apply(path string, h *Heal) error {
	_, err := skillfile.Update(path, func(src []byte) ([]byte, error) { return Patch(path, src, h) })
	return err
}

// Rewrite edits the skill file at path under the same lock heals take:
// it parses the file as it is now, lets edit change the tree, prints it
// canonically, and replaces the file atomically when the result parses
// (a symbolic link is followed). edit reports whether it changed
// anything; when it did not, or returns an error, nothing is written. A
// read-only file is refused, as Apply refuses it.
func Rewrite(path string, edit func(skill *ast.Skill) (bool, error)) (bool, error) {
	return skillfile.Update(path, func(src []byte) ([]byte, error) {
		skill, diags := grammar.Parse(path, src)
		if err := firstError(diags); err != nil {
			return nil, fmt.Errorf("%s no longer parses (%v)", path, err)
		}
		changed, err := edit(skill)
		if err != nil || !changed {
			return src, err
		}
		return format.Source(skill), nil
	})
}

// Patch returns the skill source src with the heal applied and its
// changelog line appended, printed canonically. It checks that the result
// parses back with the patched step as the heal says.
func Patch(name string, src []byte, h *Heal) ([]byte, error) {
	skill, diags := grammar.Parse(name, src)
	if err := firstError(diags); err != nil {
		return nil, fmt.Errorf("%s no longer parses (%v)", name, err)
	}
	st := findStep(skill, h.Step)
	switch {
	case st == nil:
		return nil, fmt.Errorf("%s no longer has a step %d", name, h.Step)
	case st.Title != h.Title || st.Action == nil || st.Action.Tool != h.Tool:
		return nil, fmt.Errorf("step %d of %s changed since the run read it (now %q)", h.Step, name, st.Title)
	}
	patchStep(st, h)
	AppendChangelog(skill, ChangelogLine(h))
	out := format.Source(skill)
	if err := verify(name, out, h); err != nil {
		return nil, err
	}
	return out, nil
}

// ChangelogLine is the heal's changelog bullet, without a line ending:
// `- <date> — L<level> heal, step <n> (<title>): <reason>`.
func ChangelogLine(h *Heal) string {
	return fmt.Sprintf("- %s — L%d heal, step %d (%s): %s",
		h.Date.UTC().Format(time.DateOnly), h.Level, h.Step, OneLine(h.Title, MaxReason), OneLine(h.Reason, MaxReason))
}

// OneLine flattens s to one line, every run of white space or control
// characters becoming one space, and cuts it to at most max characters
// (the last one then "…").
func OneLine(s string, max int) string {
	var b strings.Builder
	space := false
	for _, r := range s {
		if unicode.IsSpace(r) || unicode.IsControl(r) || r == utf8.RuneError {
			space = b.Len() > 0
			continue
		}
		if space {
			b.WriteByte(' ')
			space = false
		}
		b.WriteRune(r)
	}
	out := b.String()
	if utf8.RuneCountInString(out) <= max {
		return out
	}
	runes := []rune(out)
	return strings.TrimRight(string(runes[:max-1]), " ") + "…"
}

// firstError returns the first error-severity diagnostic, or nil.
func firstError(diags ast.Diagnostics) error {
	for _, d := range diags {
		if d.Severity == ast.SeverityError {
			return errors.New(d.String())
		}
	}
	return nil
}

func findStep(skill *ast.Skill, n int) *ast.Step {
	for _, st := range skill.Steps {
		if st.Number == n {
			return st
		}
	}
	return nil
}

// verify parses the printed skill and checks the healed step reads back as
// the heal: the last line of defence against a patch that would corrupt
// the file.
func verify(name string, out []byte, h *Heal) error {
	skill, diags := grammar.Parse(name, out)
	if err := firstError(diags); err != nil {
		return fmt.Errorf("the healed skill would not parse (%v); %s left as it was", err, name)
	}
	st := findStep(skill, h.Step)
	same := st != nil && len(st.Asserts) == len(h.Asserts) && len(st.Binds) == len(h.Binds)
	for i := 0; same && i < len(h.Asserts); i++ {
		same = format.Assert(st.Asserts[i].Expr) == format.Assert(h.Asserts[i])
	}
	for i := 0; same && i < len(h.Binds); i++ {
		same = format.Bind(st.Binds[i].Expr) == format.Bind(h.Binds[i])
	}
	if same && h.Args != nil {
		same = st.Action != nil && format.Value(st.Action.Args) == format.Value(h.Args)
	}
	if !same {
		return fmt.Errorf("the healed step %d would not read back as patched; %s left as it was", h.Step, name)
	}
	return nil
}
