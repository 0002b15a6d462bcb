package server

import (
	"bytes"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/pmezard/go-difflib/difflib"
	"github.com/reelier/reelier/internal/termtext"
	"github.com/reelier/reelier/replay/cost"
	"github.com/reelier/reelier/replay/runlog"
)

//go:embed templates/*.html
var templateFS embed.FS

// pages parses the templates on first use: only `reelier ledger` serves
// them, and parsing at package initialisation cost every command start-up
// about 0.8 ms and 3,400 allocations (#20).
var pages = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("").Funcs(template.FuncMap{
		"when":     func(t time.Time) string { return t.UTC().Format("2006-01-02 15:04:05 UTC") },
		"iso":      stamp,
		"percent":  func(f float64) string { return strconv.FormatFloat(100*f, 'f', 0, 64) + "%" },
		"ms":       formatMs,
		"path":     url.PathEscape,
		"inert":    termtext.Line,
		"lines":    termtext.Block,
		"short":    shortHash,
		"hash":     contentHash,
		"runcost":  func(steps []runlog.StepRecord) string { return costText(runlog.LLMCost(steps)) },
		"stepcost": func(u *runlog.LLMUsage) string { return costText(u.Cost()) },
		// spentcost is a run's cost when it spent LLM tokens, "" otherwise.
		"spentcost": func(steps []runlog.StepRecord) string {
			if m, u := runlog.LLMCost(steps); m != 0 || u != 0 {
				return costText(m, u)
			}
			return ""
		},
	}).ParseFS(templateFS, "templates/*.html"))
})

// costText is what LLM tokens cost as the run recorded it: "$0.0027",
// "$0.0027 + price unknown for N tokens", "price unknown for N tokens";
// "$0.00" when none was spent.
func costText(micros, unpriced int64) string {
	switch {
	case unpriced == 0:
		return cost.Micros(micros).String()
	case micros == 0:
		return fmt.Sprintf("price unknown for %d tokens", unpriced)
	}
	return fmt.Sprintf("%s + price unknown for %d tokens", cost.Micros(micros), unpriced)
}

// pageCSP keeps every page self-contained: no script, no external asset.
const pageCSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

// stripLength is how many recent runs the history strip and chart show.
const stripLength = 100

// page wraps an HTML page handler with authentication; a browser is asked
// for the key as the password of HTTP Basic.
func (s *Server) page(h func(*http.Request) (string, any, error)) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		status, msg, err := s.authorize(r, ScopeRead)
		if err == nil && status == 0 {
			var name string
			var data any
			name, data, err = h(r)
			if err == nil {
				s.render(w, http.StatusOK, name, data)
				return
			}
		}
		switch {
		case errors.Is(err, ErrUnknownSkill), errors.Is(err, ErrNotFound):
			status, msg = http.StatusNotFound, "There is no such "+notFoundWhat(err)+" on this ledger."
		case err != nil:
			s.logf("ledger: database error: %v", err)
			w.Header().Set("Retry-After", "5")
			status, msg = http.StatusServiceUnavailable, "The ledger's database is unavailable; try again later."
		case status == http.StatusUnauthorized && presentedKey(r) == "":
			w.Header().Set("WWW-Authenticate", `Basic realm="reelier ledger", charset="UTF-8"`)
			msg = "This ledger needs an API key: enter it as the password (any user name)."
		case status == http.StatusUnauthorized:
			w.Header().Set("WWW-Authenticate", `Basic realm="reelier ledger", charset="UTF-8"`)
		}
		s.render(w, status, "error.html", map[string]any{"Status": status, "Message": msg})
	})
}

func notFoundWhat(err error) string {
	switch {
	case errors.Is(err, ErrUnknownSkill):
		return "skill"
	case errors.Is(err, errNoVersion):
		return "version of this skill file"
	}
	return "run"
}

// errNoVersion is a ?version= the skill file does not have.
var errNoVersion = fmt.Errorf("%w: no such version", ErrNotFound)

// render executes a template into a buffer first, so a failure cannot
// leave half a page.
func (s *Server) render(w http.ResponseWriter, status int, name string, data any) {
	var buf bytes.Buffer
	if err := pages().ExecuteTemplate(&buf, name, data); err != nil {
		panic(fmt.Sprintf("rendering %s: %v", name, err))
	}
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Content-Security-Policy", pageCSP)
	h.Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	w.Write(buf.Bytes())
}

