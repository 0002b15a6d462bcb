package ledger_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
	"github.com/reelier/reelier/cloud/ledger/ledgertest"
)

// browser starts headless Chromium with a fresh profile and returns a
// context for chromedp actions, closed when the test ends. Every URL the
// browser requests is recorded in *requested.
func browser(t *testing.T, requested *[]string) context.Context {
	t.Helper()
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(ledgertest.Chromium(t)),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.Flag("headless", true),
		chromedp.Flag("no-sandbox", true),
		chromedp.Flag("disable-gpu", true),
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("no-first-run", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.WindowSize(1200, 900),
	}
	ctx, cancelTimeout := context.WithTimeout(context.Background(), 45*time.Second)
	actx, cancelAlloc := chromedp.NewExecAllocator(ctx, opts...)
	bctx, cancelBrowser := chromedp.NewContext(actx, chromedp.WithLogf(t.Logf))
	t.Cleanup(func() { cancelBrowser(); cancelAlloc(); cancelTimeout() })
	var mu sync.Mutex
	err := chromedp.Listen(bctx, func(ev any) {
		if e, ok := ev.(*network.EventRequestWillBeSent); ok {
			mu.Lock()
			*requested = append(*requested, e.Request.URL)
			mu.Unlock()
		}
	})
	if err != nil {
		t.Fatalf("starting Chromium: %v", err)
	}
	return bctx
}

// screenshot saves a full-page PNG of the current page in the test's temp
// directory and checks it is a PNG.
func screenshot(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(png, []byte("\x89PNG")) || len(png) < 1000 {
		t.Fatalf("%s: not a PNG screenshot (%d bytes)", name, len(png))
	}
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s", path)
}

// TestReceiptsPageInBrowser loads the pages of a seeded ledger in headless
// Chromium and checks the rendered DOM: the verdicts and counts per skill,
// unchecked never shown as passed, the history strip and the SVG chart
// laid out, a receipt's steps, and no request leaving the ledger.
func TestReceiptsPageInBrowser(t *testing.T) {
	var requested []string
	ctx := browser(t, &requested)
	l := newTestLedger(t, false, 0)
	ids := seed(t, l)

	type row struct{ Skill, Verdict, PassRate, Runs, Unchecked, Link string }
	visit(t, ctx, l.srv.URL+"/", "#skills")
	rows := eval[[]row](t, ctx, `[...document.querySelectorAll('#skills tbody tr')].map(tr => ({
		Skill: tr.dataset.skill,
		Verdict: (tr.querySelector('[data-verdict]') || {}).textContent || '',
		PassRate: tr.querySelector('[data-pass-rate]').textContent,
		Runs: tr.querySelector('[data-runs]').textContent,
		Unchecked: tr.querySelector('[data-unchecked]').textContent,
		Link: tr.querySelector('a').textContent,
	}))`)
	want := []row{
		{`<b>bold</b> & "quoted"`, "failed", "0%", "1", "0", `<b>bold</b> & "quoted"`},
		{"never-run", "", "–", "0", "0", "never-run"},
		{"smoke", "unchecked", "0%", "1", "1", "smoke"},
		{"weekly", "passed", "86%", "7", "0", "weekly"},
	}
	if len(rows) != len(want) {
		t.Fatalf("rendered %d skill rows, want %d: %+v", len(rows), len(want), rows)
	}
	for i := range want {
		if rows[i] != want[i] {
			t.Errorf("row %d:\n got %+v\nwant %+v", i, rows[i], want[i])
		}
	}
	screenshot(t, ctx, "index.png")

	visit(t, ctx, l.srv.URL+"/skills/weekly", "#chart")
	strip := eval[[]string](t, ctx, `[...document.querySelectorAll('#strip a')].map(a => a.dataset.verdict)`)
	polylines := eval[int](t, ctx, `document.querySelectorAll('#chart polyline').length`)
	dots := eval[int](t, ctx, `document.querySelectorAll('#chart circle').length`)
	chartWidth := eval[float64](t, ctx, `document.querySelector('#chart').getBoundingClientRect().width`)
	if got := strings.Join(strip, ","); got != "passed,passed,passed,failed,passed,passed,passed" {
		t.Errorf("history strip %s", got)
	}
	if polylines != 2 || dots != 14 || chartWidth < 300 {
		t.Errorf("chart: %d polylines, %d dots, %.0f px wide", polylines, dots, chartWidth)
	}
	screenshot(t, ctx, "skill.png")

	visit(t, ctx, l.srv.URL+"/runs/"+ids[5], "#steps")
	outcomes := eval[[]string](t, ctx, `[...document.querySelectorAll('#steps [data-outcome]')].map(e => e.textContent)`)
	level := eval[string](t, ctx, `document.querySelector('#steps tr[data-step="1"] td:nth-child(4)').innerText`)
	if strings.Join(outcomes, ",") != "passed,unchecked" || !strings.Contains(level, "healed at L1") {
		t.Errorf("receipt: outcomes %v, level %q", outcomes, level)
	}
	screenshot(t, ctx, "run.png")

	for _, u := range requested {
		if !strings.HasPrefix(u, l.srv.URL+"/") {
			t.Errorf("the page requested %s, outside the ledger", u)
		}
	}
}

// visit loads url and waits until the element sel is visible.
func visit(t *testing.T, ctx context.Context, url, sel string) {
	t.Helper()
	if err := chromedp.Do(ctx, chromedp.Navigate(url), chromedp.WaitVisible(chromedp.CSS(sel))); err != nil {
		t.Fatalf("loading %s: %v", url, err)
	}
}

// eval runs JavaScript in the page and decodes its value.
func eval[T any](t *testing.T, ctx context.Context, js string) T {
	t.Helper()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](js))
	if err != nil {
		t.Fatalf("evaluating %s: %v", js, err)
	}
	return v
}
