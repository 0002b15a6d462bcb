// The scrubber applies the redactor (Redactor) to text
// that leaves the process with JSON quoted inside it: a failure message
// that quotes an observed value, a refusal that quotes the filled action, a
// note that pastes a request. The redactor sees a JSON document only when it
// is a whole string; scrub also finds the objects, arrays and strings quoted
// in prose and redacts each as a document of its own, so
// `got {"password":"hunter2"}` loses the password as the trace would.
//
// It adds no rule of its own: every blank is the redactor's.

package redact

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"

	"github.com/reelier/reelier/tool/jsondata"
)

// maxDepth bounds how deep JSON quoted in JSON quoted in text is looked
// into.
const maxDepth = 8

// maxScan is the longest text searched for quoted JSON; a longer one gets
// the redactor's own pass only, so no text costs more than linear time per
// quote in it.
const maxScan = 1 << 20

// Text returns s, a value stored under key ("" when it has none), with its
// secrets blanked: r.String(key, s), then every JSON object, array or
// string quoted in s redacted as a document of its own. It returns s itself
// when nothing was blanked.
func Text(r *Redactor, key, s string) string {
	out, _ := TextContext(context.Background(), r, key, s)
	return out
}

// TextContext is Text that gives up when ctx ends, with ctx's error: when
// it ends during the redactor's own pass (r.StringContext, linear), it
// returns Unsearched in place of s; after it, s with that pass
// applied but not every value quoted in it redacted as a document. The search for
// quoted JSON also stops, with no error, when it has done budget times
// len(s) of work (see work): what it found by then is redacted.
func TextContext(ctx context.Context, r *Redactor, key, s string) (string, error) {
	if r == nil {
		r = &Redactor{}
	}
	w := newWork(ctx, len(s))
	base, err := r.StringContext(ctx, key, s)
	if err != nil {
		return base, err // Unsearched: s is not shown
	}
	out := quoted(w, r, base, 0)
	return out, w.ctxErr()
}

// JSON returns the JSON document raw with its secrets blanked: r.JSON, then
// every string value that quotes JSON redacted as Text does. When nothing
// was blanked it returns raw itself, byte for byte; otherwise the document
// compacted.
func JSON(r *Redactor, raw []byte) ([]byte, error) {
	return JSONContext(context.Background(), r, raw)
}

// JSONContext is JSON that stops looking into quoted JSON when ctx ends,
// returning what the redactor's document pass blanked and ctx's error; when
// ctx ends during that pass, it returns no document.
func JSONContext(ctx context.Context, r *Redactor, raw []byte) ([]byte, error) {
	if r == nil {
		r = &Redactor{}
	}
	w := newWork(ctx, len(raw))
	out, changed, err := document(w, r, raw, 0)
	switch {
	case err != nil && ctx.Err() != nil:
		return nil, err // the redactor's own pass was cut short: nothing to show
	case err != nil:
		return raw, err
	case !changed:
		return raw, w.ctxErr()
	}
	return out, w.ctxErr()
}

// document redacts one JSON document; changed reports whether anything was
// blanked (out is only meaningful then).
func document(w *work, r *Redactor, raw []byte, depth int) (out []byte, changed bool, err error) {
	red, err := r.JSONContext(w.ctx, raw)
	if err != nil {
		if w.ctx.Err() != nil {
			w.err, w.ended = w.ctx.Err(), true
		}
		return nil, false, err
	}
	w.charge(len(raw))
	red = eachString(red, func(s string) string { return quoted(w, r, s, depth+1) })
	var compact bytes.Buffer
	if json.Compact(&compact, raw) == nil && bytes.Equal(compact.Bytes(), red) {
		return nil, false, nil
	}
	return red, true, nil
}

// quoted redacts the JSON values quoted in s, left to right; a value found
// is stepped over whole. The values are found by one left-to-right parse
// (values), so the search costs time linear in len(s) however the text
// nests; w bounds the whole call's work and carries its cancellation.
func quoted(w *work, r *Redactor, s string, depth int) string {
	if depth > maxDepth || len(s) > maxScan || !strings.ContainsAny(s, `{["`) || w.spent() {
		return s
	}
	var b strings.Builder
	last, changed := 0, false
	for _, v := range values(w, s) {
		frag := s[v.start:v.end]
		if red := fragment(w, r, frag, depth); red != frag {
			b.WriteString(s[last:v.start])
			b.WriteString(red)
			last, changed = v.end, true
		}
	}
	if !changed {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

// fragment redacts one JSON value quoted in text: a string's content as
// text of its own, an object or array as a document.
func fragment(w *work, r *Redactor, frag string, depth int) string {
	w.charge(len(frag))
	if frag[0] == '"' {
		var inner string
		if json.Unmarshal([]byte(frag), &inner) != nil {
			return frag
		}
		red := quoted(w, r, r.String("", inner), depth+1)
		if red == inner {
			return frag
		}
		return string(jsondata.AppendString(nil, red))
	}
	out, changed, err := document(w, r, []byte(frag), depth)
	if err != nil || !changed {
		return frag
	}
	return string(out)
}

// eachString returns doc, a valid JSON document, with fn applied to the
// text of every string value (member names are left as they are); doc
// itself when fn changed none. Only strings that could quote JSON (holding
// a bracket, a brace or an escape) are decoded.
func eachString(doc []byte, fn func(string) string) []byte {
	var out []byte
	last := 0
	for i := 0; i < len(doc); i++ {
		if doc[i] != '"' {
			continue
		}
		start, end := i, jsondata.StringEnd(doc, i)
		i = end - 1
		tok := doc[start:end]
		if isMemberName(doc, end) || len(tok) < 2 || !bytes.ContainsAny(tok[1:len(tok)-1], `{[\`) {
			continue
		}
		var s string
		if json.Unmarshal(tok, &s) != nil {
			continue
		}
		if red := fn(s); red != s {
			out = jsondata.AppendString(append(out, doc[last:start]...), red)
			last = end
		}
	}
	if out == nil {
		return doc
	}
	return append(out, doc[last:]...)
}

// isMemberName reports whether the string token ending at end is followed
// by a colon: a member name, not a value.
func isMemberName(doc []byte, end int) bool {
	for end < len(doc) && (doc[end] == ' ' || doc[end] == '\t' || doc[end] == '\n' || doc[end] == '\r') {
		end++
	}
	return end < len(doc) && doc[end] == ':'
}
