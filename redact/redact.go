package redact

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/reelier/reelier/tool/jsondata"
)

// Redacted replaces a secret that matched a shape or a credential field.
const Redacted = "«redacted»"

// RedactEnv is the environment variable naming, comma-separated, the other
// environment variables whose values are blanked in traces.
const RedactEnv = "REELIER_REDACT"

// minNamedSecret is the shortest environment value that is redacted: a
// shorter one would blank ordinary words and numbers.
const minNamedSecret = 6

// Redactor blanks secrets in JSON values before they are written to a
// trace. It never touches what the agent receives: the recorder hands it
// the copy it is about to write. A Redactor is immutable once made, so one
// may be used by many goroutines at once; the zero value blanks every
// secret it recognises and no named environment values.
//
// It applies, to every string in the value:
//   - the values of the environment variables named by REELIER_REDACT (six
//     characters or longer), replaced by «redacted:NAME»;
//   - the whole value of a credential member or header (Authorization,
//     Cookie, X-Api-Key, password, pass, pwd, credentials, client_secret,
//     access_token, AWS_SECRET_ACCESS_KEY…; see wholeValue), and of the
//     array element after a credential flag ("--api-key", "VALUE");
//   - every secret the detectors find in it (FindAll): token shapes
//     (sk-…, Bearer and Basic credentials, GitHub, Slack, AWS, Google,
//     Stripe, GitLab, npm, Hugging Face, PyPI, JWT), PEM and PGP private
//     keys, URL passwords, secret query parameters, 32 or more hex digits
//     under a secret-named key, and the values given to credential names
//     in text (env and ini lines, YAML, header lines, flags, prose).
//
// A string that holds a JSON document is redacted inside, member names
// included, and re-encoded only when something in it was blanked.
// docs/record.md lists the rules with examples of what is left alone.
type Redactor struct {
	named []namedSecret
}

type namedSecret struct{ name, value string }

// NewRedactor returns a redactor for the values of the given environment
// variables, looked up with lookup (os.LookupEnv in production). Names
// whose value is unset or shorter than six characters are ignored.
func NewRedactor(names []string, lookup func(string) (string, bool)) *Redactor {
	r := &Redactor{}
	for _, name := range names {
		name = strings.TrimSpace(name)
		if name == "" {
			continue
		}
		if v, ok := lookup(name); ok && len(v) >= minNamedSecret {
			r.named = append(r.named, namedSecret{name: name, value: v})
		}
	}
	// Longest first, so a value containing another is replaced whole.
	sort.SliceStable(r.named, func(i, j int) bool { return len(r.named[i].value) > len(r.named[j].value) })
	return r
}

// RedactorFromEnv returns the redactor configured by REELIER_REDACT.
func RedactorFromEnv() *Redactor {
	return NewRedactor(strings.Split(os.Getenv(RedactEnv), ","), os.LookupEnv)
}

// JSON returns raw with every secret blanked, compacted to one line. When
// nothing was blanked the result is raw itself, compacted.
func (r *Redactor) JSON(raw []byte) (json.RawMessage, error) {
	out, _, err := r.document(nil, raw)
	if err != nil {
		return nil, err
	}
	return out, nil
}

// JSONValue is JSON of a value that may be missing, as a trace records
// it: raw that is empty or only white space becomes null.
func (r *Redactor) JSONValue(raw []byte) (json.RawMessage, error) {
	if len(bytes.TrimSpace(raw)) == 0 {
		return json.RawMessage("null"), nil
	}
	return r.JSON(raw)
}

// JSONContext is JSON that gives up when ctx ends, with ctx's error and no
// document: what was not searched to the end is never handed out. The
// context is looked at between strings and every 64 KiB inside one.
func (r *Redactor) JSONContext(ctx context.Context, raw []byte) (json.RawMessage, error) {
	out, _, err := r.document(ctx, raw)
	if err != nil {
		return nil, err
	}
	return out, nil
}

// String blanks the secrets in s, a value stored under key ("" when it has
// none).
func (r *Redactor) String(key, s string) string {
	out, _, _ := r.text(nil, key, s)
	return out
}

// StringContext is String that gives up when ctx ends, with ctx's error and
// Unsearched in place of s.
func (r *Redactor) StringContext(ctx context.Context, key, s string) (string, error) {
	out, _, err := r.text(ctx, key, s)
	if err != nil {
		return Unsearched, err
	}
	return out, nil
}

