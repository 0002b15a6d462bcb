package scan

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/reelier/reelier/compile"
	"github.com/reelier/reelier/internal/exitstatus"
	"github.com/reelier/reelier/internal/words"
	"github.com/reelier/reelier/lang/agentskill"
	"github.com/reelier/reelier/record/session"
)

// progressEvery is how often the progress bar is redrawn.
const progressEvery = 100 * time.Millisecond

// AskSelection prompts until the answer is a valid selection; the end of
// the input is no selection.
func AskSelection(in io.Reader, w io.Writer, n int) []int {
	r := bufio.NewReader(in)
	for {
		fmt.Fprint(w, "\nSelect sessions to compile (comma-separated numbers, \"all\", or Enter for none): ")
		answer, err := r.ReadString('\n')
		if err != nil && answer == "" {
			fmt.Fprintln(w)
			return nil
		}
		chosen, perr := ParseSelection(answer, n)
		if perr == nil {
			return chosen
		}
		fmt.Fprintf(w, "%v\n", perr)
		if err != nil {
			return nil
		}
	}
}

// CompileOptions say where CompileChosen writes.
type CompileOptions struct {
	// OutDir receives <name>.skill.md; SkillsDir, when set, receives
	// <name>/SKILL.md instead (an Agent Skills folder).
	OutDir, SkillsDir string
	// JSON reports nothing on the writer (reelier scan --json).
	JSON bool
}

// Compiled is what happened to one chosen session.
type Compiled struct {
	Path   string `json:"path"`
	Skill  string `json:"skill,omitempty"`
	Steps  int    `json:"steps,omitempty"`
	Status string `json:"status"` // "written", "exists" or "failed"
	Error  string `json:"error,omitempty"`
}

// CompileChosen compiles the chosen workflows (indexes into r.Groups),
// each from its newest session, reporting each on w unless opts.JSON.
func (res *Result) CompileChosen(w io.Writer, chosen []int, opts CompileOptions) []Compiled {
	var out []Compiled
	if len(chosen) > 0 && !opts.JSON {
		fmt.Fprintln(w)
	}
	for _, i := range chosen {
		e := res.Replayable[res.Groups[i].Sessions[0]]
		c := compileEntry(e, opts)
		out = append(out, c)
		if opts.JSON {
			continue
		}
		switch c.Status {
		case "written":
			fmt.Fprintf(w, "Compiled %s — %s (from %s)\n", c.Skill, words.Count(c.Steps, "step"), e.Path)
		case "exists":
			fmt.Fprintf(w, "Left %s alone: it exists (from %s)\n", c.Skill, e.Path)
		default:
			fmt.Fprintf(w, "Could not compile %s: %s\n", e.Path, c.Error)
		}
	}
	return out
}

// compileEntry compiles one scanned session exactly as from-session does.
func compileEntry(e *Entry, opts CompileOptions) Compiled {
	c := Compiled{Path: e.Path}
	f, err := os.Open(e.Path)
	if err != nil {
		c.Status, c.Error = "failed", err.Error()
		return c
	}
	read := e.read
	if read == nil {
		read = session.Read
	}
	s, err := read(f, session.Options{Keep: true})
	f.Close()
	if err != nil {
		c.Status, c.Error = "failed", err.Error()
		return c
	}
	name := scanSkillName(e, s)
	c.Skill = filepath.Join(opts.OutDir, name+".skill.md")
	if opts.SkillsDir != "" {
		// The folder is the name the compiler gives the skill, so an
		// agent that loads DIR/<name>/SKILL.md finds the two agree.
		if n := agentskill.Name(name); n != "" {
			name = n
		}
		c.Skill = filepath.Join(opts.SkillsDir, name, "SKILL.md")
	}
	if _, err := os.Lstat(c.Skill); err == nil {
		c.Status = "exists"
		return c
	}
	res, err := s.WriteSkill(name, session.ObservedFile, filepath.Base(e.Path), c.Skill)
	if err != nil {
		var ee *exitstatus.Error
		if errors.As(err, &ee) && ee.Err != nil {
			err = ee.Err
		}
		c.Status, c.Error = "failed", err.Error()
		return c
	}
	c.Status, c.Steps = "written", res.Summary.Steps
	return c
}

// scanSkillName is <project>-<first 8 characters of the session id>, in
// the characters a file name can safely hold.
func scanSkillName(e *Entry, s *session.Session) string {
	base := compile.DefaultSkillPath(e.Project+"-"+strings.TrimPrefix(s.DefaultName(e.Path), "session-"), e.Path)
	return strings.TrimSuffix(base, ".skill.md")
}

// ProgressBar draws scan progress on a terminal; off, it draws nothing.
type ProgressBar struct {
	w    io.Writer
	on   bool
	last time.Time
	drew bool
}

// NewProgressBar draws on w, unless off (w is not a terminal, or the
// output is JSON).
func NewProgressBar(w io.Writer, off bool) *ProgressBar {
	return &ProgressBar{w: w, on: !off}
}

// Update draws p, at most every progressEvery until the last file.
func (b *ProgressBar) Update(p Progress) {
	if !b.on || p.FilesDone < p.Files && time.Since(b.last) < progressEvery {
		return
	}
	b.last, b.drew = time.Now(), true
	const width = 30
	filled := width
	if p.Bytes > 0 {
		filled = int(int64(width) * p.BytesDone / p.Bytes)
	}
	fmt.Fprintf(b.w, "\r\x1b[KScanning [%s%s] %d/%d sessions · %s", strings.Repeat("█", filled), strings.Repeat("░", width-filled), p.FilesDone, p.Files, megabytes(p.BytesDone))
}

// Clear removes the bar once the scan is over.
func (b *ProgressBar) Clear() {
	if b.drew {
		fmt.Fprint(b.w, "\r\x1b[K")
	}
}

func megabytes(n int64) string { return fmt.Sprintf("%.1f MB", float64(n)/1e6) }