// indexPage lists every skill with its latest verdict, pass rate and last
// run.
func (s *Server) indexPage(r *http.Request) (string, any, error) {
	sums, err := s.store.Skills(r.Context())
	total := 0
	for _, k := range sums {
		total += k.Runs
	}
	return "index.html", map[string]any{"Skills": sums, "Runs": total, "WithMock": withMock(r)}, err
}

// runView is a run with its record decoded for display.
type runView struct {
	Run
	// Order is the run's 1-based position among its skill's runs by
	// arrival, when known (0 otherwise).
	Order int
	Rec   runlog.Record
	// Legacy is true when the record's totals predate honest totals and
	// were derived from its steps.
	Legacy bool
	// Failing is the first failed step, nil when none failed; FirstFailure
	// is what it said first, cut to maxFailureRunes.
	Failing      *runlog.StepRecord
	FirstFailure string
	// Where is the record's provenance made fit to show, nil when it has
	// none.
	Where *provenanceView
	// Patches are the heals the record carries (a step's lines before and
	// after).
	Patches []patchView
}

// maxFailureRunes bounds the first failure shown in a runs table.
const maxFailureRunes = 240

// provenanceView is a run's provenance for the pages. Every value is
// inert text (termtext.Line: control and bidi characters shown as
// escapes; html/template escapes markup); RunURL is set only when the
// record's runUrl is an absolute http(s) URL, the only kind ever linked.
type provenanceView struct {
	Provider, Repository, Commit, Ref, RawRunURL string
	RunURL                                       string
	// ShortCommit is the commit's first 12 characters.
	ShortCommit string
}

// patchView is one healed step's change.
type patchView struct {
	N             int
	Title, Change string
	Lines         []diffLine
}

// diffLine is one line of a diff: Op is "-", "+" or " ".
type diffLine struct{ Op, Text string }

func newRunView(r Run) runView {
	v := runView{Run: r}
	var probe struct {
		Totals map[string]json.RawMessage `json:"totals"`
	}
	json.Unmarshal(r.Record, &v.Rec) // validated on the way in
	json.Unmarshal(r.Record, &probe)
	_, hasU := probe.Totals["unchecked"]
	_, hasS := probe.Totals["skipped"]
	v.Legacy = !hasU && !hasS
	for i := range v.Rec.Steps {
		st := &v.Rec.Steps[i]
		if st.Outcome == runlog.Failed && v.Failing == nil {
			v.Failing = st
			switch {
			case st.Why != nil && st.Why.Trigger != "":
				v.FirstFailure = st.Why.Trigger
			case len(st.Failures) > 0:
				v.FirstFailure = st.Failures[0]
			}
			if rs := []rune(v.FirstFailure); len(rs) > maxFailureRunes {
				v.FirstFailure = string(rs[:maxFailureRunes]) + "…"
			}
		}
		if st.Why != nil && (len(st.Why.Before) > 0 || len(st.Why.After) > 0) {
			p := patchView{N: st.N, Title: st.Title, Change: st.Why.Change}
			for _, l := range st.Why.Before {
				p.Lines = append(p.Lines, diffLine{"-", l})
			}
			for _, l := range st.Why.After {
				p.Lines = append(p.Lines, diffLine{"+", l})
			}
			v.Patches = append(v.Patches, p)
		}
	}
	if pr := v.Rec.Provenance; pr != nil {
		v.Where = &provenanceView{Provider: pr.Provider, Repository: pr.Repository, Commit: pr.Commit, Ref: pr.Ref, RawRunURL: pr.RunURL}
		if pr.RunURL != "" && runURLProblem(pr.RunURL) == "" && provenanceProblem(pr.RunURL, 2048) == "" {
			v.Where.RunURL = pr.RunURL
		}
		v.Where.ShortCommit = pr.Commit
		if rs := []rune(pr.Commit); len(rs) > 12 {
			v.Where.ShortCommit = string(rs[:12])
		}
	}
	return v
}

// shortHash is the first 12 characters of a hex hash.
func shortHash(h string) string {
	if len(h) > 12 {
		return h[:12]
	}
	return h
}

