package session

import (
	"bytes"
	"io"
	"time"
)

// Options configure Read.
type Options struct {
	// Keep keeps every replayable call's input and result and the order of
	// events, which Trace needs. Without it Read only classifies and
	// counts, in memory that does not grow with the results' size (scan).
	Keep bool
	// MaxLine is the longest line decoded, DefaultMaxLine if 0; a line
	// that fits the 256 KB read buffer is always decoded.
	MaxLine int
}

// maxLine is the longest line a reader decodes under these options.
func (o Options) maxLine() int {
	if o.MaxLine <= 0 {
		return DefaultMaxLine
	}
	return o.MaxLine
}

// newSession is the empty Session each host's reader fills.
func newSession(host string, opts Options) *Session {
	return &Session{
		Host:    host,
		keep:    opts.Keep,
		pending: map[string]*Call{},
		seen:    map[string]bool{},
		skips:   map[Skip]int{},
		Lines:   LineCounts{Ignored: map[string]int{}},
	}
}

// eventKind tells the events of a kept transcript apart.
type eventKind uint8

const (
	evCall eventKind = iota
	evResult
	evNote
)

type event struct {
	kind eventKind
	call *Call
	note string
	at   time.Time
}

// Read reads a Claude Code transcript — a session file from
// ~/.claude/projects or the stream `claude -p --output-format stream-json
// --verbose` prints — one line at a time. Only assistant lines (tool_use
// blocks) and user lines (tool_result blocks) are looked into; system and
// result lines give the session's id and directory; every other type is
// counted and ignored. Bad lines are counted, never fatal: the error is
// only ever a read error, and the Session read so far comes with it.
func Read(r io.Reader, opts Options) (*Session, error) {
	max := opts.maxLine()
	s := newSession("claude", opts)
	lr := newLineReader(r, max)
	defer lr.release()
	first := true
	for {
		l, ok := lr.next()
		if !ok {
			break
		}
		if l.tooLong {
			s.Lines.Lines++
			s.Lines.TooLong++
			first = false
			continue
		}
		text := bytes.TrimSpace(l.text) // a CRLF file leaves a \r
		if len(text) == 0 {
			continue
		}
		s.Lines.Lines++
		s.line(text, l.last, first)
		first = false
	}
	s.finish()
	return s, lr.err
}

// lineFields are the top-level members of a line that matter.
type lineFields struct {
	typ, subtype, timestamp, cwd, sessionID, message []byte
	// t is a Reelier trace record's kind ("meta", "call", …).
	t []byte
	// modelUsage is a stream's result line's tokens per model.
	modelUsage []byte
}

// line reads one non-blank line.
func (s *Session) line(text []byte, last, first bool) {
	var f lineFields
	ok := eachMember(text, func(key, val []byte) {
		switch {
		case keyIs(key, "type"):
			f.typ = val
		case keyIs(key, "subtype"):
			f.subtype = val
		case keyIs(key, "timestamp"):
			f.timestamp = val
		case keyIs(key, "cwd"):
			f.cwd = val
		case keyIs(key, "sessionId"), keyIs(key, "session_id"):
			f.sessionID = val
		case keyIs(key, "message"):
			f.message = val
		case keyIs(key, "t"):
			f.t = val
		case keyIs(key, "modelUsage"):
			f.modelUsage = val
		}
	})
	if !ok {
		if last {
			s.Lines.Truncated++
		} else {
			s.Lines.Invalid++
		}
		return
	}
	if first && f.typ == nil && strIs(f.t, "meta") {
		// Every trace `reelier mcp` writes opens with its meta record.
		s.ReelierTrace = true
	}
	at := s.meta(f)
	switch {
	case strIs(f.typ, "assistant"):
		s.claudeUsage(f.message)
		s.message(f.message, at, s.assistantBlock)
	case strIs(f.typ, "user"):
		s.message(f.message, at, s.userBlock)
	case strIs(f.typ, "system"):
		s.Init = s.Init || first && strIs(f.subtype, "init")
	case strIs(f.typ, "result"):
		s.resultUsage(f.modelUsage)
	default:
		s.ignore(f.typ)
	}
}

// meta takes the session's id, directory and start from the first line
// that has each, and returns the line's own time.
func (s *Session) meta(f lineFields) time.Time {
	if s.ID == "" && f.sessionID != nil {
		s.ID, _ = str(f.sessionID)
	}
	if s.CWD == "" && f.cwd != nil {
		s.CWD, _ = str(f.cwd)
	}
	var at time.Time
	if f.timestamp != nil {
		if ts, ok := str(f.timestamp); ok {
			if t, err := time.Parse(time.RFC3339Nano, ts); err == nil {
				at = t.UTC()
			}
		}
	}
	if s.StartedAt.IsZero() {
		s.StartedAt = at
	}
	return at
}

// ignore counts a line of a type that holds no tool calls.
func (s *Session) ignore(typ []byte) {
	name, ok := str(typ)
	if !ok {
		name = "(no type)"
	}
	s.Lines.Ignored[s.Lines.typeKey(name)]++
}

// message walks the content blocks of a message; a string content (a
// typed prompt) holds none.
func (s *Session) message(msg []byte, at time.Time, block func([]byte, time.Time)) {
	var content []byte
	ok := eachMember(msg, func(key, val []byte) {
		if keyIs(key, "content") {
			content = val
		}
	})
	if !ok {
		s.Lines.Invalid++
		return
	}
	if len(content) == 0 || content[0] != '[' {
		return
	}
	if !eachElement(content, func(b []byte) { block(b, at) }) {
		s.Lines.Invalid++
	}
}
