package server_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/reelier/reelier/ledger/server"
	"github.com/reelier/reelier/replay/runlog"
	"github.com/reelier/reelier/testkit/ledgertest"
)

// EnvScreenshotCopies names a folder where TestPagesAtEveryWidth also
// copies its 420 and 1280 px screenshots (for a closing note); unset, it
// copies none.
const EnvScreenshotCopies = "REELIER_LEDGER_SCREENSHOT_COPIES"

// brokenWords is JavaScript that lists every word the page shows broken
// across lines inside the elements sel matches: each text run of letters
// (a word; hashes, numbers, paths and hostile strings are not words and
// may break anywhere) is measured with a Range, and a word whose boxes sit
// on more than one line was broken mid-word ("Heale|d"). It also lists
// any header cell whose text overflows it, and any header set to break
// anywhere or to hyphenate.
const brokenWords = `(sel => {
	const out = [];
	for (const el of document.querySelectorAll(sel)) {
		if (el.closest('[hidden]') || el.getClientRects().length === 0) continue;
		const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
		for (let n = walker.nextNode(); n; n = walker.nextNode()) {
			const re = /\p{L}+/gu;
			for (let m; (m = re.exec(n.data)); ) {
				const w = m[0];
				if (w.length < 2 || w.length > 24) continue;
				// Only words of letters standing alone: not part of a hash, an
				// identifier (run_abc123), a base64 key, an address or markup.
				const before = n.data[m.index - 1] || ' ', after = n.data[m.index + w.length] || ' ';
				if (/[\p{N}_\/+=.:@<>()\\-]/u.test(before + after)) continue;
				const r = document.createRange();
				r.setStart(n, m.index);
				r.setEnd(n, m.index + w.length);
				const tops = new Set([...r.getClientRects()].filter(b => b.width > 0).map(b => Math.round(b.top)));
				if (tops.size > 1) out.push(el.tagName.toLowerCase() + ': ' + w + ' broken across ' + tops.size + ' lines');
			}
		}
	}
	for (const th of document.querySelectorAll('th')) {
		if (th.getClientRects().length === 0) continue;
		const cs = getComputedStyle(th);
		if (th.scrollWidth > th.clientWidth + 1) out.push('th ' + th.textContent + ': its text overflows the cell');
		if (cs.overflowWrap === 'anywhere' || cs.wordBreak === 'break-all' || cs.hyphens === 'auto') out.push('th ' + th.textContent + ': may break mid-word (' + cs.overflowWrap + ', ' + cs.wordBreak + ', ' + cs.hyphens + ')');
	}
	return out;
})`

// TestPagesAtEveryWidth loads the skills index, the skill pages (one with
// runs signed and not), and receipts (healed, hostile, signed) in headless
// Chromium at 420, 768, 1024 and 1280 CSS pixels and checks that they read
// well: no word of a header, cell, figure or badge is broken mid-word, no
// header's text overflows its cell or is allowed to break anywhere, no
// table, listing or chart is wider than the page's column, and the page
// is no wider than the window. It saves a full-page screenshot
// of each page at each width (the folder is logged).
func TestPagesAtEveryWidth(t *testing.T) {
	var requested []string
	ctx := browser(t, &requested)
	l := newTestLedger(t, false, 0)
	ids := seed(t, l)
	hostile := storeHostileRun(t, l)
	signed := storeSignedRuns(t, l)
	dir := screenshotDir(t)
	t.Logf("screenshots in %s", dir)
	copies := os.Getenv(EnvScreenshotCopies)
	pages := []struct{ name, path, ready string }{
		{"index", "/", "#skills"},
		{"skill", "/skills/weekly", "#runs"},
		{"skill-failed", "/skills/smoke", "#runs"},
		{"skill-signed", "/skills/signed", "#runs"},
		{"run-healed", "/runs/" + ids[5], "#steps"},
		{"run-hostile", "/runs/" + hostile, "#steps"},
		{"run-signed", "/runs/" + signed, "#steps"},
	}
	const sel = `th, td, h1, h2, .figures div, .verdict, .sig, .mock, dt, dd, p, li, summary`
	for _, width := range []int{420, 768, 1024, 1280} {
		t.Run(fmt.Sprintf("%dpx", width), func(t *testing.T) {
			if err := chromedp.Do(ctx, chromedp.EmulateViewport(int64(width), 900)); err != nil {
				t.Fatal(err)
			}
			for _, p := range pages {
				visit(t, ctx, l.srv.URL+p.path, p.ready)
				if bad := eval[[]string](t, ctx, brokenWords+"("+jsString(sel)+")"); len(bad) > 0 {
					t.Errorf("%s at %d px: %q", p.name, width, bad)
				}
				sw := eval[int](t, ctx, `document.scrollingElement.scrollWidth`)
				if cw := eval[int](t, ctx, `document.documentElement.clientWidth`); sw > cw {
					t.Errorf("%s at %d px: the page is %d px wide, the window %d", p.name, width, sw, cw)
				}
				wide := eval[[]string](t, ctx, `[...document.querySelectorAll('table, pre, dl, svg, .figures')].filter(e => {
					const r = e.getBoundingClientRect(), m = document.querySelector('main').getBoundingClientRect();
					return r.left < m.left - 0.5 || r.right > m.right + 0.5;
				}).map(e => e.tagName.toLowerCase() + '#' + e.id + ' ' + Math.round(e.getBoundingClientRect().width) + ' px')`)
				if len(wide) > 0 {
					t.Errorf("%s at %d px: wider than the page's column (%d px): %q", p.name, width, eval[int](t, ctx, `Math.round(document.querySelector('main').getBoundingClientRect().width)`), wide)
				}
				name := fmt.Sprintf("%s-%d.png", p.name, width)
				screenshot(t, ctx, dir, name)
				if copies != "" && (width == 420 || width == 1280) {
					copyFile(t, filepath.Join(dir, name), filepath.Join(copies, "ledger-"+name))
				}
			}
		})
	}
}

// storeSignedRuns stores, for skill "signed", a run verified by a key, one
// signed by a signer the ledger does not trust, one keyless-verified and
// one unsigned, and returns the verified run's id.
func storeSignedRuns(t *testing.T, l *testLedger) string {
	t.Helper()
	l.uploadSkill(t, "signed")
	sigs := []server.Signature{
		{State: server.SignatureUnsigned},
		{State: server.SignatureVerified, Signer: "certificate https://github.com/acme/app/.github/workflows/nightly.yml@refs/heads/main (issuer https://token.actions.githubusercontent.com)"},
		{State: server.SignatureUntrusted, Signer: "key 0+CGbmpX6EG0SgAM+m6sJRfS1hnukf+Jgiki0tb1nsA="},
		{State: server.SignatureVerified, Signer: "key XxePh/i4kOipbDKVD8BUxy0xOzQ9Fw4rY0+ajJ73x3I="},
	}
	var id string
	for i, s := range sigs {
		run := ledgertest.StoredRun("signed", i, runlog.Passed, runlog.Unchecked)
		run.Signature, run.Signer = s.State, s.Signer
		var err error
		if id, _, err = l.store.AddRun(context.Background(), run); err != nil {
			t.Fatal(err)
		}
	}
	return id
}

func jsString(s string) string { return fmt.Sprintf("%q", s) }

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	data, err := os.ReadFile(from)
	if err == nil {
		err = os.MkdirAll(filepath.Dir(to), 0o755)
	}
	if err == nil {
		err = os.WriteFile(to, data, 0o644)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("copied to %s", to)
}