// Unsearched stands in for a text whose search for secrets was cut short
// (the run was interrupted): it is not shown, since it was not redacted.
const Unsearched = "«not shown: interrupted before it was searched for secrets»"

// document redacts one JSON document, compacted; changed reports whether
// anything was blanked. Under a context (nil: none) it gives up when the
// context ends, with its error.
func (r *Redactor) document(ctx context.Context, raw []byte) (out []byte, changed bool, err error) {
	if ctx != nil && ctx.Err() != nil {
		return nil, false, ctx.Err()
	}
	if !json.Valid(raw) {
		return nil, false, errors.New("not a valid JSON document")
	}
	sc := scanner{r: r, ctx: ctx, src: raw, out: make([]byte, 0, len(raw))}
	sc.run()
	if sc.err != nil {
		return nil, false, sc.err
	}
	return sc.out, sc.changed, nil
}

// scanner copies a valid JSON document without its insignificant white
// space, byte for byte otherwise, except the strings it blanks secrets in.
// Only strings are decoded; member order, number literals and escapes
// are kept as they were.
type scanner struct {
	r       *Redactor
	ctx     context.Context // nil: none
	err     error           // the context's, once it ended: the scan stopped
	src     []byte
	out     []byte
	changed bool
}

// frame is one open container: an array remembers the member name it sits
// under, which its elements inherit, and the credential flag its last
// element was, which names the next one; an object remembers a credential
// name held by its "name" or "key" member, which names its "value" member
// ({"name": "DB_PASSWORD", "value": "…"}, as environment lists are
// written).
type frame struct {
	array bool
	key   string
	flag  string
	named string
}

func (sc *scanner) run() {
	var nesting [8]frame // most documents nest no deeper: no allocation
	stack := nesting[:0]
	member := "" // the last member name seen; an object's values follow theirs directly
	valueKey := func() string {
		switch {
		case len(stack) == 0:
			return ""
		case stack[len(stack)-1].array:
			if f := stack[len(stack)-1].flag; f != "" {
				return f
			}
			return stack[len(stack)-1].key
		case stack[len(stack)-1].named != "" && (member == "value" || member == "Value"):
			return stack[len(stack)-1].named
		}
		return member
	}
	// element notes what an array's element was: a credential flag names
	// the element after it.
	element := func(flag string) {
		if len(stack) > 0 && stack[len(stack)-1].array {
			stack[len(stack)-1].flag = flag
		}
	}
	src := sc.src
	for i := 0; i < len(src) && sc.err == nil; {
		switch c := src[i]; c {
		case ' ', '\t', '\n', '\r':
			i++
		case '"':
			end := jsondata.StringEnd(src, i)
			tok := src[i:end]
			if j := jsondata.SpaceEnd(src, end); j < len(src) && src[j] == ':' {
				member = sc.name(tok)
			} else {
				s := sc.str(valueKey(), tok)
				element(flagName(s))
				if top := len(stack) - 1; top >= 0 && !stack[top].array && isNameMember(member) && IsCredentialName(s) {
					stack[top].named = s
				}
			}
			i = end
		case '{', '[':
			stack = append(stack, frame{array: c == '[', key: valueKey()})
			sc.out = append(sc.out, c)
			i++
		case '}', ']':
			stack = stack[:len(stack)-1]
			sc.out = append(sc.out, c)
			element("")
			i++
		case ',', ':':
			sc.out = append(sc.out, c)
			i++
		default:
			sc.out = append(sc.out, c)
			element("")
			i++
		}
	}
}

// name copies the member name tok with the secrets in it blanked (a map
// keyed by tokens) and returns its text, which names the value after it.
func (sc *scanner) name(tok []byte) string {
	s := decodeString(tok)
	if red := blankName(s); red != s {
		sc.changed = true
		sc.out = appendString(sc.out, red)
		return s
	}
	sc.out = append(sc.out, tok...)
	return s
}

// str copies the string token tok, a value under key, redacted, and
// returns its text.
func (sc *scanner) str(key string, tok []byte) string {
	s := decodeString(tok)
	red, changed, err := sc.r.text(sc.ctx, key, s)
	if err != nil {
		sc.err = err
		return s
	}
	if !changed {
		sc.out = append(sc.out, tok...)
		return s
	}
	sc.changed = true
	sc.out = appendString(sc.out, red)
	return s
}

// decodeString returns the text of a valid JSON string token.
func decodeString(tok []byte) string {
	body := tok[1 : len(tok)-1]
	if bytes.IndexByte(body, '\\') < 0 && utf8.Valid(body) {
		return string(body)
	}
	var s string
	_ = json.Unmarshal(tok, &s)
	return s
}

