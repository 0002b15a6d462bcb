package server

import (
	"slices"
	"testing"
	"time"
)

// TestChartByRunOrder: runs are placed by their order of arrival, evenly,
// whatever their start times: a burst of CI runs in the same minute
// spreads out instead of collapsing into one vertical line, and a gap of
// days takes no more room than a minute.
func TestChartByRunOrder(t *testing.T) {
	t0 := time.Date(2026, 7, 18, 14, 0, 0, 0, time.UTC)
	tests := []struct {
		name   string
		starts []time.Duration
		total  int
		wantX  []string
		from   string
		to     string
	}{
		{"burst in one second", []time.Duration{0, 0, time.Second, time.Second}, 4, []string{"64.0", "261.3", "458.7", "656.0"}, "run 1", "run 4"},
		{"days apart then a burst", []time.Duration{0, 72 * time.Hour, 72*time.Hour + time.Minute}, 3, []string{"64.0", "360.0", "656.0"}, "run 1", "run 3"},
		{"one run", []time.Duration{0}, 1, []string{"360.0"}, "run 1", "run 1"},
		{"the last 2 of 150", []time.Duration{0, time.Minute}, 150, []string{"64.0", "656.0"}, "run 149", "run 150"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var runs []Run
			for i, d := range tt.starts {
				runs = append(runs, Run{StartedAt: t0.Add(d), Verdict: VerdictPassed})
				runs[i].Totals.Ms = int64(100 * (i + 1))
			}
			c := newChart(runs, tt.total)
			var xs []string
			for _, d := range c.Duration.Dots {
				xs = append(xs, d.X)
			}
			if !slices.Equal(xs, tt.wantX) || c.From != tt.from || c.To != tt.to {
				t.Errorf("x %v, axis %s … %s; want %v, %s … %s", xs, c.From, c.To, tt.wantX, tt.from, tt.to)
			}
		})
	}
	if newChart(nil, 0) != nil {
		t.Error("a chart of no runs")
	}
}
