package ledger

import (
	"fmt"
	"strconv"
	"strings"
)

// Chart geometry, in SVG user units.
const (
	chartW, chartH         = 760, 220
	chartLeft, chartRight  = 64, 656
	chartTop, chartBottom  = 16, 180
	chartPlotW, chartPlotH = chartRight - chartLeft, chartBottom - chartTop
	chartMidX              = (chartLeft + chartRight) / 2
)

// chart is an SVG line chart of duration and LLM tokens over a skill's
// recent runs, laid out here so the template only prints numbers.
type chart struct {
	W, H                     int
	Left, Right, Top, Bottom int
	// Duration and Tokens are the two series; each has its own y scale,
	// duration on the left axis and tokens on the right.
	Duration, Tokens series
	// From and To label the time axis.
	From, To string
	// NoTokens is true when no run spent an LLM token.
	NoTokens bool
}

// series is one polyline with a dot per run.
type series struct {
	Points string
	Dots   []dot
	// Max labels the top of the series' axis.
	Max string
}

// dot is one run on a series.
type dot struct {
	X, Y  string
	Title string
}

// newChart lays out runs (oldest first) by start time.
func newChart(runs []Run) *chart {
	if len(runs) == 0 {
		return nil
	}
	c := &chart{W: chartW, H: chartH, Left: chartLeft, Right: chartRight, Top: chartTop, Bottom: chartBottom}
	t0, t1 := runs[0].StartedAt, runs[0].StartedAt
	var maxMs, maxTok int64
	for _, r := range runs {
		if r.StartedAt.Before(t0) {
			t0 = r.StartedAt
		}
		if r.StartedAt.After(t1) {
			t1 = r.StartedAt
		}
		maxMs = max(maxMs, r.Totals.Ms)
		maxTok = max(maxTok, tokens(r))
	}
	c.From, c.To = t0.UTC().Format("2006-01-02 15:04"), t1.UTC().Format("2006-01-02 15:04")
	c.NoTokens = maxTok == 0
	span := t1.Sub(t0)
	x := func(r Run) float64 {
		if span <= 0 {
			return chartMidX
		}
		return chartLeft + chartPlotW*float64(r.StartedAt.Sub(t0))/float64(span)
	}
	c.Duration = plot(runs, x, maxMs, func(r Run) int64 { return r.Totals.Ms }, formatMs)
	c.Tokens = plot(runs, x, maxTok, tokens, func(n int64) string { return strconv.FormatInt(n, 10) + " tokens" })
	return c
}

// tokens is a run's LLM input plus output tokens.
func tokens(r Run) int64 { return r.Totals.LLMInputTokens + r.Totals.LLMOutputTokens }

// plot lays out one series against a y scale from 0 to top.
func plot(runs []Run, x func(Run) float64, top int64, val func(Run) int64, label func(int64) string) series {
	var s series
	s.Max = label(top)
	scale := float64(top)
	if scale == 0 {
		scale = 1
	}
	pts := make([]string, 0, len(runs))
	for _, r := range runs {
		v := val(r)
		xs := num(x(r))
		ys := num(chartBottom - chartPlotH*float64(v)/scale)
		pts = append(pts, xs+","+ys)
		s.Dots = append(s.Dots, dot{X: xs, Y: ys, Title: fmt.Sprintf("%s: %s (%s)", r.StartedAt.UTC().Format("2006-01-02 15:04"), label(v), r.Verdict)})
	}
	s.Points = strings.Join(pts, " ")
	return s
}

// num prints a coordinate with one decimal.
func num(f float64) string { return strconv.FormatFloat(f, 'f', 1, 64) }
