package session

import (
	"bytes"
	"encoding/json"
	"sort"
	"time"
)

// assistantBlock handles one content block of an assistant message.
func (s *Session) assistantBlock(b []byte, at time.Time) {
	if len(b) == 0 || b[0] != '{' {
		return
	}
	var typ, id, name, input []byte
	eachMember(b, func(key, val []byte) {
		switch {
		case keyIs(key, "type"):
			typ = val
		case keyIs(key, "id"):
			id = val
		case keyIs(key, "name"):
			name = val
		case keyIs(key, "input"):
			input = val
		}
	})
	switch {
	case strIs(typ, "tool_use"):
		s.toolUse(id, name, input, at)
	case strIs(typ, "server_tool_use"), strIs(typ, "mcp_tool_use"):
		n, _ := str(name)
		s.skip(n, ReasonServerTool)
	}
}

// toolUse handles a tool_use block.
func (s *Session) toolUse(rawID, rawName, input []byte, at time.Time) {
	name, _ := str(rawName)
	t := Classify(name)
	if t.Reason != "" {
		s.skip(name, t.Reason)
		return
	}
	id, _ := str(rawID)
	if id != "" {
		if s.seen[id] {
			return // the same block written twice
		}
		s.seen[id] = true
	}
	if len(input) == 0 {
		input = []byte("{}")
	}
	if !json.Valid(input) {
		s.skip(name, ReasonBadInput)
		return
	}
	if t.isNote() {
		s.note(input, at)
		return
	}
	c := &Call{ID: id, Tool: t, At: at}
	if s.keep {
		c.Input = bytes.Clone(input)
		s.events = append(s.events, event{kind: evCall, call: c, at: at})
	}
	s.Calls = append(s.Calls, c)
	if id != "" {
		s.pending[id] = c
	}
}

// note keeps the text of a reelier_note call as narration.
func (s *Session) note(input []byte, at time.Time) {
	if !s.keep {
		return
	}
	var in struct {
		Text *string `json:"text"`
	}
	if json.Unmarshal(input, &in) == nil && in.Text != nil {
		s.events = append(s.events, event{kind: evNote, note: *in.Text, at: at})
	}
}

// userBlock handles one content block of a user message.
func (s *Session) userBlock(b []byte, at time.Time) {
	if len(b) == 0 || b[0] != '{' {
		return
	}
	var typ, id, content, isError []byte
	eachMember(b, func(key, val []byte) {
		switch {
		case keyIs(key, "type"):
			typ = val
		case keyIs(key, "tool_use_id"):
			id = val
		case keyIs(key, "content"):
			content = val
		case keyIs(key, "is_error"):
			isError = val
		}
	})
	if !strIs(typ, "tool_result") {
		return
	}
	tid, _ := str(id)
	c := s.pending[tid]
	if c == nil {
		return
	}
	delete(s.pending, tid)
	if len(content) == 0 {
		content = []byte(`""`)
	}
	if !json.Valid(content) {
		s.drop(c, ReasonBadResult)
		return
	}
	c.done = true
	c.OK = string(isError) != "true"
	if !c.At.IsZero() && !at.IsZero() && at.After(c.At) {
		c.MS = at.Sub(c.At).Milliseconds()
	}
	if s.keep {
		c.Content = bytes.Clone(content)
		s.events = append(s.events, event{kind: evResult, call: c, at: at})
	}
}

// drop takes a call out of Calls and lists it as skipped.
func (s *Session) drop(c *Call, reason string) {
	s.skip(c.Tool.Name, reason)
	c.done = false
	c.Tool.Reason = reason
}

// skip counts one call of tool left out for reason.
func (s *Session) skip(tool, reason string) {
	s.skips[Skip{Tool: tool, Reason: reason}]++
}

// finish settles the calls still waiting for a result, and sorts the
// skip list: most calls first, then by tool name and reason.
func (s *Session) finish() {
	kept := s.Calls[:0]
	for _, c := range s.Calls {
		switch {
		case c.done:
			kept = append(kept, c)
		case c.Tool.Reason == "":
			s.skip(c.Tool.Name, ReasonNoResult)
		}
	}
	clear(s.Calls[len(kept):])
	s.Calls = kept
	s.pending, s.seen = nil, nil
	for k, n := range s.skips {
		k.Count = n
		s.Skipped = append(s.Skipped, k)
	}
	s.skips = nil
	sort.Slice(s.Skipped, func(i, j int) bool {
		a, b := s.Skipped[i], s.Skipped[j]
		if a.Count != b.Count {
			return a.Count > b.Count
		}
		if a.Tool != b.Tool {
			return a.Tool < b.Tool
		}
		return a.Reason < b.Reason
	})
}
