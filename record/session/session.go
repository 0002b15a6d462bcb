package session

import (
	"encoding/json"
	"time"
)

// maxLineTypes bounds how many distinct ignored line types are counted by
// name; the rest are counted together under OtherTypes.
const maxLineTypes = 32

// OtherTypes is the LineCounts.Ignored key that collects line types past
// the first maxLineTypes.
const OtherTypes = "(more types)"

// Session is what a transcript holds for replay: its replayable calls
// that have a result, every call left out and why, and what was wrong
// with its lines.
type Session struct {
	// ID is the agent's session id, "" when no line named one.
	ID string
	// CWD is the working directory the session ran in, "" when unknown.
	CWD string
	// StartedAt is the time of the first line that had one; zero if none.
	StartedAt time.Time
	// Init is set when the input opened with the harness's system/init
	// line, as `claude -p --output-format stream-json` output does.
	Init bool
	// ReelierTrace is set when the input opened with a Reelier trace's
	// meta record ({"t":"meta",…}): a recording of `reelier mcp`, which
	// `reelier compile` reads, not an agent's transcript.
	ReelierTrace bool
	// Calls are the replayable calls with a result, in call order.
	Calls []*Call
	// Skipped lists every call left out, by tool and reason.
	Skipped []Skip
	// Lines counts the lines and the ones that were not read.
	Lines LineCounts
	// Host is the agent that wrote the session: "claude", "codex" or
	// "gemini".
	Host string
	// Usage adds up the model tokens the host logged for the session, per
	// model, in the order the models first appear; empty when it logged
	// none.
	Usage []Usage

	keep    bool
	pending map[string]*Call // replayable calls waiting for their result
	seen    map[string]bool  // replayable tool_use ids already met
	skips   map[Skip]int     // Skip with Count 0 → count
	events  []event          // in Keep mode: calls, results and notes in order
	msgs    []string         // the latest assistant message ids whose usage is counted
}

// Usage is the tokens one model spent in a session, as the host logged
// them. Cached input is counted apart from fresh input where the host
// tells them apart (CacheRead, CacheWrite); Input excludes both.
type Usage struct {
	Model      string `json:"model"`
	Input      int64  `json:"input"`
	Output     int64  `json:"output"`
	CacheRead  int64  `json:"cacheRead,omitempty"`
	CacheWrite int64  `json:"cacheWrite,omitempty"`
}

// Call is one replayable tool call and its result.
type Call struct {
	// ID is the agent's tool_use id.
	ID   string
	Tool Tool
	// Input is the call's arguments (Keep mode only).
	Input json.RawMessage
	// At is the time of the line that made the call; zero if unknown.
	At time.Time
	// OK is false when the result was marked is_error.
	OK bool
	// Content is the tool_result content, a string or an array of blocks
	// (Keep mode only).
	Content json.RawMessage
	// MS is the time from the call's line to the result's, when both
	// lines carry one; 0 otherwise.
	MS   int64
	done bool
	// whole is set when Content is a whole MCP CallToolResult, as the
	// Codex CLI logs it, rather than a tool_result's content.
	whole bool
}

// Skip is a tool left out, with how many of its calls were.
type Skip struct {
	Tool   string `json:"tool"`
	Reason string `json:"reason"`
	Count  int    `json:"count"`
}

// LineCounts counts a transcript's lines.
type LineCounts struct {
	// Lines is every non-blank line.
	Lines int `json:"lines"`
	// Invalid lines are not a JSON object (or hold a malformed message).
	Invalid int `json:"invalid"`
	// Truncated is 1 when the last line was cut off mid-object.
	Truncated int `json:"truncated"`
	// TooLong lines passed Options.MaxLine and were stepped over.
	TooLong int `json:"tooLong"`
	// Ignored counts the lines of types that hold no tool calls
	// (attachment, summary, queue-operation, …), by type.
	Ignored map[string]int `json:"ignored"`
	// First is where the first line that was not read is, and why:
	// "line:col: message" ("" when every line was read, or the reader
	// does not tell).
	First string `json:"first,omitempty"`
}

// IgnoredTotal is the number of ignored lines of every type.
func (c LineCounts) IgnoredTotal() int {
	n := 0
	for _, k := range c.Ignored {
		n += k
	}
	return n
}

// Add adds o's counts to c's, keeping at most maxLineTypes type names.
func (c *LineCounts) Add(o LineCounts) {
	c.Lines += o.Lines
	c.Invalid += o.Invalid
	c.Truncated += o.Truncated
	c.TooLong += o.TooLong
	if c.Ignored == nil {
		c.Ignored = map[string]int{}
	}
	for k, n := range o.Ignored {
		c.Ignored[c.typeKey(k)] += n
	}
}

// typeKey is the key a line type is counted under: itself, or OtherTypes
// once maxLineTypes names are taken.
func (c *LineCounts) typeKey(name string) string {
	if _, known := c.Ignored[name]; !known && len(c.Ignored) >= maxLineTypes {
		return OtherTypes
	}
	return name
}

// SkippedCalls is the number of calls left out.
func (s *Session) SkippedCalls() int {
	n := 0
	for _, k := range s.Skipped {
		n += k.Count
	}
	return n
}

// Servers returns the MCP servers the replayable calls used, in the order
// of their first call.
func (s *Session) Servers() []string {
	var out []string
	seen := map[string]bool{}
	for _, c := range s.Calls {
		if c.Tool.Server != "" && !seen[c.Tool.Server] {
			seen[c.Tool.Server] = true
			out = append(out, c.Tool.Server)
		}
	}
	return out
}