// skillPage shows one skill: figures, a pass/fail strip and a chart of the
// recent runs, and a page of runs newest first.
func (s *Server) skillPage(r *http.Request) (string, any, error) {
	ctx := r.Context()
	name := r.PathValue("name")
	sum, err := s.store.Skill(ctx, name)
	if err != nil {
		return "", nil, err
	}
	p, fe := parsePage(r)
	if len(fe) > 0 {
		p = Page{Limit: defaultPageSize}
	}
	recent, err := s.store.Runs(ctx, name, Page{Limit: stripLength})
	if err != nil {
		return "", nil, err
	}
	table, err := s.store.Runs(ctx, name, p)
	if err != nil {
		return "", nil, err
	}
	versions, err := s.store.SkillVersions(ctx, name)
	if err != nil {
		return "", nil, err
	}
	strip := slices.Clone(recent.Runs)
	slices.Reverse(strip) // oldest first, left to right
	rows := make([]runView, len(table.Runs))
	for i, run := range table.Runs {
		rows[i] = newRunView(run)
	}
	return "skill.html", map[string]any{
		"Skill": sum, "Strip": strip, "Chart": newChart(strip, sum.Runs), "Rows": rows,
		"Next": table.Next, "Paged": p.Before > 0, "Latest": versions[len(versions)-1], "Versions": len(versions), "WithMock": withMock(r),
	}, nil
}

// skillFilePage shows a skill file as uploaded: the latest content, or
// ?version=N, with the upload history and the diff from the version
// before.
func (s *Server) skillFilePage(r *http.Request) (string, any, error) {
	name := r.PathValue("name")
	versions, err := s.store.SkillVersions(r.Context(), name)
	if err != nil {
		return "", nil, err
	}
	shown := len(versions)
	if q := r.URL.Query().Get("version"); q != "" {
		n, err := strconv.Atoi(q)
		if err != nil || n < 1 || n > len(versions) {
			return "", nil, errNoVersion
		}
		shown = n
	}
	data := map[string]any{"Skill": name, "Versions": versions, "Shown": versions[shown-1]}
	if shown > 1 {
		data["Diff"] = fileDiff(versions[shown-2], versions[shown-1])
	}
	return "file.html", data, nil
}

// fileDiff is the unified diff between two versions of a skill file, as
// lines for the page.
func fileDiff(a, b SkillVersion) []diffLine {
	text, _ := difflib.GetUnifiedDiffString(difflib.UnifiedDiff{
		A: difflib.SplitLines(a.SkillMd), B: difflib.SplitLines(b.SkillMd),
		FromFile: fmt.Sprintf("version %d", a.Version), ToFile: fmt.Sprintf("version %d", b.Version), Context: 3,
	})
	var out []diffLine
	for _, l := range strings.SplitAfter(text, "\n") {
		l = strings.TrimSuffix(l, "\n")
		if l == "" {
			continue
		}
		switch {
		case strings.HasPrefix(l, "+++"), strings.HasPrefix(l, "---"), strings.HasPrefix(l, "@@"):
			out = append(out, diffLine{"@", l})
		default: // " ", "+" or "-", then the line
			out = append(out, diffLine{l[:1], l[1:]})
		}
	}
	return out
}

// runPage shows one run's receipt.
func (s *Server) runPage(r *http.Request) (string, any, error) {
	run, err := s.store.Run(r.Context(), r.PathValue("id"))
	if err != nil {
		return "", nil, err
	}
	var pretty bytes.Buffer
	json.Indent(&pretty, run.Record, "", "  ")
	v := newRunView(run)
	data := map[string]any{"Run": v, "Pretty": termtext.Block(pretty.String())}
	// The file as run is the uploaded version whose hash the record
	// carries; when the run healed and a later version was uploaded, the
	// diff between the two is what the heal changed in the file.
	if v.Rec.SkillSHA256 != "" {
		versions, err := s.store.SkillVersions(r.Context(), run.Skill)
		if err != nil && !errors.Is(err, ErrUnknownSkill) {
			return "", nil, err
		}
		for i, ver := range versions {
			if contentHash(ver.SkillMd) != v.Rec.SkillSHA256 {
				continue
			}
			data["AsRun"] = ver
			if run.Healed > 0 && i+1 < len(versions) {
				data["After"] = versions[i+1]
				data["FileDiff"] = fileDiff(ver, versions[i+1])
			}
			break
		}
	}
	return "run.html", data, nil
}

// formatMs renders a duration in milliseconds for people.
func formatMs(ms int64) string {
	if ms < 1000 {
		return fmt.Sprintf("%d ms", ms)
	}
	return strconv.FormatFloat(float64(ms)/1000, 'f', 2, 64) + " s"
}
