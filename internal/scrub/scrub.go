// Package scrub applies the one trace redactor (trace.Redactor) to text
// that leaves the process with JSON quoted inside it: a failure message
// that quotes an observed value, a refusal that quotes the filled action, a
// note that pastes a request. The redactor sees a JSON document only when it
// is a whole string; scrub also finds the objects, arrays and strings quoted
// in prose and redacts each as a document of its own, so
// `got {"password":"hunter2"}` loses the password as the trace would.
//
// It adds no rule of its own: every blank is the redactor's.
package scrub

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/reelier/reelier/runtime/jsondata"
	"github.com/reelier/reelier/trace"
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
func Text(r *trace.Redactor, key, s string) string {
	if r == nil {
		r = &trace.Redactor{}
	}
	return quoted(r, r.String(key, s), 0)
}

// JSON returns the JSON document raw with its secrets blanked: r.JSON, then
// every string value that quotes JSON redacted as Text does. When nothing
// was blanked it returns raw itself, byte for byte; otherwise the document
// compacted.
func JSON(r *trace.Redactor, raw []byte) ([]byte, error) {
	if r == nil {
		r = &trace.Redactor{}
	}
	out, changed, err := document(r, raw, 0)
	if err != nil || !changed {
		return raw, err
	}
	return out, nil
}

// document redacts one JSON document; changed reports whether anything was
// blanked (out is only meaningful then).
func document(r *trace.Redactor, raw []byte, depth int) (out []byte, changed bool, err error) {
	red, err := r.JSON(raw)
	if err != nil {
		return nil, false, err
	}
	red = eachString(red, func(s string) string { return quoted(r, s, depth+1) })
	var compact bytes.Buffer
	if json.Compact(&compact, raw) == nil && bytes.Equal(compact.Bytes(), red) {
		return nil, false, nil
	}
	return red, true, nil
}

// quoted redacts the JSON values quoted in s, left to right; a value found
// is stepped over whole.
func quoted(r *trace.Redactor, s string, depth int) string {
	if depth > maxDepth || len(s) > maxScan || !strings.ContainsAny(s, `{["`) {
		return s
	}
	var b strings.Builder
	last, changed := 0, false
	for i := 0; i < len(s); {
		if c := s[i]; c != '{' && c != '[' && c != '"' {
			i++
			continue
		}
		n := valueLen(s[i:])
		if n == 0 {
			i++
			continue
		}
		frag := s[i : i+n]
		if red := fragment(r, frag, depth); red != frag {
			b.WriteString(s[last:i])
			b.WriteString(red)
			last, changed = i+n, true
		}
		i += n
	}
	if !changed {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

// fragment redacts one JSON value quoted in text: a string's content as
// text of its own, an object or array as a document.
func fragment(r *trace.Redactor, frag string, depth int) string {
	if frag[0] == '"' {
		var inner string
		if json.Unmarshal([]byte(frag), &inner) != nil {
			return frag
		}
		red := quoted(r, r.String("", inner), depth+1)
		if red == inner {
			return frag
		}
		return string(jsondata.AppendString(nil, red))
	}
	out, changed, err := document(r, []byte(frag), depth)
	if err != nil || !changed {
		return frag
	}
	return string(out)
}

// valueLen is the length of the JSON value s starts with, 0 when it does
// not start with one.
func valueLen(s string) int {
	dec := json.NewDecoder(strings.NewReader(s))
	var v json.RawMessage
	if dec.Decode(&v) != nil {
		return 0
	}
	return int(dec.InputOffset())
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
