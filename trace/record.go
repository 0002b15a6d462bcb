package trace

import (
	"encoding/json"
)

// Kind is the record discriminator, the "t" field.
type Kind string

// The four record kinds; no other value is valid.
const (
	KindMeta   Kind = "meta"
	KindNote   Kind = "note"
	KindCall   Kind = "call"
	KindResult Kind = "result"
)

// Record is one line of a trace: *Meta, *Note, *Call or *Result.
type Record interface {
	// Kind returns the record's "t".
	Kind() Kind
	// Sequence returns the record's file-wide sequence number.
	Sequence() int
}

// Annotations are the MCP tool annotation hints a downstream declared.
// A nil field means the downstream did not declare that hint.
type Annotations struct {
	ReadOnlyHint    *bool `json:"readOnlyHint,omitempty"`
	DestructiveHint *bool `json:"destructiveHint,omitempty"`
	IdempotentHint  *bool `json:"idempotentHint,omitempty"`
}

// Hint is one declared annotation hint: Name is the hint without its
// "Hint" suffix (readOnly, destructive, idempotent).
type Hint struct {
	Name  string
	Value bool
}

// Declared returns the hints the downstream declared, in the order
// readOnly, destructive, idempotent.
func (a Annotations) Declared() []Hint {
	var out []Hint
	for _, h := range [...]struct {
		name string
		v    *bool
	}{{"readOnly", a.ReadOnlyHint}, {"destructive", a.DestructiveHint}, {"idempotent", a.IdempotentHint}} {
		if h.v != nil {
			out = append(out, Hint{h.name, *h.v})
		}
	}
	return out
}

// Meta opens every trace.
type Meta struct {
	T         Kind     `json:"t"`
	Seq       int      `json:"seq"`
	Name      string   `json:"name"`
	StartedAt string   `json:"startedAt"`
	Wrapped   []string `json:"wrapped"`
	// ToolAnnotations maps exposed tool names to their declared hints;
	// absent when no wrapped tool declared any.
	ToolAnnotations map[string]Annotations `json:"toolAnnotations,omitempty"`
	// Observed says how the calls were observed: "proxy" (the recorder saw
	// them on the wire), "stream" (a harness's own output), "file" (a
	// session file the agent could have written) or "replay" (the calls a
	// replay made, `reelier run --trace`). Absent means "proxy".
	Observed string `json:"observed,omitempty"`
	// Servers describes each wrapped downstream, in --wrap order: what it
	// is called, the command that starts it (redacted) and the tools it
	// offered. Absent in traces written before it existed and in traces
	// not made by the recording proxy.
	Servers []Server `json:"servers,omitempty"`
}

// Server is one downstream MCP server a recording wrapped.
type Server struct {
	// Name is a short label for the server, unique within the trace: the
	// name the server gave itself at the MCP handshake, made file-safe,
	// or one derived from its command.
	Name string `json:"name"`
	// Command is the --wrap command that started it, as given, with
	// secrets blanked: an environment assignment's value always, and any
	// credential the redactor recognises.
	Command string `json:"command"`
	// Tools are the names its tools were exposed (and recorded) under, in
	// the order the server listed them.
	Tools []string `json:"tools"`
	// ToolDefs are the definitions of Tools, in the same order, as the
	// server listed them (name as exposed, title, description,
	// inputSchema, outputSchema, annotations; nothing else), redacted
	// like every recorded value. package tooldef digests and compares them.
	// Absent in traces written before it existed.
	ToolDefs []json.RawMessage `json:"toolDefs,omitempty"`
	// Headers are the request headers a server given by URL was sent,
	// "Name: Value" with the value never recorded: written with the
	// $VAR references it was given with, or as a reference to a
	// variable named after the header (mcpx.SkillHeader). Absent for a
	// command, or a URL without headers.
	Headers []string `json:"headers,omitempty"`
}

// Note is narration an agent attached to the trace.
type Note struct {
	T    Kind   `json:"t"`
	Seq  int    `json:"seq"`
	TS   string `json:"ts"`
	Text string `json:"text"`
}

