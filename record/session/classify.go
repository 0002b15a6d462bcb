package session

import "strings"

// The reasons a tool call is left out of the trace. Every call the
// transcript holds is either replayed or listed with one of these.
const (
	// ReasonNotReplayable is default-deny: any tool that is neither a
	// builtin nor an MCP tool.
	ReasonNotReplayable = "not replayable: only http.get, http.post and mcp__<server>__<tool> calls replay deterministically"
	// ReasonMalformedMCP is an mcp__ name without a server or a tool part.
	ReasonMalformedMCP = "not replayable: an mcp__ name needs both a server and a tool (mcp__<server>__<tool>)"
	// ReasonServerTool is a tool the model provider ran on its side.
	ReasonServerTool = "not replayable: a tool the model provider ran on its own side"
	// ReasonControl is one of the recorder's start and stop tools.
	ReasonControl = "a Reelier recording control tool: it marks a recording, it is not a step"
	// ReasonNoResult is a replayable call whose result never appears.
	ReasonNoResult = "no tool_result in the transcript (the session ended before the call returned), so there is nothing to check a replay against"
	// ReasonBadInput is a replayable call whose input is not valid JSON.
	ReasonBadInput = "its input is not valid JSON"
	// ReasonBadResult is a replayable call whose result content is not
	// valid JSON.
	ReasonBadResult = "its tool_result content is not valid JSON"
)

// The recorder's control tools, as an MCP server exposes them.
const (
	startRecording = "reelier_start_recording"
	noteTool       = "reelier_note"
	stopRecording  = "reelier_stop_recording"
)

// Tool is what a tool_use name means for replay.
type Tool struct {
	// Name is the name the transcript gives the tool, e.g.
	// mcp__crm__get_contact.
	Name string
	// Replay is the tool name a trace records and a replay calls: the
	// bare <tool> of an MCP name, or the builtin's own name. It is "" for
	// a tool that is not replayed.
	Replay string
	// Server is the MCP server of an MCP tool, "" otherwise.
	Server string
	// Reason says why the tool is not replayed; "" when it is.
	Reason string
}

// Classify decides whether a tool_use name is replayable, by default-deny:
// exactly http.get and http.post (Reelier's builtins) and
// mcp__<server>__<tool> names are; every other name is not, whatever it
// is called. The name is split at the first two "__": the server is the
// middle part and the tool everything after it.
func Classify(name string) Tool {
	t := Tool{Name: name}
	switch {
	case name == "http.get" || name == "http.post":
		t.Replay = name
		return t
	case !strings.HasPrefix(name, "mcp__"):
		t.Reason = ReasonNotReplayable
		return t
	}
	server, tool, ok := strings.Cut(strings.TrimPrefix(name, "mcp__"), "__")
	if !ok || server == "" || tool == "" {
		t.Reason = ReasonMalformedMCP
		return t
	}
	t.Server = server
	switch tool {
	case startRecording, stopRecording:
		t.Reason = ReasonControl
	default:
		t.Replay = tool
	}
	return t
}

// isNote reports whether a replayable tool is the recorder's note tool,
// whose text becomes a trace note instead of a step.
func (t Tool) isNote() bool { return t.Replay == noteTool }