// text redacts one string stored under key, and redacts the result again
// until nothing more changes: a blank can end a value early, give text a
// new neighbour, or even make text a JSON document, so one pass over its
// own output may find more. Running to that fixed point is what makes
// redaction idempotent; strings without a secret take one pass.
//
// Under a context (nil: none) it gives up when the context ends, with its
// error; s is then not to be shown.
func (r *Redactor) text(ctx context.Context, key, s string) (string, bool, error) {
	orig := s
	for range maxPasses {
		t, changed, err := r.textOnce(ctx, key, s)
		if err != nil {
			return orig, false, err
		}
		if !changed {
			break
		}
		s = t
	}
	return s, s != orig, nil
}

// maxPasses bounds the passes of text; every string seen so far settles in
// two or three.
const maxPasses = 8

// textOnce is one pass of text.
func (r *Redactor) textOnce(ctx context.Context, key, s string) (string, bool, error) {
	if s == "" {
		return s, false, nil
	}
	if wholeValue(key, s) {
		return Redacted, s != Redacted, nil
	}
	if inner, changed, ok, err := r.embedded(ctx, s); ok || err != nil {
		return inner, changed, err
	}
	if ctx != nil && ctx.Err() != nil {
		return s, false, ctx.Err()
	}
	orig := s
	s = blankRegistered(r.named, s)
	found, err := FindAllContext(ctx, key, s)
	if err != nil {
		return orig, false, err
	}
	encoded, err := encodedMatches(ctx, key, s)
	if err != nil {
		return orig, false, err
	}
	s = replaceMatches(s, mergeMatches(found, encoded))
	return s, s != orig, nil
}

// embedded redacts a string that holds a JSON object or array as a
// document (ok false when s is not one): its strings and member names are
// redacted, and s is re-encoded only when something in it was blanked.
func (r *Redactor) embedded(ctx context.Context, s string) (out string, changed, ok bool, err error) {
	t := strings.TrimSpace(s)
	if len(t) < 2 || (t[0] != '{' || t[len(t)-1] != '}') && (t[0] != '[' || t[len(t)-1] != ']') {
		return "", false, false, nil
	}
	red, changed, err := r.document(ctx, []byte(t))
	if err != nil {
		if ctx != nil && ctx.Err() != nil {
			return s, false, false, ctx.Err()
		}
		return "", false, false, nil
	}
	if !changed {
		return s, false, true, nil
	}
	return string(red), true, true, nil
}

// mergeMatches returns the spans of a and b (each sorted, without
// overlaps) sorted, overlapping ones made one.
func mergeMatches(a, b []Match) []Match {
	if len(b) == 0 {
		return a
	}
	all := append(append([]Match(nil), a...), b...)
	sort.Slice(all, func(i, j int) bool { return all[i].Start < all[j].Start })
	out := all[:1]
	for _, m := range all[1:] {
		last := &out[len(out)-1]
		if m.Start < last.End {
			last.End = max(last.End, m.End)
			continue
		}
		out = append(out, m)
	}
	return out
}

// replaceMatches blanks the spans of ms (sorted, not overlapping) in s;
// spans that touch become one.
func replaceMatches(s string, ms []Match) string {
	if len(ms) == 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	last := 0
	for k, m := range ms {
		if k > 0 && m.Start == last {
			last = m.End
			continue
		}
		b.WriteString(s[last:m.Start])
		b.WriteString(Redacted)
		last = m.End
	}
	b.WriteString(s[last:])
	return b.String()
}

// appendString appends s as a JSON string without HTML escaping.
func appendString(out []byte, s string) []byte {
	const hex = "0123456789abcdef"
	out = append(out, '"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"' || c == '\\':
			out = append(out, '\\', c)
		case c == '\n':
			out = append(out, '\\', 'n')
		case c == '\r':
			out = append(out, '\\', 'r')
		case c == '\t':
			out = append(out, '\\', 't')
		case c < 0x20:
			out = append(out, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
		case c == 0xe2 && i+2 < len(s) && s[i+1] == 0x80 && (s[i+2] == 0xa8 || s[i+2] == 0xa9):
			// U+2028 and U+2029 are valid JSON but break JavaScript readers.
			out = append(out, '\\', 'u', '2', '0', '2', hex[s[i+2]&0xf])
			i += 2
		default:
			out = append(out, c)
		}
	}
	return append(out, '"')
}