// Call is one tool call, before redaction-free arguments are known to the
// reader: Args is kept as raw JSON so object key order survives.
type Call struct {
	T    Kind            `json:"t"`
	Seq  int             `json:"seq"`
	I    int             `json:"i"`
	TS   string          `json:"ts"`
	Tool string          `json:"tool"`
	Args json.RawMessage `json:"args"`
	// ToolUseID is the agent's own id for the call when its client sent
	// one, so the trace can be joined to the agent's transcript.
	ToolUseID string `json:"toolUseId,omitempty"`
}

// Result is the outcome of the call with the same I.
type Result struct {
	T    Kind            `json:"t"`
	Seq  int             `json:"seq"`
	I    int             `json:"i"`
	OK   bool            `json:"ok"`
	MS   int64           `json:"ms"`
	Body json.RawMessage `json:"body"`
	// Relay lists the requests the call's downstream sent its client
	// while the call was in flight (sampling, elicitation, roots), as the
	// recording proxy relayed them to the agent, in the order they were
	// answered. Absent when there were none.
	Relay []Exchange `json:"relay,omitempty"`
	// Notified counts the notifications the call's downstream sent while
	// the call was in flight, by method. Absent when there were none.
	Notified map[string]int `json:"notified,omitempty"`
	// Cancelled is set when the agent cancelled the call
	// (notifications/cancelled); OK is then false.
	Cancelled bool `json:"cancelled,omitempty"`
	// Policy is what the policy in force decided for the call (package
	// policy); absent when no policy was in force.
	Policy *PolicyDecision `json:"policy,omitempty"`
}

// PolicyDecision is a policy's decision for one call: the policy's
// digest, the rule that decided (absent when the default did) and the
// action — allow; deny (the call never reached its server); dry-run (not
// sent, answered as rehearsed); ask, answered by the user (asked: the
// answer, accept or decline) and then sent or refused.
type PolicyDecision struct {
	Digest string `json:"digest"`
	Rule   string `json:"rule,omitempty"`
	Action string `json:"action"`
	Asked  string `json:"asked,omitempty"`
}

// Exchange is one request a downstream sent its client during a call,
// and its answer: Result when OK, else Error. Params and Result are
// redacted like every recorded value.
type Exchange struct {
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
	OK     bool            `json:"ok"`
	Result json.RawMessage `json:"result,omitempty"`
	Error  string          `json:"error,omitempty"`
}

// ResultExtras are the optional fields of a result record, written by
// Writer.ResultWith.
type ResultExtras struct {
	Relay     []Exchange
	Notified  map[string]int
	Cancelled bool
	Policy    *PolicyDecision
}

// Kind implements Record.
func (*Meta) Kind() Kind { return KindMeta }

// Kind implements Record.
func (*Note) Kind() Kind { return KindNote }

// Kind implements Record.
func (*Call) Kind() Kind { return KindCall }

// Kind implements Record.
func (*Result) Kind() Kind { return KindResult }

// Sequence implements Record.
func (m *Meta) Sequence() int { return m.Seq }

// Sequence implements Record.
func (n *Note) Sequence() int { return n.Seq }

// Sequence implements Record.
func (c *Call) Sequence() int { return c.Seq }

// Sequence implements Record.
func (r *Result) Sequence() int { return r.Seq }

// Truncation is the storage-profile marker for a body that was cut:
// {"__truncated": true, "preview": "...", "originalLength": n}.
type Truncation struct {
	Preview        string
	OriginalLength int
}

// Truncated reports whether the result's body is the truncation marker of
// the size-capped trace profile, and returns it.
func (r *Result) Truncated() (Truncation, bool) {
	var m struct {
		Truncated      *bool   `json:"__truncated"`
		Preview        *string `json:"preview"`
		OriginalLength *int    `json:"originalLength"`
	}
	if len(r.Body) == 0 || r.Body[0] != '{' || json.Unmarshal(r.Body, &m) != nil {
		return Truncation{}, false
	}
	if m.Truncated == nil || !*m.Truncated || m.Preview == nil || m.OriginalLength == nil {
		return Truncation{}, false
	}
	return Truncation{Preview: *m.Preview, OriginalLength: *m.OriginalLength}, true
}
