package session

import (
	"bytes"
	"encoding/json"
	"io"
	"path/filepath"
	"strings"
	"time"
)

// The reasons a Codex call is left out, beside the shared ones.
const (
	// ReasonCodexHostError is an MCP call Codex logged with an error in
	// place of the server's result: the call was refused (an approval the
	// policy did not give) or failed before the server answered.
	ReasonCodexHostError = "Codex logged an error instead of the server's result (the call was refused or failed before the server answered), so there is nothing to check a replay against"
	// ReasonCodexNoMCPResult is an MCP-named call Codex answered only with
	// the text it handed the model (an unknown tool, or a session written
	// without the MCP events): no result the server returned was logged.
	ReasonCodexNoMCPResult = "Codex logged no MCP result for it, only the text it gave the model (an unknown tool, or a session that keeps no MCP events), so there is nothing to check a replay against"
)

// codexUnknownModel names the tokens of a Codex session counted before any
// line named the model.
const codexUnknownModel = "unknown"

// codexCall is a function call of a Codex session waiting for its MCP
// result or its output.
type codexCall struct {
	name    string // the model's name for the tool, qualified: mcp__srv__tool, exec_command
	tool    Tool   // from the name; Server is "" for a name that is not MCP's
	input   []byte // the decoded arguments (Keep mode only); nil when badInput
	bad     bool   // the arguments are not valid JSON
	at      time.Time
	settled bool
	// answered is set when Codex gave the model an output for the call.
	answered bool
}

// codexReader is the state of ReadCodex beyond the Session's own.
type codexReader struct {
	s      *Session
	calls  map[string]*codexCall // function calls by call_id
	model  string                // the model the last turn context named
	totals codexTokens           // the session's running token totals
	usage  map[string]int        // model → index in s.Usage
}

// codexTokens is a token_count's total_token_usage.
type codexTokens struct {
	input, cached, cacheWrite, output int64
}

// ReadCodex reads a Codex CLI session rollout file
// ($CODEX_HOME/sessions/YYYY/MM/DD/rollout-*.jsonl) one line at a time,
// with the contract of Read: bad lines are counted, never fatal; the error
// is only ever a read error. Each line is {"timestamp", "type", "payload"}.
// session_meta gives the id and directory; turn_context the model;
// response_item function calls are the calls the model made; event_msg
// item_completed (an McpToolCall item) and, from earlier versions,
// mcp_tool_call_end carry the server, the tool and the result Codex got
// back; event_msg token_count gives the tokens. Only an MCP result Codex
// logged is a result; a call Codex answered only with text for the model
// (function_call_output) is skipped with its reason. The first rollout
// format (2025: a bare meta line, then bare response items and
// {"record_type":"state"} markers) is read too; it logged no MCP results.
// So is the stream `codex exec --json` prints (thread.started, then
// item.completed events, mcp_tool_call items among them, and a
// turn.completed with each turn's usage): Init is set when it opens with
// thread.started, as for Claude Code's stream.
func ReadCodex(r io.Reader, opts Options) (*Session, error) {
	max := opts.maxLine()
	s := newSession("codex", opts)
	cr := &codexReader{s: s, calls: map[string]*codexCall{}, usage: map[string]int{}}
	lr := newLineReader(r, max)
	defer lr.release()
	for {
		l, ok := lr.next()
		if !ok {
			break
		}
		if l.tooLong {
			s.Lines.Lines++
			s.Lines.TooLong++
			continue
		}
		text := bytes.TrimSpace(l.text)
		if len(text) == 0 {
			continue
		}
		s.Lines.Lines++
		cr.line(text, l.last)
	}
	cr.finish()
	s.finish()
	return s, lr.err
}

