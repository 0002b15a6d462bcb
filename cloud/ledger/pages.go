package ledger

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
	"time"

	"github.com/reelier/reelier/runtime/runlog"
)

//go:embed templates/*.html
var templateFS embed.FS

var pages = template.Must(template.New("").Funcs(template.FuncMap{
	"when":    func(t time.Time) string { return t.UTC().Format("2006-01-02 15:04:05 UTC") },
	"iso":     stamp,
	"percent": func(f float64) string { return strconv.FormatFloat(100*f, 'f', 0, 64) + "%" },
	"ms":      formatMs,
	"path":    url.PathEscape,
}).ParseFS(templateFS, "templates/*.html"))

// pageCSP keeps every page self-contained: no script, no external asset.
const pageCSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

// stripLength is how many recent runs the history strip and chart show.
const stripLength = 100

// page wraps an HTML page handler with authentication; a browser is asked
// for the key as the password of HTTP Basic.
func (s *Server) page(h func(*http.Request) (string, any, error)) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		status, msg, err := s.authorize(r)
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
		case status == http.StatusUnauthorized:
			w.Header().Set("WWW-Authenticate", `Basic realm="reelier ledger", charset="UTF-8"`)
			msg = "This ledger needs an API key: enter it as the password (any user name)."
		}
		s.render(w, status, "error.html", map[string]any{"Status": status, "Message": msg})
	})
}

func notFoundWhat(err error) string {
	if errors.Is(err, ErrUnknownSkill) {
		return "skill"
	}
	return "run"
}

// render executes a template into a buffer first, so a failure cannot
// leave half a page.
func (s *Server) render(w http.ResponseWriter, status int, name string, data any) {
	var buf bytes.Buffer
	if err := pages.ExecuteTemplate(&buf, name, data); err != nil {
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
	return "index.html", map[string]any{"Skills": sums, "Runs": total}, err
}

// runView is a run with its record decoded for display.
type runView struct {
	Run
	Rec runlog.Record
	// Legacy is true when the record's totals predate honest totals and
	// were derived from its steps.
	Legacy bool
	Healed int
}

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
	for _, st := range v.Rec.Steps {
		if st.Level > 0 {
			v.Healed++
		}
	}
	return v
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
	strip := slices.Clone(recent.Runs)
	slices.Reverse(strip) // oldest first, left to right
	rows := make([]runView, len(table.Runs))
	for i, run := range table.Runs {
		rows[i] = newRunView(run)
	}
	return "skill.html", map[string]any{
		"Skill": sum, "Strip": strip, "Chart": newChart(strip), "Rows": rows,
		"Next": table.Next, "Paged": p.Before > 0,
	}, nil
}

// runPage shows one run's receipt.
func (s *Server) runPage(r *http.Request) (string, any, error) {
	run, err := s.store.Run(r.Context(), r.PathValue("id"))
	if err != nil {
		return "", nil, err
	}
	var pretty bytes.Buffer
	json.Indent(&pretty, run.Record, "", "  ")
	return "run.html", map[string]any{"Run": newRunView(run), "Pretty": pretty.String()}, nil
}

// formatMs renders a duration in milliseconds for people.
func formatMs(ms int64) string {
	if ms < 1000 {
		return fmt.Sprintf("%d ms", ms)
	}
	return strconv.FormatFloat(float64(ms)/1000, 'f', 2, 64) + " s"
}
