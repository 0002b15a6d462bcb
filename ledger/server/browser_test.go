package server_test

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
	"github.com/reelier/reelier/testkit/ledgertest"
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
		// Overlay scroll bars, as on a phone: the layout is the full window
		// width, and a full-page screenshot shows what the checks measured.
		chromedp.Flag("hide-scrollbars", true),
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

// EnvScreenshots names a directory where the browser tests save their
// screenshots; unset, they go to the test's temp directory (logged).
const EnvScreenshots = "REELIER_LEDGER_SCREENSHOTS"

// screenshotDir is where this test's screenshots go.
func screenshotDir(t *testing.T) string {
	if dir := os.Getenv(EnvScreenshots); dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	return t.TempDir()
}

// screenshot saves a full-page PNG of the current page in dir and checks
// it is a PNG.
func screenshot(t *testing.T, ctx context.Context, dir, name string) {
	t.Helper()
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(png, []byte("\x89PNG")) || len(png) < 1000 {
		t.Fatalf("%s: not a PNG screenshot (%d bytes)", name, len(png))
	}
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s", path)
}

// TestReceiptsPageInBrowser loads the pages of a seeded ledger in headless
// Chromium at 1280 and at 420 CSS pixels wide and checks the rendered
// DOM: the verdicts and counts per skill, unchecked never shown as passed,
// the healed, tokens and duration columns, the history strip and the SVG
// chart laid out by run order, a failed run's failing step and first
// failure, a receipt's steps, provenance and heal patch, hostile text
// inert (no script element, no javascript: link, bidi controls shown as
// escapes), no page wider than the window, and no request leaving the
// ledger. It saves a screenshot of every page at both widths.
func TestReceiptsPageInBrowser(t *testing.T) {
	var requested []string
	ctx := browser(t, &requested)
	l := newTestLedger(t, false, 0)
	ids := seed(t, l)
	hostile := storeHostileRun(t, l)
	dir := screenshotDir(t)
	for _, width := range []int{1280, 420} {
		t.Run(fmt.Sprintf("%dpx", width), func(t *testing.T) {
			if err := chromedp.Do(ctx, chromedp.EmulateViewport(int64(width), 900)); err != nil {
				t.Fatal(err)
			}
			// fits fails unless the page is no wider than the window (nor
			// than the part a vertical scroll bar leaves) and every element
			// sel matches is laid out inside that.
			fits := func(page, sel string) {
				t.Helper()
				sw := eval[int](t, ctx, `document.scrollingElement.scrollWidth`)
				cw := eval[int](t, ctx, `document.documentElement.clientWidth`)
				if sw > width || sw > cw {
					t.Errorf("%s at %d px: the page is %d px wide, the window shows %d (horizontal overflow)", page, width, sw, cw)
				}
				bad := eval[[]string](t, ctx, `[...document.querySelectorAll(`+strconv.Quote(sel)+`)].filter(e => {
					const r = e.getBoundingClientRect();
					return r.width <= 0 || r.height <= 0 || r.left < 0 || r.right > document.documentElement.clientWidth + 0.5;
				}).map(e => e.outerHTML.slice(0, 120))`)
				if len(bad) > 0 {
					t.Errorf("%s at %d px: %d element(s) of %q not visible inside the window: %q", page, width, len(bad), sel, bad)
				}
			}
			shot := func(name string) { screenshot(t, ctx, dir, fmt.Sprintf("%s-%d.png", name, width)) }

			type row struct{ Skill, Verdict, PassRate, Runs, Unchecked, Healed, Tokens, Duration, Link string }
			visit(t, ctx, l.srv.URL+"/", "#skills")
			rows := eval[[]row](t, ctx, `[...document.querySelectorAll('#skills tbody tr')].map(tr => ({
				Skill: tr.dataset.skill,
				Verdict: (tr.querySelector('[data-verdict]') || {}).textContent || '',
				PassRate: tr.querySelector('[data-pass-rate]').textContent,
				Runs: tr.querySelector('[data-runs]').textContent,
				Unchecked: tr.querySelector('[data-unchecked]').textContent,
				Healed: tr.querySelector('[data-healed]').innerText,
				Tokens: tr.querySelector('[data-tokens]').innerText,
				Duration: tr.querySelector('[data-duration]').innerText,
				Link: tr.querySelector('a').textContent,
			}))`)
			want := []row{
				{`<b>bold</b> & "quoted"`, "failed", "0%", "1", "0", "0", "0", "100 ms", `<b>bold</b> & "quoted"`},
				{"never-run", "", "–", "0", "0", "0", "0", "–", "never-run"},
				{"smoke", "failed", "0%", "2", "1", "0", "0", "221 ms", "smoke"},
				{"weekly", "passed", "86%", "7", "0", "1", "1020", "301 ms", "weekly"},
			}
			if len(rows) != len(want) {
				t.Fatalf("rendered %d skill rows, want %d: %+v", len(rows), len(want), rows)
			}
			for i := range want {
				if rows[i] != want[i] {
					t.Errorf("row %d:\n got %+v\nwant %+v", i, rows[i], want[i])
				}
			}
			fits("index", "#skills [data-healed], #skills [data-tokens], #skills [data-duration], #skills [data-pass-rate]")
			shot("index")

			visit(t, ctx, l.srv.URL+"/skills/weekly", "#chart")
			strip := eval[[]string](t, ctx, `[...document.querySelectorAll('#strip a')].map(a => a.dataset.verdict)`)
			polylines := eval[int](t, ctx, `document.querySelectorAll('#chart polyline').length`)
			xs := eval[[]float64](t, ctx, `[...document.querySelectorAll('#chart circle')].slice(0, 7).map(c => +c.getAttribute('cx'))`)
			axis := eval[string](t, ctx, `document.querySelector('[data-axis-from]').textContent + ' … ' + document.querySelector('[data-axis-to]').textContent`)
			chartWidth := eval[float64](t, ctx, `document.querySelector('#chart').getBoundingClientRect().width`)
			if got := strings.Join(strip, ","); got != "passed,passed,passed,failed,passed,passed,passed" {
				t.Errorf("history strip %s", got)
			}
			if polylines != 2 || len(xs) != 7 || chartWidth < 300 || axis != "run 1 … run 7" {
				t.Errorf("chart: %d polylines, dots at x %v, %.0f px wide, axis %q", polylines, xs, chartWidth, axis)
			}
			for i := 2; i < len(xs); i++ { // run order: evenly spaced, left to right
				if d, d0 := xs[i]-xs[i-1], xs[1]-xs[0]; d <= 0 || math.Abs(d-d0) > 0.2 {
					t.Errorf("chart x positions %v are not evenly spaced by run order", xs)
					break
				}
			}
			fits("skill", "#runs td[data-healed], #chart, #skill-file a")
			shot("skill")

			visit(t, ctx, l.srv.URL+"/skills/smoke", "#runs")
			failing := eval[[]string](t, ctx, `[...document.querySelectorAll('#runs tbody tr')].map(tr => tr.querySelector('[data-failing-step]').innerText + ' | ' + tr.querySelector('[data-first-failure]').innerText)`)
			if len(failing) != 2 || failing[0] != `#2 Fetch <img src=x onerror=alert(1)> | got \u202e<script>alert(2)</script>` || failing[1] != " | " {
				t.Errorf("smoke's failing steps: %q", failing)
			}
			fits("failed skill", "#runs tr:first-child [data-failing-step], #runs tr:first-child [data-first-failure]")
			if n := eval[int](t, ctx, `document.querySelectorAll('script, img, a[href^="javascript"]').length`); n != 0 {
				t.Errorf("the failed skill's page holds %d script, img or javascript: elements", n)
			}
			shot("skill-failed")

			visit(t, ctx, l.srv.URL+"/runs/"+ids[5], "#steps")
			outcomes := eval[[]string](t, ctx, `[...document.querySelectorAll('#steps [data-outcome]')].map(e => e.textContent)`)
			level := eval[string](t, ctx, `document.querySelector('#steps tr[data-step="1"] td:nth-child(4)').innerText`)
			if strings.Join(outcomes, ",") != "passed,unchecked" || !strings.Contains(level, "healed at L1") {
				t.Errorf("receipt: outcomes %v, level %q", outcomes, level)
			}
			patch := eval[string](t, ctx, `document.querySelector('#patches pre').innerText`)
			if patch != "- - assert: json.items.length > 0\n+ - assert: json.data.items.length > 0" {
				t.Errorf("heal patch %q", patch)
			}
			fits("healed receipt", "#steps [data-outcome], #patches pre, #file-diff pre")
			shot("run-healed")

			visit(t, ctx, l.srv.URL+"/runs/"+ids[6], "#where")
			where := eval[[]string](t, ctx, `['[data-repository]', '[data-ref]', '[data-commit] a'].map(s => document.querySelector(s).innerText)`)
			href := eval[string](t, ctx, `document.querySelector('[data-commit] a').href`)
			if len(where) != 3 || where[0] != "acme/<script>alert(1)</script>" || where[1] != `refs/heads/\u202eevil\u202c-branch` ||
				where[2] != "0123456789abcdef0123456789abcdef01234567" || href != hostileProvenance.RunURL {
				t.Errorf("provenance %q, commit links to %q", where, href)
			}
			fits("receipt with provenance", "#where dd")
			shot("run-provenance")

			visit(t, ctx, l.srv.URL+"/runs/"+hostile, "#where")
			links := eval[int](t, ctx, `document.querySelectorAll('#where a, a[href^="javascript"]').length`)
			scripts := eval[int](t, ctx, `document.querySelectorAll('script, img').length`)
			if links != 0 || scripts != 0 {
				t.Errorf("hostile receipt: %d links in its provenance, %d script or img elements; want none", links, scripts)
			}
			fits("hostile receipt", "#where dd, #failing")
			shot("run-hostile")

			visit(t, ctx, l.srv.URL+"/skills/weekly/file", "#file")
			versions := eval[int](t, ctx, `document.querySelectorAll('#versions tbody tr').length`)
			if versions != 2 {
				t.Errorf("upload history shows %d versions, want 2", versions)
			}
			fits("skill file", "#versions td, #version-diff pre")
			shot("skill-file")
		})
	}
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