// line reads one non-blank line of a rollout file or of the exec --json
// stream.
func (cr *codexReader) line(text []byte, last bool) {
	s := cr.s
	var typ, timestamp, payload, id, recordType, item, usage []byte
	ok := eachMember(text, func(key, val []byte) {
		switch {
		case keyIs(key, "item"):
			item = val
		case keyIs(key, "usage"):
			usage = val
		case keyIs(key, "thread_id"):
			id = val
		case keyIs(key, "type"):
			typ = val
		case keyIs(key, "timestamp"):
			timestamp = val
		case keyIs(key, "payload"):
			payload = val
		case keyIs(key, "id"):
			id = val
		case keyIs(key, "record_type"):
			recordType = val
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
	at := s.meta(lineFields{timestamp: timestamp})
	if typ != nil && payload != nil && (len(payload) == 0 || payload[0] != '{') {
		s.Lines.Invalid++
		return
	}
	switch {
	case strIs(typ, "session_meta"):
		cr.sessionMeta(payload)
	case strIs(typ, "turn_context"):
		eachMember(payload, func(key, val []byte) {
			if keyIs(key, "model") {
				if m, ok := str(val); ok && m != "" {
					cr.model = m
				}
			}
		})
	case strIs(typ, "response_item"):
		cr.responseItem(payload, at)
	case strIs(typ, "event_msg"):
		cr.eventMsg(payload, at)
	case strIs(typ, "thread.started"):
		// `codex exec --json` prints this first: the stream of its events.
		s.Init = s.Init || s.Lines.Lines == 1
		if s.ID == "" {
			s.ID, _ = str(id)
		}
	case strIs(typ, "item.completed"):
		cr.streamItem(item, at)
	case strIs(typ, "item.started"), strIs(typ, "item.updated"):
	case strIs(typ, "turn.completed"):
		cr.turnUsage(usage)
	case typ == nil && recordType != nil:
		// The first rollout format's {"record_type":"state"} marker.
		s.Lines.Ignored[s.Lines.typeKey("record_type")]++
	case typ == nil && id != nil && s.Lines.Lines == 1:
		// The first rollout format opens with the bare session meta,
		// {"id", "timestamp", "instructions", "git"}.
		s.ID, _ = str(id)
	case payload == nil && isResponseItemType(typ):
		// …and writes response items bare, one a line.
		cr.responseItem(text, at)
	default:
		s.ignore(typ)
	}
}

// isResponseItemType reports whether a line's type is one of a response
// item's, as the first rollout format writes them without an envelope.
func isResponseItemType(typ []byte) bool {
	for _, t := range [...]string{"message", "reasoning", "function_call", "function_call_output", "custom_tool_call", "custom_tool_call_output", "local_shell_call", "web_search_call"} {
		if strIs(typ, t) {
			return true
		}
	}
	return false
}

// sessionMeta takes the session's id and directory.
func (cr *codexReader) sessionMeta(payload []byte) {
	s := cr.s
	eachMember(payload, func(key, val []byte) {
		switch {
		case keyIs(key, "id"):
			if s.ID == "" {
				s.ID, _ = str(val)
			}
		case keyIs(key, "cwd"):
			if s.CWD == "" {
				s.CWD, _ = str(val)
			}
		}
	})
}

// members returns the raw values of the named members of an object; ok is
// false when b is not one.
func members(b []byte, names ...string) (vals [][]byte, ok bool) {
	vals = make([][]byte, len(names))
	ok = eachMember(b, func(key, val []byte) {
		for i, n := range names {
			if keyIs(key, n) {
				vals[i] = val
			}
		}
	})
	return vals, ok
}

// responseItem reads a response item: a function call the model made, the
// output Codex gave back to the model, or a tool run on the provider's
// side. Messages and reasoning hold no calls.
func (cr *codexReader) responseItem(payload []byte, at time.Time) {
	v, ok := members(payload, "type", "name", "namespace", "arguments", "call_id")
	if !ok {
		cr.s.Lines.Invalid++
		return
	}
	typ, name, ns, args, id := v[0], v[1], v[2], v[3], v[4]
	switch {
	case strIs(typ, "function_call"):
		cr.functionCall(name, ns, args, id, at)
	case strIs(typ, "function_call_output"):
		cr.output(id)
	case strIs(typ, "custom_tool_call"):
		n, _ := str(name)
		cr.s.skip(n, ReasonNotReplayable)
	case strIs(typ, "local_shell_call"):
		cr.s.skip("local_shell", ReasonNotReplayable)
	case strIs(typ, "web_search_call"):
		cr.s.skip("web_search", ReasonServerTool)
	}
}

// functionCall notes a call the model made. Whether it is an MCP call is
// settled by the MCP event Codex logs for it; the name only says what the
// call is when no such event comes.
func (cr *codexReader) functionCall(rawName, rawNS, rawArgs, rawID []byte, at time.Time) {
	name, _ := str(rawName)
	ns, _ := str(rawNS)
	id, _ := str(rawID)
	if id != "" && (cr.calls[id] != nil || cr.s.seen[id]) {
		return // the same call written twice
	}
	c := &codexCall{at: at}
	switch {
	case strings.HasPrefix(ns, "mcp__"):
		c.tool = mcpTool(strings.TrimPrefix(ns, "mcp__"), name)
	case ns != "":
		c.tool = Tool{Name: ns + "__" + name, Reason: ReasonNotReplayable}
	case strings.HasPrefix(name, "mcp__"):
		c.tool = Classify(name)
	default:
		c.tool = Tool{Name: name, Reason: ReasonNotReplayable}
	}
	c.name = c.tool.Name
	c.input, c.bad = codexArgs(rawArgs, cr.s.keep)
	if id == "" {
		cr.settle(c, "")
		return
	}
	cr.calls[id] = c
}

// codexArgs decodes a function call's arguments, a JSON text in a JSON
// string (an object is taken as it is); bad is set when they are not
// valid JSON. The bytes are only returned when keep is set.
func codexArgs(raw []byte, keep bool) (input []byte, bad bool) {
	switch {
	case len(raw) == 0 || string(raw) == "null":
		raw = []byte("{}")
	case raw[0] == '"':
		text, ok := str(raw)
		if !ok {
			return nil, true
		}
		if strings.TrimSpace(text) == "" {
			text = "{}"
		}
		raw = []byte(text)
	}
	if !json.Valid(raw) {
		return nil, true
	}
	if !keep {
		return nil, false
	}
	return bytes.Clone(raw), false
}

// mcpTool is the Tool of an MCP call Codex names by server and tool.
func mcpTool(server, tool string) Tool {
	t := Tool{Name: "mcp__" + server + "__" + tool}
	switch {
	case server == "" || tool == "":
		t.Reason = ReasonMalformedMCP
	case tool == startRecording || tool == stopRecording:
		t.Server = server
		t.Reason = ReasonControl
	default:
		t.Server, t.Replay = server, tool
	}
	return t
}

// output notes the text Codex handed the model for a call. A call that
// is not MCP's is settled by it; an MCP call may still get its MCP event
// (the order of the two lines is Codex's to choose), so it only learns
// that its answer, if no event comes, was text for the model alone.
func (cr *codexReader) output(rawID []byte) {
	id, _ := str(rawID)
	c := cr.calls[id]
	if c == nil || c.settled {
		return
	}
	if c.tool.Server == "" && c.tool.Reason != "" {
		cr.settle(c, c.tool.Reason)
		return
	}
	c.answered = true
}

// settle lists a call that will not replay, once.
func (cr *codexReader) settle(c *codexCall, reason string) {
	if c.settled {
		return
	}
	c.settled = true
	switch {
	case reason != "":
	case c.tool.Reason != "":
		reason = c.tool.Reason
	case c.answered:
		reason = ReasonCodexNoMCPResult
	default:
		reason = ReasonNoResult
	}
	cr.s.skip(c.name, reason)
}

// eventMsg reads an event: an MCP call's end (an item_completed
// McpToolCall, or an earlier version's mcp_tool_call_end) or a token
// count; every other event holds no call and is counted as ignored.
func (cr *codexReader) eventMsg(payload []byte, at time.Time) {
	v, ok := members(payload, "type", "item", "info", "call_id", "invocation", "result", "duration", "started_at_ms", "completed_at_ms")
	if !ok {
		cr.s.Lines.Invalid++
		return
	}
	switch typ := v[0]; {
	case strIs(typ, "item_completed"):
		cr.itemCompleted(v[1], v[7], v[8], at)
	case strIs(typ, "mcp_tool_call_end"):
		cr.mcpEnd(v[3], v[4], v[5], v[6], at)
	case strIs(typ, "mcp_tool_call_begin"):
	case strIs(typ, "token_count"):
		cr.tokenCount(v[2])
	default:
		name, ok := str(typ)
		if !ok {
			name = "(no type)"
		}
		name = "event_msg/" + name
		cr.s.Lines.Ignored[cr.s.Lines.typeKey(name)]++
	}
}

// mcpResult is what Codex logged as the end of one MCP call.
type mcpResult struct {
	id, server, tool string
	args             []byte // the arguments as Codex sent them, a JSON value
	result           []byte // a CallToolResult object; nil when err is set
	err              bool
	ms               int64
}

// streamItem reads a completed item of the `codex exec --json` stream:
// an mcp_tool_call is an MCP call's end, with its result (content and
// structured_content) or its error; the other items that are tool calls
// are skipped under their item type.
func (cr *codexReader) streamItem(item []byte, at time.Time) {
	v, ok := members(item, "type", "id", "server", "tool", "arguments", "result", "error", "status")
	if !ok {
		cr.s.Lines.Invalid++
		return
	}
	switch typ := v[0]; {
	case strIs(typ, "mcp_tool_call"):
	case strIs(typ, "command_execution"), strIs(typ, "file_change"):
		name, _ := str(typ)
		cr.s.skip(name, ReasonNotReplayable)
		return
	case strIs(typ, "web_search"):
		cr.s.skip("web_search", ReasonServerTool)
		return
	default:
		return
	}
	var r mcpResult
	r.id, _ = str(v[1])
	r.server, _ = str(v[2])
	r.tool, _ = str(v[3])
	r.args = v[4]
	if len(v[5]) > 0 && v[5][0] == '{' {
		r.result = streamResult(v[5], strIs(v[7], "failed"))
	} else {
		r.err = true
	}
	cr.mcpDone(r, at)
}

// streamResult is a CallToolResult from the stream's result, which names
// its members content and structured_content and says a tool error only
// by the item's status.
func streamResult(res []byte, failed bool) []byte {
	v, ok := members(res, "content", "structured_content", "_meta")
	if !ok {
		return res
	}
	var b bytes.Buffer
	b.WriteString(`{"content":`)
	if len(v[0]) > 0 {
		b.Write(v[0])
	} else {
		b.WriteString(`[]`)
	}
	if len(v[1]) > 0 && string(v[1]) != "null" {
		b.WriteString(`,"structuredContent":`)
		b.Write(v[1])
	}
	if len(v[2]) > 0 && string(v[2]) != "null" {
		b.WriteString(`,"_meta":`)
		b.Write(v[2])
	}
	if failed {
		b.WriteString(`,"isError":true`)
	}
	b.WriteByte('}')
	return b.Bytes()
}

// turnUsage adds a turn.completed event's usage, one turn's tokens, to
// the model of the last turn context, "unknown" in a stream, which names
// none.
func (cr *codexReader) turnUsage(usage []byte) {
	var u struct {
		Input      int64 `json:"input_tokens"`
		Cached     int64 `json:"cached_input_tokens"`
		CacheWrite int64 `json:"cache_write_input_tokens"`
		Output     int64 `json:"output_tokens"`
	}
	if len(usage) == 0 || json.Unmarshal(usage, &u) != nil || u.Input < 0 || u.Cached < 0 || u.CacheWrite < 0 || u.Output < 0 {
		cr.s.Lines.Invalid++
		return
	}
	cr.addUsage(codexTokens{input: u.Input, cached: u.Cached, cacheWrite: u.CacheWrite, output: u.Output})
}

// itemCompleted reads a completed turn item; only McpToolCall items hold
// calls.
func (cr *codexReader) itemCompleted(item, started, completed []byte, at time.Time) {
	v, ok := members(item, "type", "id", "server", "tool", "arguments", "result", "error", "status", "duration")
	if !ok || !strIs(v[0], "McpToolCall") {
		return
	}
	var r mcpResult
	r.id, _ = str(v[1])
	r.server, _ = str(v[2])
	r.tool, _ = str(v[3])
	r.args = v[4]
	switch {
	case len(v[5]) > 0 && v[5][0] == '{':
		r.result = v[5]
	default:
		r.err = true // an error, or no result at all
	}
	if strIs(v[7], "in_progress") {
		return
	}
	r.ms = msBetween(started, completed)
	if r.ms == 0 {
		r.ms = durationMS(v[8])
	}
	cr.mcpDone(r, at)
}

// mcpEnd reads an mcp_tool_call_end event (Codex before the turn items):
// {"call_id", "invocation": {"server", "tool", "arguments"}, "duration",
// "result": {"Ok": CallToolResult} | {"Err": message}}.
func (cr *codexReader) mcpEnd(rawID, invocation, result, duration []byte, at time.Time) {
	var r mcpResult
	r.id, _ = str(rawID)
	inv, ok := members(invocation, "server", "tool", "arguments")
	if !ok {
		cr.s.Lines.Invalid++
		return
	}
	r.server, _ = str(inv[0])
	r.tool, _ = str(inv[1])
	r.args = inv[2]
	res, _ := members(result, "Ok", "Err")
	if len(res[0]) > 0 && res[0][0] == '{' {
		r.result = res[0]
	} else {
		r.err = true
	}
	r.ms = durationMS(duration)
	cr.mcpDone(r, at)
}

// mcpDone records an MCP call Codex logged the end of: a replayable call
// with its result, or a skipped one.
func (cr *codexReader) mcpDone(r mcpResult, at time.Time) {
	s := cr.s
	fc := cr.calls[r.id]
	if fc != nil && fc.settled {
		return
	}
	if r.id != "" && s.seen[r.id] {
		return
	}
	t := mcpTool(r.server, r.tool)
	if (r.server == "" || r.tool == "") && fc != nil {
		t = fc.tool
	}
	callAt := at
	var input []byte
	bad := false
	if fc != nil {
		fc.settled = true
		callAt = fc.at
		input, bad = fc.input, fc.bad
	} else {
		input, bad = codexArgs(r.args, s.keep)
	}
	if r.id != "" {
		s.seen[r.id] = true
	}
	switch {
	case t.Reason != "":
		s.skip(t.Name, t.Reason)
		return
	case bad:
		s.skip(t.Name, ReasonBadInput)
		return
	case r.err:
		s.skip(t.Name, ReasonCodexHostError)
		return
	case !json.Valid(r.result):
		s.skip(t.Name, ReasonBadResult)
		return
	}
	if t.isNote() {
		if s.keep {
			s.note(input, callAt)
		}
		return
	}
	c := &Call{ID: r.id, Tool: t, At: callAt, OK: !resultIsError(r.result), MS: r.ms, done: true, whole: true}
	if c.MS == 0 && !callAt.IsZero() && at.After(callAt) {
		c.MS = at.Sub(callAt).Milliseconds()
	}
	if s.keep {
		c.Input = input
		c.Content = bytes.Clone(r.result)
		s.events = append(s.events, event{kind: evCall, call: c, at: callAt}, event{kind: evResult, call: c, at: at})
	}
	s.Calls = append(s.Calls, c)
}

// resultIsError reports whether a CallToolResult says "isError": true.
func resultIsError(result []byte) bool {
	v, _ := members(result, "isError")
	return string(v[0]) == "true"
}

// msBetween is completed − started, two millisecond counts; 0 when either
// is missing or the difference is negative.
func msBetween(started, completed []byte) int64 {
	var a, b int64
	if json.Unmarshal(started, &a) != nil || json.Unmarshal(completed, &b) != nil || b < a {
		return 0
	}
	return b - a
}

// durationMS reads a Rust Duration as serde writes it, {"secs", "nanos"},
// in milliseconds; 0 when it is not one.
func durationMS(raw []byte) int64 {
	var d struct {
		Secs  int64 `json:"secs"`
		Nanos int64 `json:"nanos"`
	}
	if len(raw) == 0 || json.Unmarshal(raw, &d) != nil || d.Secs < 0 || d.Secs > 1<<40 || d.Nanos < 0 {
		return 0
	}
	return d.Secs*1000 + d.Nanos/1_000_000
}

// tokenCount adds what a token_count event's running totals grew by to
// the model the last turn context named. Codex logs totals for the whole
// session, so a repeated event adds nothing; totals that went down (a
// session continued in a new file) start the count again.
func (cr *codexReader) tokenCount(info []byte) {
	v, ok := members(info, "total_token_usage")
	if !ok || len(v[0]) == 0 || v[0][0] != '{' {
		return
	}
	var u struct {
		Input      int64 `json:"input_tokens"`
		Cached     int64 `json:"cached_input_tokens"`
		CacheWrite int64 `json:"cache_write_input_tokens"`
		Output     int64 `json:"output_tokens"`
	}
	if json.Unmarshal(v[0], &u) != nil || u.Input < 0 || u.Cached < 0 || u.CacheWrite < 0 || u.Output < 0 {
		cr.s.Lines.Invalid++
		return
	}
	now := codexTokens{input: u.Input, cached: u.Cached, cacheWrite: u.CacheWrite, output: u.Output}
	d := codexTokens{now.input - cr.totals.input, now.cached - cr.totals.cached, now.cacheWrite - cr.totals.cacheWrite, now.output - cr.totals.output}
	if d.input < 0 || d.cached < 0 || d.cacheWrite < 0 || d.output < 0 {
		d = now
	}
	cr.totals = now
	cr.addUsage(d)
}

// addUsage adds tokens to the model the last turn context named.
func (cr *codexReader) addUsage(d codexTokens) {
	if d == (codexTokens{}) {
		return
	}
	model := cr.model
	if model == "" {
		model = codexUnknownModel
	}
	i, ok := cr.usage[model]
	if !ok {
		i = len(cr.s.Usage)
		cr.usage[model] = i
		cr.s.Usage = append(cr.s.Usage, Usage{Model: model})
	}
	// OpenAI counts cached input inside input_tokens; Usage keeps it apart.
	fresh := d.input - d.cached
	if fresh < 0 {
		fresh = 0
	}
	cr.s.Usage[i].Input += fresh
	cr.s.Usage[i].CacheRead += d.cached
	cr.s.Usage[i].CacheWrite += d.cacheWrite
	cr.s.Usage[i].Output += d.output
}

// finish lists the calls that never got an MCP result or an output.
func (cr *codexReader) finish() {
	for _, c := range cr.calls {
		if !c.settled {
			cr.settle(c, "")
		}
	}
	cr.calls = nil
}

// CodexDirs returns the folders the Codex CLI keeps its sessions in:
// sessions and archived_sessions under $CODEX_HOME, or under ~/.codex when
// CODEX_HOME is not set.
func CodexDirs(home string, getenv func(string) string) []string {
	root := getenv("CODEX_HOME")
	if root == "" {
		if home == "" {
			return nil
		}
		root = filepath.Join(home, ".codex")
	}
	return []string{filepath.Join(root, "sessions"), filepath.Join(root, "archived_sessions")}
}

// IsCodexSession reports whether a file looks like a Codex rollout file,
// from its first bytes (a first line of type session_meta), or like the
// stream `codex exec --json` prints (a first line of type
// thread.started); a file named rollout-….jsonl is one too when it is
// empty or opens like the first rollout format (a bare meta line with
// instructions, or a record_type marker), so a Claude Code transcript of
// that name is not taken for one.
func IsCodexSession(path string, prefix []byte) bool {
	first := bytes.TrimLeft(prefix, " \t\r\n")
	if i := bytes.IndexByte(first, '\n'); i >= 0 {
		first = first[:i]
	}
	base := filepath.Base(path)
	named := strings.HasPrefix(base, "rollout-") && strings.HasSuffix(base, ".jsonl")
	switch {
	case len(first) == 0:
		return named
	case first[0] != '{':
		return false
	case bytes.HasPrefix(first, []byte(`{"type":"thread.started"`)):
		return true // the stream `codex exec --json` prints
	case named && (bytes.Contains(first, []byte(`"instructions"`)) || bytes.Contains(first, []byte(`"record_type"`))):
		return true
	}
	// The line's head: Codex writes the timestamp, an ordinal and the type
	// before the payload, which may be long; inside a string every quote is
	// escaped, so what is found there is a member of the line.
	if i := bytes.Index(first, []byte(`"payload"`)); i >= 0 {
		first = first[:i]
	}
	return bytes.Contains(first, []byte(`"type":"session_meta"`))
}
