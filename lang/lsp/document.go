package lsp

import (
	"fmt"
	"net/url"
	"sort"
	"strings"
	"sync"

	"github.com/reelier/reelier/lang/ast"
	"github.com/reelier/reelier/lang/grammar"
	"go.lsp.dev/protocol"
)

// Document is one version of an open file. Its text never changes; an edit
// makes a new Document. The parse and the lint findings are computed on
// first use and kept, and a new version re-parses incrementally from the
// last version that was parsed.
type Document struct {
	// URI names the document.
	URI protocol.DocumentURI
	// Version is the client's version number of this text.
	Version int32
	// Mapper indexes the text and converts positions.
	Mapper *Mapper

	name    string   // the file path diagnostics carry
	linters *linters // how to lint this document

	mu     sync.Mutex
	base   *Document // an earlier version whose parse can be reused
	syntax *syntax
	lints  ast.Diagnostics
	linted bool
}

// syntax is the parser's result for one text.
type syntax struct {
	src   []byte
	skill *ast.Skill
	diags ast.Diagnostics
}

// NewDocument returns the document with the text, linted with the default
// configuration.
func NewDocument(uri protocol.DocumentURI, version int32, text string) *Document {
	return newDocument(uri, version, text, nil, defaultLinters)
}

func newDocument(uri protocol.DocumentURI, version int32, text string, base *Document, l *linters) *Document {
	return &Document{URI: uri, Version: version, Mapper: NewMapper(text), name: fileName(uri), linters: l, base: base}
}

// Text returns the document's text.
func (d *Document) Text() string { return d.Mapper.Text() }

// Path returns the file path of a file: URI, or the URI itself.
func (d *Document) Path() string { return d.name }

// parse returns the parser's result, computing it on first use.
func (d *Document) parse() *syntax {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.syntax == nil {
		src := []byte(d.Text())
		var skill *ast.Skill
		var diags ast.Diagnostics
		if b := d.base.parsed(); b != nil {
			skill, diags = grammar.Reparse(d.name, b.src, b.skill, b.diags, src)
		} else {
			skill, diags = grammar.Parse(d.name, src)
		}
		d.syntax = &syntax{src: src, skill: skill, diags: diags}
		d.base = nil
	}
	return d.syntax
}

// parsed returns the parse if it has been computed, without computing it.
func (d *Document) parsed() *syntax {
	if d == nil {
		return nil
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.syntax
}

// Skill returns the parsed tree (partial when the text has errors).
func (d *Document) Skill() *ast.Skill { return d.parse().skill }

// Findings returns every diagnostic of the document sorted by position:
// the parser's, then the linter's (the linter runs only on a file that
// parses).
func (d *Document) Findings() ast.Diagnostics {
	syn := d.parse()
	d.mu.Lock()
	defer d.mu.Unlock()
	if !d.linted {
		d.lints = d.linters.run(d, syn)
		d.linted = true
	}
	out := make(ast.Diagnostics, 0, len(syn.diags)+len(d.lints))
	out = append(append(out, syn.diags...), d.lints...)
	sort.SliceStable(out, func(i, j int) bool { return out[i].Range.Start.Offset < out[j].Range.Start.Offset })
	return out
}

// change is one content change of a didChange notification: the text
// replacing a range, or the whole document when whole is set.
type change struct {
	whole bool
	rng   protocol.Range
	text  string
}

// apply returns the next version of the document with the changes applied
// in order, each to the result of the one before.
func (d *Document) apply(version int32, changes []change) (*Document, error) {
	text, m := d.Text(), d.Mapper
	for i, c := range changes {
		if c.whole {
			text, m = c.text, nil
			continue
		}
		if m == nil {
			m = NewMapper(text)
		}
		start, err := m.TextOffset(c.rng.Start)
		if err == nil {
			var end int
			if end, err = m.TextOffset(c.rng.End); err == nil && end < start {
				err = fmt.Errorf("the range ends before it starts")
			}
			if err == nil {
				text, m = text[:start]+c.text+text[end:], nil
				continue
			}
		}
		return nil, fmt.Errorf("change %d of version %d: %w", i+1, version, err)
	}
	base := d
	if d.parsed() == nil {
		base = d.base
	}
	return newDocument(d.URI, version, text, base, d.linters), nil
}

// fileName returns the path of a file: URI, or the URI as written.
func fileName(uri protocol.DocumentURI) string {
	u, err := url.Parse(string(uri))
	if err != nil || u.Scheme != "file" {
		return string(uri)
	}
	return u.Path
}

// Store holds the open documents, each at its latest version.
type Store struct {
	mu      sync.Mutex
	docs    map[protocol.DocumentURI]*Document
	linters *linters
}

// newStore returns an empty store whose documents are linted by l.
func newStore(l *linters) *Store {
	return &Store{docs: map[protocol.DocumentURI]*Document{}, linters: l}
}

// Open records a newly opened document (or replaces it when the client
// opens it again).
func (s *Store) Open(uri protocol.DocumentURI, version int32, text string) *Document {
	d := newDocument(uri, version, text, nil, s.linters)
	s.mu.Lock()
	s.docs[uri] = d
	s.mu.Unlock()
	return d
}

// Change applies a didChange notification and returns the new version.
func (s *Store) Change(uri protocol.DocumentURI, version int32, changes []change) (*Document, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	d, ok := s.docs[uri]
	if !ok {
		return nil, fmt.Errorf("change to a document that is not open: %s", uri)
	}
	next, err := d.apply(version, changes)
	if err != nil {
		return nil, err
	}
	s.docs[uri] = next
	return next, nil
}

// Close forgets a document.
func (s *Store) Close(uri protocol.DocumentURI) {
	s.mu.Lock()
	delete(s.docs, uri)
	s.mu.Unlock()
}

// Get returns the latest version of an open document.
func (s *Store) Get(uri protocol.DocumentURI) (*Document, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	d, ok := s.docs[uri]
	return d, ok
}

// All returns the open documents ordered by URI.
func (s *Store) All() []*Document {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]*Document, 0, len(s.docs))
	for _, d := range s.docs {
		out = append(out, d)
	}
	sort.Slice(out, func(i, j int) bool { return strings.Compare(string(out[i].URI), string(out[j].URI)) < 0 })
	return out
}
