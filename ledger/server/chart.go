package server

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
	// From and To label the x axis, which is run order (by arrival), not
	// time: a burst of CI runs minutes apart spreads out as evenly as
	// nightly ones. FromWhen and ToWhen are the first and last runs' start
	// times.
	From, To         string
	FromWhen, ToWhen string
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

// newChart lays out runs (oldest first, the last len(runs) of total
// runs) by their order of arrival: run k of n sits at k/(n-1) of the
// width, whatever the time between runs.
func newChart(runs []Run, total int) *chart {
	if len(runs) == 0 {
		return nil
	}
	c := &chart{W: chartW, H: chartH, Left: chartLeft, Right: chartRight, Top: chartTop, Bottom: chartBottom}
	var maxMs, maxTok int64
	for _, r := range runs {
		maxMs = max(maxMs, r.Totals.Ms)
		maxTok = max(maxTok, tokens(r))
	}
	first := max(total-len(runs)+1, 1)
	c.From, c.To = fmt.Sprintf("run %d", first), fmt.Sprintf("run %d", first+len(runs)-1)
	c.FromWhen = runs[0].StartedAt.UTC().Format("2006-01-02 15:04")
	c.ToWhen = runs[len(runs)-1].StartedAt.UTC().Format("2006-01-02 15:04")
	c.NoTokens = maxTok == 0
	x := func(i int) float64 {
		if len(runs) == 1 {
			return chartMidX
		}
		return chartLeft + chartPlotW*float64(i)/float64(len(runs)-1)
	}
	c.Duration = plot(runs, first, x, maxMs, func(r Run) int64 { return r.Totals.Ms }, formatMs)
	c.Tokens = plot(runs, first, x, maxTok, tokens, func(n int64) string { return strconv.FormatInt(n, 10) + " tokens" })
	return c
}

// tokens is a run's LLM input plus output tokens.
func tokens(r Run) int64 { return r.Totals.LLMInputTokens + r.Totals.LLMOutputTokens }

// plot lays out one series against a y scale from 0 to top.
func plot(runs []Run, first int, x func(int) float64, top int64, val func(Run) int64, label func(int64) string) series {
	var s series
	s.Max = label(top)
	scale := float64(top)
	if scale == 0 {
		scale = 1
	}
	pts := make([]string, 0, len(runs))
	for i, r := range runs {
		v := val(r)
		xs := num(x(i))
		ys := num(chartBottom - chartPlotH*float64(v)/scale)
		pts = append(pts, xs+","+ys)
		s.Dots = append(s.Dots, dot{X: xs, Y: ys, Title: fmt.Sprintf("run %d, %s: %s (%s)", first+i, r.StartedAt.UTC().Format("2006-01-02 15:04"), label(v), r.Verdict)})
	}
	s.Points = strings.Join(pts, " ")
	return s
}

// num prints a coordinate with one decimal.
func num(f float64) string { return strconv.FormatFloat(f, 'f', 1, 64) }
