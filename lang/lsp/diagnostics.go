package lsp

import (
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/reelier/reelier/lang/ast"
	"github.com/reelier/reelier/lang/grammar"
	"github.com/reelier/reelier/lang/lint"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
)

// source names the server in every diagnostic it publishes.
const source = "reelier"

// Diagnostics returns the document's parse and lint findings as protocol
// diagnostics, in file order.
//
// A SKILL.md without Reelier steps is an ordinary Agent Skill — Markdown
// instructions for an agent — and gets no diagnostics: its headings are
// not malformed steps.
func Diagnostics(doc *Document) []protocol.Diagnostic {
	if filepath.Base(doc.Path()) == "SKILL.md" && !grammar.HasStepHeader([]byte(doc.Text())) {
		return []protocol.Diagnostic{}
	}
	findings := doc.Findings()
	out := make([]protocol.Diagnostic, len(findings))
	for i, f := range findings {
		out[i] = toProtocol(doc.Mapper, f)
	}
	return out
}

var severities = map[ast.Severity]protocol.DiagnosticSeverity{
	ast.SeverityError:   protocol.DiagnosticSeverityError,
	ast.SeverityWarning: protocol.DiagnosticSeverityWarning,
	ast.SeverityInfo:    protocol.DiagnosticSeverityInformation,
	ast.SeverityHint:    protocol.DiagnosticSeverityHint,
}

// toProtocol converts one finding. The detail, such as a "did you mean"
// hint, goes on the lines after the message; a lint rule's code links to
// its documentation.
func toProtocol(m *Mapper, f ast.Diagnostic) protocol.Diagnostic {
	msg := f.Message
	if f.Detail != "" {
		msg += "\n" + f.Detail
	}
	d := protocol.Diagnostic{Range: m.Range(f.Range), Severity: severities[f.Severity], Code: f.Code, Source: source, Message: msg}
	if r := lint.Lookup(f.Code); r != nil {
		d.CodeDescription = &protocol.CodeDescription{Href: uri.URI(r.URL())}
	}
	return d
}

// IsSkillFile reports whether a path names a skill: *.skill.md, or an
// Agent Skills SKILL.md. The server publishes diagnostics only for skills,
// so that a client attached to every Markdown file (as generic clients
// are, by language) leaves the others alone.
func IsSkillFile(path string) bool {
	return strings.HasSuffix(path, ".skill.md") || filepath.Base(path) == "SKILL.md"
}

// Clock schedules the server's delayed work. Tests replace the real clock
// with one they advance by hand.
type Clock interface {
	// AfterFunc calls f in its own goroutine after d, unless the returned
	// stop function is called first; stop reports whether it prevented
	// the call.
	AfterFunc(d time.Duration, f func()) (stop func() bool)
}

// realClock is the Clock of package time.
type realClock struct{}

// AfterFunc implements Clock with time.AfterFunc.
func (realClock) AfterFunc(d time.Duration, f func()) func() bool { return time.AfterFunc(d, f).Stop }

// publisher sends diagnostics to the client: right away when a document
// is opened or saved, and once typing pauses for the debounce delay after
// a change. It never publishes for a version that is no longer current.
type publisher struct {
	store *Store
	clock Clock
	delay time.Duration
	send  func(*protocol.PublishDiagnosticsParams)

	mu      sync.Mutex // guards timers and stopped
	timers  map[protocol.DocumentURI]func() bool
	stopped bool

	sendMu sync.Mutex // one publication at a time, in order
}

// later publishes the document's diagnostics after the debounce delay,
// replacing any publication already waiting for it.
func (p *publisher) later(uri protocol.DocumentURI) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if stop := p.timers[uri]; stop != nil {
		stop()
	}
	if !p.stopped {
		p.timers[uri] = p.clock.AfterFunc(p.delay, func() { p.publish(uri) })
	}
}

// stop drops every waiting publication and refuses new ones: the session
// is over.
func (p *publisher) stop() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for uri, stop := range p.timers {
		stop()
		delete(p.timers, uri)
	}
	p.stopped = true
}

// now publishes the document's diagnostics at once.
func (p *publisher) now(uri protocol.DocumentURI) {
	p.cancel(uri)
	p.publish(uri)
}

// cancel drops a waiting publication.
func (p *publisher) cancel(uri protocol.DocumentURI) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if stop := p.timers[uri]; stop != nil {
		stop()
		delete(p.timers, uri)
	}
}

// publish sends the diagnostics of the current version of the document.
func (p *publisher) publish(uri protocol.DocumentURI) {
	p.sendMu.Lock()
	defer p.sendMu.Unlock()
	p.mu.Lock()
	stopped := p.stopped
	p.mu.Unlock()
	doc, ok := p.store.Get(uri)
	if !ok || stopped {
		return
	}
	diags := []protocol.Diagnostic{}
	if IsSkillFile(doc.Path()) {
		diags = Diagnostics(doc)
	}
	if cur, ok := p.store.Get(uri); !ok || cur != doc {
		return // a newer version has its own publication coming
	}
	p.send(&protocol.PublishDiagnosticsParams{URI: uri, Version: uint32(max(doc.Version, 0)), Diagnostics: diags})
}

// clear tells the client a closed document has no diagnostics any more.
func (p *publisher) clear(uri protocol.DocumentURI) {
	p.cancel(uri)
	p.sendMu.Lock()
	defer p.sendMu.Unlock()
	p.send(&protocol.PublishDiagnosticsParams{URI: uri, Diagnostics: []protocol.Diagnostic{}})
}
