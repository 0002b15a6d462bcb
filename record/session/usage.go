package session

import (
	"slices"
	"strconv"
)

// recentMessages is how many message ids claudeUsage remembers: Claude
// Code writes a message's lines one after another, so a short memory
// counts each once, in memory that does not grow with the transcript.
const recentMessages = 64

// claudeUsage adds an assistant message's token usage to the session's.
// Claude Code writes one line per content block of a message, each
// repeating the message's id and usage, so a message is counted once, by
// its id (among the last recentMessages). A usage of no tokens (the CLI's
// own <synthetic> messages) adds nothing.
func (s *Session) claudeUsage(msg []byte) {
	var id, model, usage []byte
	eachMember(msg, func(key, val []byte) {
		switch {
		case keyIs(key, "id"):
			id = val
		case keyIs(key, "model"):
			model = val
		case keyIs(key, "usage"):
			usage = val
		}
	})
	if len(usage) == 0 || usage[0] != '{' {
		return
	}
	if key, ok := str(id); ok && key != "" {
		if slices.Contains(s.msgs, key) {
			return
		}
		if len(s.msgs) == recentMessages {
			s.msgs = append(s.msgs[:0], s.msgs[1:]...)
		}
		s.msgs = append(s.msgs, key)
	}
	var u Usage
	eachMember(usage, func(key, val []byte) {
		switch {
		case keyIs(key, "input_tokens"):
			u.Input = tokenCount(val)
		case keyIs(key, "output_tokens"):
			u.Output = tokenCount(val)
		case keyIs(key, "cache_read_input_tokens"):
			u.CacheRead = tokenCount(val)
		case keyIs(key, "cache_creation_input_tokens"):
			u.CacheWrite = tokenCount(val)
		}
	})
	u.Model, _ = str(model)
	s.AddUsage(u)
}

// resultUsage takes the totals per model of a stream's result line in
// place of what its assistant lines added up: in the stream
// `claude -p --output-format stream-json` prints, an assistant line
// carries its message's usage as the message began (one output token),
// and the result line the run's totals.
func (s *Session) resultUsage(raw []byte) {
	if len(raw) == 0 || raw[0] != '{' {
		return
	}
	var usage []Usage
	eachMember(raw, func(key, val []byte) {
		model, ok := str(append(append([]byte{'"'}, key...), '"'))
		if !ok || len(val) == 0 || val[0] != '{' {
			return
		}
		u := Usage{Model: model}
		eachMember(val, func(k, v []byte) {
			switch {
			case keyIs(k, "inputTokens"):
				u.Input = tokenCount(v)
			case keyIs(k, "outputTokens"):
				u.Output = tokenCount(v)
			case keyIs(k, "cacheReadInputTokens"):
				u.CacheRead = tokenCount(v)
			case keyIs(k, "cacheCreationInputTokens"):
				u.CacheWrite = tokenCount(v)
			}
		})
		if u.Input != 0 || u.Output != 0 || u.CacheRead != 0 || u.CacheWrite != 0 {
			usage = append(usage, u)
		}
	})
	if usage != nil {
		s.Usage = usage
	}
}

// tokenCount reads a token count; anything but a non-negative integer
// counts 0.
func tokenCount(raw []byte) int64 {
	n, err := strconv.ParseInt(string(raw), 10, 64)
	if err != nil || n < 0 {
		return 0
	}
	return n
}

// AddUsage adds u to the session's usage of u.Model (a new entry for a
// model not met before); a usage of no tokens adds nothing. Readers of
// every host call it for each model turn they count.
func (s *Session) AddUsage(u Usage) {
	if u.Input == 0 && u.Output == 0 && u.CacheRead == 0 && u.CacheWrite == 0 {
		return
	}
	for i := range s.Usage {
		if s.Usage[i].Model == u.Model {
			s.Usage[i].Input += u.Input
			s.Usage[i].Output += u.Output
			s.Usage[i].CacheRead += u.CacheRead
			s.Usage[i].CacheWrite += u.CacheWrite
			return
		}
	}
	s.Usage = append(s.Usage, u)
}
