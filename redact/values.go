package redact

import "context"

// The search for JSON quoted in text used to try a JSON decode at every
// bracket, brace and quote: text that opens many containers and never
// closes them (a deeply nested response cut short, or made so on purpose)
// cost a decode to the end of the text at each of them, time quadratic in
// its size (issue #28: 1 MB took five minutes). values finds the same
// values with one parse from left to right.

// span is a JSON value quoted in text: s[start:end].
type span struct{ start, end int }

// maxNesting is the deepest nesting a quoted value may have, as
// encoding/json (and so the redactor) reads it.
const maxNesting = 10000

// budget is how many times its input's length a call may spend, in
// bytes parsed and redacted, before the search for quoted JSON stops; the
// deepest recursion allowed (maxDepth) with every level redacted twice
// fits well inside it.
const budget = 64

// workCheckEvery is how many bytes of work pass between looks at the context.
const workCheckEvery = 64 << 10

// work is the work a call to Text or JSON has left, and its context.
type work struct {
	ctx   context.Context
	left  int
	next  int // when left falls below it, ctx is looked at
	err   error
	ended bool
}

func newWork(ctx context.Context, n int) *work {
	w := &work{ctx: ctx, left: budget*n + 1<<20}
	w.next = w.left - workCheckEvery
	if ctx.Err() != nil {
		w.err, w.ended = ctx.Err(), true
	}
	return w
}

// charge counts n bytes of work.
func (w *work) charge(n int) {
	w.left -= n
	if w.left <= 0 {
		w.ended = true
	}
	if w.left < w.next {
		w.next = w.left - workCheckEvery
		if err := w.ctx.Err(); err != nil {
			w.err, w.ended = err, true
		}
	}
}

// spent reports whether the work has run out or the context ended.
func (w *work) spent() bool { return w.ended }

// ctxErr is the context's error if the context ended the work.
func (w *work) ctxErr() error { return w.err }

// values returns the JSON objects, arrays and strings quoted in s, left to
// right, none inside another: those a JSON decode tried at every '{', '['
// and '"' (stepping over each value found) would return, found in time
// linear in len(s) (FuzzValues holds the two to the same answers).
//
// A parse starts at a candidate byte. When it completes, the value is one
// and the search goes on after it. When it fails at p, every container
// still open failed too (a value's parse is the same wherever it is
// started), so the values found are those the failed parse completed
// directly inside an open container, and the search goes on at p: every
// other start before p lies inside one of those values. When what failed
// is a string, the search goes on just after its opening quote instead:
// the text up to p holds no quote, so the bytes between are looked at
// once more at most.
func values(w *work, s string) []span {
	var out []span
	p := parser{s: s}
	for i := 0; i < len(s) && !w.spent(); {
		j := indexCandidate(s, i)
		if j < 0 {
			break
		}
		end, fail, restart := p.parse(j)
		if fail < 0 {
			w.charge(end - j)
			out = append(out, span{j, end})
			i = end
			continue
		}
		w.charge(fail - j)
		out = append(out, p.found...)
		i = restart
	}
	return out
}

func indexCandidate(s string, i int) int {
	for ; i < len(s); i++ {
		if c := s[i]; c == '{' || c == '[' || c == '"' {
			return i
		}
	}
	return -1
}

// parser parses one JSON value; its buffers are reused from one parse to
// the next.
type parser struct {
	s     string
	stack []nest
	found []span // on failure: the values completed directly inside an open container
}

// nest is an open container.
type nest struct {
	start  int
	object bool
	// state: what the container expects next.
	state byte
	// found is how many of parser.found were there when it opened: its
	// children are found[found:].
	found int
}

// The states of a nest.
const (
	stFirst      byte = iota // just opened: a value (or a name) or the close
	stValue                  // after a comma in an array, after a colon in an object
	stName                   // after a comma in an object
	stColon                  // after a name
	stCommaOrEnd             // after a value
)

// parse parses the value at i (s[i] is '{', '[' or '"'). It returns the
// end of the value and fail -1, or the position of the first byte that
// cannot continue it (len(s) when the text ends first) as fail and where
// the search goes on (restart; see values); then p.found holds the values
// completed directly inside the containers open at that point, in order.
func (p *parser) parse(i int) (end, fail, restart int) {
	s := p.s
	p.stack = p.stack[:0]
	p.found = p.found[:0]
	for {
		// i is at the start of a value (or, in a container, a name).
		switch s[i] {
		case '"':
			e := quoteEnd(s, i)
			if e < 0 {
				return 0, -e - 1, i + 1
			}
			if len(p.stack) == 0 {
				return e, -1, e
			}
			p.found = append(p.found, span{i, e})
			top := &p.stack[len(p.stack)-1]
			if top.object && (top.state == stFirst || top.state == stName) {
				top.state = stColon
			} else {
				top.state = stCommaOrEnd
			}
			i = e
		case '{', '[':
			if len(p.stack) >= maxNesting {
				return 0, i, i
			}
			p.stack = append(p.stack, nest{start: i, object: s[i] == '{', state: stFirst, found: len(p.found)})
			i++
		default:
			e := scalarEnd(s, i)
			if e < 0 {
				return 0, -e - 1, -e - 1
			}
			p.stack[len(p.stack)-1].state = stCommaOrEnd
			i = e
		}
		// Structure until the next value starts.
		for {
			i = skipWhite(s, i)
			if i >= len(s) {
				return 0, len(s), len(s)
			}
			top := &p.stack[len(p.stack)-1]
			c := s[i]
			switch {
			case (c == '}' && top.object || c == ']' && !top.object) && (top.state == stFirst || top.state == stCommaOrEnd):
				start, found := top.start, top.found
				p.stack = p.stack[:len(p.stack)-1]
				p.found = p.found[:found] // its children are inside it
				i++
				if len(p.stack) == 0 {
					return i, -1, i
				}
				p.found = append(p.found, span{start, i})
				p.stack[len(p.stack)-1].state = stCommaOrEnd
				continue
			case c == ',' && top.state == stCommaOrEnd:
				top.state = stValue
				if top.object {
					top.state = stName
				}
				i++
				continue
			case c == ':' && top.state == stColon:
				top.state = stValue
				i++
				continue
			case top.object && (top.state == stFirst || top.state == stName):
				if c != '"' {
					return 0, i, i
				}
			case top.state == stFirst && !top.object || top.state == stValue:
				// a value
			default:
				return 0, i, i
			}
			break
		}
	}
}

func skipWhite(s string, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r') {
		i++
	}
	return i
}

// quoteEnd returns the end of the JSON string at i, or -(fail+1) where
// fail is the first byte that cannot continue it.
func quoteEnd(s string, i int) int {
	for j := i + 1; j < len(s); j++ {
		switch c := s[j]; {
		case c == '"':
			return j + 1
		case c < 0x20:
			return -(j + 1)
		case c == '\\':
			if j+1 >= len(s) {
				return -(len(s) + 1)
			}
			switch s[j+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				j++
			case 'u':
				for k := j + 2; k < j+6; k++ {
					if k >= len(s) {
						return -(len(s) + 1)
					}
					if !isHex(s[k]) {
						return -(k + 1)
					}
				}
				j += 5
			default:
				return -(j + 2)
			}
		}
	}
	return -(len(s) + 1)
}

// scalarEnd returns the end of the number or literal at i, or
// -(fail+1).
func scalarEnd(s string, i int) int {
	for _, lit := range [...]string{"true", "false", "null"} {
		if s[i] == lit[0] {
			for k := 0; k < len(lit); k++ {
				if i+k >= len(s) {
					return -(len(s) + 1)
				}
				if s[i+k] != lit[k] {
					return -(i + k + 1)
				}
			}
			return i + len(lit)
		}
	}
	// A number: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
	j := i
	if j < len(s) && s[j] == '-' {
		j++
	}
	switch {
	case j >= len(s):
		return -(len(s) + 1)
	case s[j] == '0':
		j++
	case s[j] >= '1' && s[j] <= '9':
		j = digits(s, j)
	default:
		return -(j + 1)
	}
	if j < len(s) && s[j] == '.' {
		k := digits(s, j+1)
		if k == j+1 {
			return -(min(k, len(s)) + 1)
		}
		j = k
	}
	if j < len(s) && (s[j] == 'e' || s[j] == 'E') {
		j++
		if j < len(s) && (s[j] == '+' || s[j] == '-') {
			j++
		}
		k := digits(s, j)
		if k == j {
			return -(min(k, len(s)) + 1)
		}
		j = k
	}
	return j
}

func digits(s string, i int) int {
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	return i
}
