package session

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/reelier/reelier/tool/jsondata"
)

// The Gemini CLI keeps three kinds of session file, all under
// <runtime dir>/tmp/<project>/ (GeminiDirs):
//
//   - chats/session-<time>-<id>.jsonl, the chat recording 0.61.0 writes
//     as the session runs: a metadata line (sessionId, projectHash,
//     startTime), then one line per message, written again whole each
//     time the message changes (its tool calls completed, its tokens
//     counted), "$set" lines that update the metadata or replace the
//     message list, and "$rewindTo" lines;
//   - chats/session-….json, the same record as one JSON document
//     ({"sessionId", "projectHash", "messages": […]}), which earlier
//     versions wrote and 0.61.0 still reads;
//   - checkpoint-<tag>.json, what `/chat save <tag>` writes: the model's
//     history as the API saw it, {"history": [Content…]} (or, from older
//     versions, the bare array), whose functionCall and functionResponse
//     parts are the calls and their results.
//
// A message of type "gemini" holds the tool calls the CLI ran in
// toolCalls, each with its id, name, args, status and result: the parts
// the CLI sent back to the model, a functionResponse whose response is
// {"output": text} or {"error": text}. That logged result is the only
// result read; the model's own text never is.

// Why a Gemini CLI call is left out.
const (
	// ReasonGeminiTool is a tool of the Gemini CLI's own (shell, files,
	// web search, memory, …), not an MCP server's.
	ReasonGeminiTool = "not replayable: a Gemini CLI built-in tool (shell, files, web, …); only MCP tool calls (mcp_<server>_<tool>) replay deterministically"
	// ReasonGeminiCancelled is a call the user or the CLI cancelled
	// before it returned.
	ReasonGeminiCancelled = "cancelled before it returned, so there is no result to check a replay against"
)

// geminiSniff is how much of a file IsGeminiSession and ReadGemini look
// at to tell its format.
const geminiSniff = 64 << 10

// GeminiDirs returns the folder the Gemini CLI keeps its sessions in:
// <home>/.gemini/tmp, where home is $GEMINI_CLI_HOME when set (the CLI's
// own override) and the given home otherwise; under the macOS seatbelt
// sandbox (SANDBOX=sandbox-exec) the CLI keeps them in
// <home>/.cache/.gemini/tmp instead. Each project has a folder of its own
// below it.
func GeminiDirs(home string, getenv func(string) string) []string {
	if h := getenv("GEMINI_CLI_HOME"); h != "" {
		home = h
	}
	if home == "" {
		return nil
	}
	if getenv("SANDBOX") == "sandbox-exec" {
		return []string{filepath.Join(home, ".cache", ".gemini", "tmp")}
	}
	return []string{filepath.Join(home, ".gemini", "tmp")}
}

// IsGeminiSession reports whether a file is one of the Gemini CLI's
// session files, from its first bytes (a chat recording's metadata line
// names a projectHash, a checkpoint holds role/parts Content), or, when
// prefix is empty, from its name: session-*.json or session-*.jsonl in a
// chats folder, or checkpoint-*.json.
func IsGeminiSession(path string, prefix []byte) bool {
	body := bytes.TrimLeft(bytes.TrimPrefix(prefix, bom), " \t\r\n")
	if len(body) == 0 {
		base := filepath.Base(path)
		switch {
		case strings.HasPrefix(base, "checkpoint-") && strings.HasSuffix(base, ".json"):
			return true
		case strings.HasPrefix(base, "session-") && (strings.HasSuffix(base, ".json") || strings.HasSuffix(base, ".jsonl")):
			return filepath.Base(filepath.Dir(path)) == "chats"
		}
		return false
	}
	nl := bytes.IndexByte(body, '\n')
	if nl < 0 {
		nl = len(body)
	}
	if json.Valid(body[:nl]) {
		// A JSON Lines file: its first line says, by its top-level keys
		// (a Claude Code line may well mention them in its text).
		var head struct {
			SessionID   *string         `json:"sessionId"`
			ProjectHash *string         `json:"projectHash"`
			History     json.RawMessage `json:"history"`
		}
		if json.Unmarshal(body[:nl], &head) != nil {
			return body[0] == '[' && bytes.Contains(body[:nl], []byte(`"role"`)) && bytes.Contains(body[:nl], []byte(`"parts"`))
		}
		return head.SessionID != nil && head.ProjectHash != nil || len(head.History) > 0 && head.History[0] == '['
	}
	switch body[0] {
	case '[':
		return bytes.Contains(body, []byte(`"role"`)) && bytes.Contains(body, []byte(`"parts"`))
	case '{':
		return bytes.Contains(body, []byte(`"projectHash"`)) ||
			bytes.Contains(body, []byte(`"history"`)) && bytes.Contains(body, []byte(`"parts"`))
	}
	return false
}

// bom is the UTF-8 byte order mark an editor may put first.
var bom = []byte("\xef\xbb\xbf")

// ReadGemini reads a Gemini CLI session: a chat recording (JSON Lines, or
// the single JSON document earlier versions wrote) or a /chat save
// checkpoint, with the same contract as Read: the MCP tool calls that
// have a logged result become Calls, every other call is listed in
// Skipped with its reason, the tokens of each model message are added up
// in Usage, and bad input is counted, never fatal — the error is only
// ever a read error. Lines counts the records read: the lines of a JSON
// Lines file, the messages (or history entries) of a document; the first
// problem's place is in Lines.First. A JSON document is read a value at a
// time, so memory is bounded by its largest message (at most
// Options.MaxLine; one larger stops the read there and is counted as too
// long), whatever the file's size.
func ReadGemini(r io.Reader, opts Options) (*Session, error) {
	max := opts.maxLine()
	g := &geminiReader{
		s:       newSession("gemini", opts),
		open:    map[string]string{},
		counted: map[string]bool{},
		byName:  map[string][]*Call{},
	}
	br := bufio.NewReaderSize(r, geminiSniff)
	prefix, _ := br.Peek(geminiSniff)
	var err error
	if isJSONDocument(prefix) {
		err = g.readDocument(br, max)
	} else {
		err = g.readLines(br, max)
	}
	g.finish()
	return g.s, err
}

// isJSONDocument tells a file that is one JSON value spread over lines
// (a checkpoint, a pretty-printed recording) from JSON Lines, whose first
// line is a whole value: a document's first line opens an object or an
// array and leaves it open at the line's end, as a pretty printer does. A
// first line cut off anywhere else (a writer that died, then a resumed
// session appending) stays JSON Lines, so the lines after it are read.
func isJSONDocument(prefix []byte) bool {
	body := bytes.TrimLeft(bytes.TrimPrefix(prefix, bom), " \t\r\n")
	if len(body) == 0 {
		return false
	}
	if body[0] == '[' {
		return true
	}
	nl := bytes.IndexByte(body, '\n')
	if nl < 0 {
		return false // one line (or a first line longer than the sniff): JSON Lines
	}
	first := bytes.TrimRight(body[:nl], " \t\r")
	if json.Valid(first) {
		return false
	}
	last := first[len(first)-1]
	return last == '{' || last == '['
}

// geminiReader is the state of one ReadGemini.
type geminiReader struct {
	s *Session
	// open maps the id of a tool call seen without a final status to its
	// name; a later copy of the message may complete it.
	open map[string]string
	// counted holds the ids of the messages whose tokens are added up.
	counted map[string]bool
	// byName queues checkpoint calls that have no id, by name.
	byName map[string][]*Call
	// line is the current record's line (JSON Lines) for positions.
	line int
}

// geminiRecord is one line of a chat recording, one message of a
// recording document, or the document itself.
type geminiRecord struct {
	SessionID   *string          `json:"sessionId"`
	ProjectHash *string          `json:"projectHash"`
	StartTime   string           `json:"startTime"`
	Directories []string         `json:"directories"`
	Messages    []geminiMessage  `json:"messages"`
	History     []geminiContent  `json:"history"`
	Set         *geminiRecord    `json:"$set"`
	RewindTo    *string          `json:"$rewindTo"`
	ID          *string          `json:"id"`
	Type        string           `json:"type"`
	Timestamp   string           `json:"timestamp"`
	Model       string           `json:"model"`
	Tokens      *geminiTokens    `json:"tokens"`
	ToolCalls   []geminiToolCall `json:"toolCalls"`
}

// geminiMessage is a message record (MessageRecord in the CLI's source).
type geminiMessage struct {
	ID        string           `json:"id"`
	Type      string           `json:"type"`
	Timestamp string           `json:"timestamp"`
	Model     string           `json:"model"`
	Tokens    *geminiTokens    `json:"tokens"`
	ToolCalls []geminiToolCall `json:"toolCalls"`
}

// geminiTokens is a message's token counts (TokensSummary): input is
// the prompt, cached included; output the candidates, thoughts apart;
// tool the tool-use prompt.
type geminiTokens struct {
	Input    int64 `json:"input"`
	Output   int64 `json:"output"`
	Cached   int64 `json:"cached"`
	Thoughts int64 `json:"thoughts"`
	Tool     int64 `json:"tool"`
}

// geminiToolCall is one tool call of a model message (ToolCallRecord).
type geminiToolCall struct {
	ID          string          `json:"id"`
	Name        string          `json:"name"`
	Args        json.RawMessage `json:"args"`
	Result      json.RawMessage `json:"result"`
	Status      string          `json:"status"`
	Timestamp   string          `json:"timestamp"`
	DisplayName string          `json:"displayName"`
}

// geminiContent is one entry of a checkpoint's history (the API's
// Content).
type geminiContent struct {
	Role  string       `json:"role"`
	Parts []geminiPart `json:"parts"`
}

// geminiPart is the part of a Content a reader looks at.
type geminiPart struct {
	FunctionCall *struct {
		ID   string          `json:"id"`
		Name string          `json:"name"`
		Args json.RawMessage `json:"args"`
	} `json:"functionCall"`
	FunctionResponse *struct {
		ID       string          `json:"id"`
		Name     string          `json:"name"`
		Response json.RawMessage `json:"response"`
	} `json:"functionResponse"`
}

// readLines reads a chat recording a line at a time.
func (g *geminiReader) readLines(r io.Reader, max int) error {
	lr := newLineReader(r, max)
	defer lr.release()
	for {
		l, ok := lr.next()
		if !ok {
			break
		}
		g.line++
		if l.tooLong {
			g.s.Lines.Lines++
			g.s.Lines.TooLong++
			g.problem(g.line, 1, fmt.Sprintf("a line longer than %d bytes was not read", max))
			continue
		}
		text := bytes.TrimSpace(l.text)
		if g.line == 1 {
			text = bytes.TrimPrefix(text, bom)
		}
		if len(text) == 0 {
			continue
		}
		g.s.Lines.Lines++
		var rec geminiRecord
		if err := json.Unmarshal(text, &rec); err != nil {
			g.bad(err, text, l.last)
			continue
		}
		g.record(&rec)
	}
	return lr.err
}

// bad counts a line that does not decode, and notes where.
func (g *geminiReader) bad(err error, text []byte, last bool) {
	var se *json.SyntaxError
	off := 0
	switch {
	case errors.As(err, &se):
		off = int(se.Offset) - 1 // the offending byte
		if int(se.Offset) >= len(text) {
			off = len(text) // the line ended early: after its last byte
		}
	case last && !json.Valid(text):
		off = len(text)
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		off = int(te.Offset)
		err = fmt.Errorf("%s is %s, not %s", fieldName(te.Field), te.Value, te.Type)
	}
	if last && !json.Valid(text) {
		g.s.Lines.Truncated++
		off = len(text)
		err = errors.New("the last line is cut off")
	} else {
		g.s.Lines.Invalid++
	}
	g.problem(g.line, charColumn(text, off), err.Error())
}

// fieldName names a field of a type error for a message.
func fieldName(f string) string {
	if f == "" {
		return "the value"
	}
	return fmt.Sprintf("%q", f)
}

// charColumn is the 1-based column, in characters, of byte off of line.
func charColumn(line []byte, off int) int {
	off = min(max(off, 0), len(line))
	return utf8.RuneCount(line[:off]) + 1
}

// problem keeps the place of the first record that was not read.
func (g *geminiReader) problem(line, col int, msg string) {
	if g.s.Lines.First == "" {
		g.s.Lines.First = fmt.Sprintf("%d:%d: %s", line, col, msg)
	}
}

// record handles one record of a chat recording.
func (g *geminiReader) record(rec *geminiRecord) {
	s := g.s
	switch {
	case rec.RewindTo != nil:
		// The CLI hides the rewound messages from the conversation, but
		// their tools ran: their calls stay.
		s.Lines.Ignored[s.Lines.typeKey("$rewindTo")]++
		return
	case rec.Set != nil:
		g.meta(rec.Set)
		if rec.Set.Messages == nil {
			s.Lines.Ignored[s.Lines.typeKey("$set")]++
		}
		for i := range rec.Set.Messages {
			g.message(&rec.Set.Messages[i])
		}
		return
	case rec.ID != nil:
		g.message(&geminiMessage{ID: *rec.ID, Type: rec.Type, Timestamp: rec.Timestamp, Model: rec.Model, Tokens: rec.Tokens, ToolCalls: rec.ToolCalls})
		return
	}
	g.meta(rec)
	for i := range rec.Messages {
		g.message(&rec.Messages[i])
	}
	for i := range rec.History {
		g.content(&rec.History[i])
	}
	if rec.SessionID == nil && rec.Messages == nil && rec.History == nil {
		s.Lines.Ignored[s.Lines.typeKey("(no type)")]++
	}
}

// meta takes the session's id, directory and start from the first
// record that has each.
func (g *geminiReader) meta(rec *geminiRecord) {
	s := g.s
	if s.ID == "" && rec.SessionID != nil {
		s.ID = *rec.SessionID
	}
	if s.CWD == "" && len(rec.Directories) > 0 {
		s.CWD = rec.Directories[0]
	}
	if s.StartedAt.IsZero() && rec.StartTime != "" {
		s.StartedAt = parseTime(rec.StartTime)
	}
}

func parseTime(ts string) time.Time {
	t, err := time.Parse(time.RFC3339Nano, ts)
	if err != nil {
		return time.Time{}
	}
	return t.UTC()
}

// message handles one message record: its tokens and its tool calls.
func (g *geminiReader) message(m *geminiMessage) {
	s := g.s
	if m.Type != "gemini" {
		if m.Type != "user" {
			name := m.Type
			if name == "" {
				name = "(no type)"
			}
			s.Lines.Ignored[s.Lines.typeKey(name)]++
		}
		return
	}
	at := parseTime(m.Timestamp)
	if s.StartedAt.IsZero() {
		s.StartedAt = at
	}
	if m.Tokens != nil && (m.ID == "" || !g.counted[m.ID]) {
		if m.ID != "" {
			g.counted[m.ID] = true
		}
		g.tokens(m.Model, m.Tokens)
	}
	for i := range m.ToolCalls {
		g.toolCall(&m.ToolCalls[i], at)
	}
}

// tokens adds one model message's tokens to the session's usage: the
// cached part of the prompt is counted as cache reads, the tool-use
// prompt as input, thoughts as output (they are billed as output).
func (g *geminiReader) tokens(model string, t *geminiTokens) {
	if model == "" {
		model = "(unknown model)"
	}
	u := Usage{Model: model, Input: max(t.Input-t.Cached, 0) + t.Tool, Output: t.Output + t.Thoughts, CacheRead: t.Cached}
	for i := range g.s.Usage {
		if g.s.Usage[i].Model == model {
			g.s.Usage[i].Input += u.Input
			g.s.Usage[i].Output += u.Output
			g.s.Usage[i].CacheRead += u.CacheRead
			return
		}
	}
	g.s.Usage = append(g.s.Usage, u)
}

// toolCall handles one tool call of a model message. A call is taken once,
// from the first copy of its message that gives it a final status; the
// copies the CLI writes again later are stepped over.
func (g *geminiReader) toolCall(tc *geminiToolCall, at time.Time) {
	s := g.s
	if tc.ID != "" && s.seen[tc.ID] {
		return
	}
	switch tc.Status {
	case "success", "error", "cancelled":
	default:
		if tc.ID != "" {
			g.open[tc.ID] = tc.Name // its result may come in a later copy
		} else {
			s.skip(tc.Name, ReasonNoResult)
		}
		return
	}
	if tc.ID != "" {
		s.seen[tc.ID] = true
		delete(g.open, tc.ID)
	}
	t := classifyGemini(tc.Name, tc.DisplayName)
	switch {
	case t.Reason != "":
		s.skip(tc.Name, t.Reason)
		return
	case tc.Status == "cancelled":
		s.skip(tc.Name, ReasonGeminiCancelled)
		return
	}
	args := tc.Args
	if len(args) == 0 || string(args) == "null" {
		args = []byte("{}")
	}
	if t.isNote() {
		s.note(args, at)
		return
	}
	content, isError, ok := geminiResult(tc.Result, s.keep)
	if !ok {
		s.skip(tc.Name, ReasonNoResult)
		return
	}
	c := &Call{ID: tc.ID, Tool: t, At: at, OK: tc.Status == "success" && !isError, done: true}
	if done := parseTime(tc.Timestamp); !at.IsZero() && done.After(at) {
		c.MS = done.Sub(at).Milliseconds()
	}
	g.add(c, args, content, done(at, c.MS))
}

// done is the time a call's result came, for the trace's events.
func done(at time.Time, ms int64) time.Time {
	if at.IsZero() {
		return at
	}
	return at.Add(time.Duration(ms) * time.Millisecond)
}

// add keeps a call that has its result.
func (g *geminiReader) add(c *Call, args, content []byte, resultAt time.Time) {
	s := g.s
	if s.keep {
		c.Input = bytes.Clone(args)
		c.Content = content
		s.events = append(s.events, event{kind: evCall, call: c, at: c.At}, event{kind: evResult, call: c, at: resultAt})
	}
	s.Calls = append(s.Calls, c)
}

// content handles one entry of a checkpoint's history: the model's
// functionCall parts are calls, the user's functionResponse parts their
// results, matched by id or, without one, by name in order.
func (g *geminiReader) content(ct *geminiContent) {
	s := g.s
	for _, p := range ct.Parts {
		switch {
		case p.FunctionCall != nil && ct.Role == "model":
			fc := p.FunctionCall
			t := classifyGemini(fc.Name, "")
			if t.Reason != "" {
				s.skip(fc.Name, t.Reason)
				continue
			}
			args := fc.Args
			if len(args) == 0 || string(args) == "null" {
				args = []byte("{}")
			}
			if t.isNote() {
				s.note(args, time.Time{})
				continue
			}
			c := &Call{ID: fc.ID, Tool: t}
			if s.keep {
				c.Input = bytes.Clone(args)
				s.events = append(s.events, event{kind: evCall, call: c})
			}
			s.Calls = append(s.Calls, c)
			if fc.ID != "" {
				s.pending[fc.ID] = c
			} else {
				g.byName[fc.Name] = append(g.byName[fc.Name], c)
			}
		case p.FunctionResponse != nil && ct.Role == "user":
			fr := p.FunctionResponse
			c := s.pending[fr.ID]
			if fr.ID != "" {
				delete(s.pending, fr.ID)
			} else if q := g.byName[fr.Name]; len(q) > 0 {
				c, g.byName[fr.Name] = q[0], q[1:]
			}
			if c == nil || c.done {
				continue
			}
			content, isError := responseContent(fr.Response, s.keep)
			c.done, c.OK = true, !isError
			if s.keep {
				c.Content = content
				s.events = append(s.events, event{kind: evResult, call: c})
			}
		}
	}
}

// classifyGemini decides whether a Gemini CLI tool call replays. An MCP
// tool's display name is "<tool> (<server> MCP Server)", which gives both
// names as the server has them; without it (a checkpoint) the registered
// name mcp_<server>_<tool> is split at its first "_" after the prefix, as
// the CLI itself splits it. Every other tool is the CLI's own.
func classifyGemini(name, display string) Tool {
	t := Tool{Name: name}
	var server, tool string
	if rest, ok := strings.CutSuffix(display, " MCP Server)"); ok {
		if i := strings.Index(rest, " ("); i > 0 {
			tool, server = rest[:i], rest[i+2:]
		}
	}
	if server == "" || tool == "" {
		rest, ok := strings.CutPrefix(name, "mcp_")
		if !ok {
			t.Reason = ReasonGeminiTool
			return t
		}
		server, tool, ok = strings.Cut(rest, "_")
		if !ok || server == "" || tool == "" {
			t.Reason = ReasonMalformedMCP
			return t
		}
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

// The wrapper 0.61.0 puts around each text an MCP tool returns before the
// model sees it, and the escape it applies to the closing tag inside.
const (
	untrustedOpen    = "<untrusted_context>\n"
	untrustedClose   = "\n</untrusted_context>"
	untrustedEscaped = "&lt;/untrusted_context&gt;"
)

// mcpErrorMark introduces, in the error the CLI logs for an MCP result
// marked isError, the server's response as JSON.
const mcpErrorMark = " with response: "

// geminiResult turns the result the CLI logged for a call (the parts it
// sent back to the model) into MCP content blocks, and says whether it
// was an error. ok is false when there is no functionResponse to read.
//
// The response is {"output": text}, where text is each text block the
// server returned wrapped in <untrusted_context> tags, joined by newlines
// (taken apart again here; an output not made of such blocks is one text
// block); or {"error": message}, where a message that reports a server's
// isError result carries that result's JSON, whose content is used; or,
// from older versions, the server's own {"content": […]}.
func geminiResult(result json.RawMessage, keep bool) (content []byte, isError, ok bool) {
	var parts []struct {
		FunctionResponse *struct {
			Response json.RawMessage `json:"response"`
		} `json:"functionResponse"`
	}
	if len(result) == 0 || json.Unmarshal(result, &parts) != nil {
		return nil, false, false
	}
	for _, p := range parts {
		if p.FunctionResponse != nil {
			content, isError = responseContent(p.FunctionResponse.Response, keep)
			return content, isError, true
		}
	}
	return nil, false, false
}

// responseContent reads one functionResponse's response (geminiResult);
// the content is only put together when keep is set.
func responseContent(raw json.RawMessage, keep bool) (content []byte, isError bool) {
	var resp struct {
		Output  *string         `json:"output"`
		Error   *string         `json:"error"`
		Content json.RawMessage `json:"content"`
		IsError bool            `json:"isError"`
	}
	if len(raw) == 0 || raw[0] != '{' || json.Unmarshal(raw, &resp) != nil {
		return textBlocksIf(keep, string(raw)), false
	}
	switch {
	case resp.Error != nil:
		if !keep {
			return nil, true
		}
		if c := mcpErrorContent(*resp.Error); c != nil {
			return c, true
		}
		return textBlocks(*resp.Error), true
	case resp.Output != nil:
		if !keep {
			return nil, false
		}
		if texts, ok := unwrapUntrusted(*resp.Output); ok {
			return textBlocks(texts...), false
		}
		return textBlocks(*resp.Output), false
	case len(resp.Content) > 0 && resp.Content[0] == '[':
		return bytes.Clone(resp.Content), resp.IsError
	}
	return textBlocksIf(keep), false // a tool that returned no text
}

// textBlocksIf is textBlocks when keep is set, nil otherwise.
func textBlocksIf(keep bool, texts ...string) []byte {
	if !keep {
		return nil
	}
	return textBlocks(texts...)
}

// textBlocks renders texts as MCP text content blocks.
func textBlocks(texts ...string) []byte {
	var b bytes.Buffer
	b.WriteByte('[')
	for i, t := range texts {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`{"type":"text","text":`)
		b.WriteString(jsondata.StdString(t))
		b.WriteByte('}')
	}
	b.WriteByte(']')
	return b.Bytes()
}

// unwrapUntrusted takes an output apart into the texts the CLI wrapped,
// or says it is not made only of wrapped texts.
func unwrapUntrusted(out string) ([]string, bool) {
	var texts []string
	for rest := out; ; {
		body, ok := strings.CutPrefix(rest, untrustedOpen)
		if !ok {
			return nil, false
		}
		end := strings.Index(body, untrustedClose) // an inner closing tag is escaped
		if end < 0 {
			return nil, false
		}
		texts = append(texts, strings.ReplaceAll(body[:end], untrustedEscaped, "</untrusted_context>"))
		rest = body[end+len(untrustedClose):]
		if rest == "" {
			return texts, true
		}
		if rest, ok = strings.CutPrefix(rest, "\n"); !ok {
			return nil, false
		}
	}
}

// mcpErrorContent is the content of the server response an MCP error
// message carries, or nil.
func mcpErrorContent(msg string) []byte {
	if !strings.HasPrefix(msg, "MCP tool '") {
		return nil
	}
	i := strings.LastIndex(msg, mcpErrorMark)
	if i < 0 {
		return nil
	}
	var parts []struct {
		FunctionResponse struct {
			Response struct {
				Content json.RawMessage `json:"content"`
			} `json:"response"`
		} `json:"functionResponse"`
	}
	if json.Unmarshal([]byte(msg[i+len(mcpErrorMark):]), &parts) != nil || len(parts) == 0 {
		return nil
	}
	c := parts[0].FunctionResponse.Response.Content
	if len(c) == 0 || c[0] != '[' {
		return nil
	}
	return c
}

// finish settles the calls still open and sorts the skip list.
func (g *geminiReader) finish() {
	for _, name := range g.open {
		g.s.skip(name, ReasonNoResult)
	}
	g.s.finish()
}

// errValueTooLong stops the decoder of a JSON document at a value longer
// than Options.MaxLine.
var errValueTooLong = errors.New("a value longer than the limit")

// docReader feeds the decoder of a JSON document. It keeps the bytes
// from the start of the line the decoder is on, for the line and column
// of a problem, and refuses to read on once the value being decoded
// passes max bytes, which bounds the decoder's buffer.
type docReader struct {
	r      io.Reader
	dec    *json.Decoder
	read   int64 // bytes handed to the decoder
	start  int64 // the offset of window[0]
	line   int   // the line window[0] is on
	window []byte
	max    int64
	err    error // a read error, not EOF
}

func (d *docReader) Read(p []byte) (int, error) {
	done := d.dec.InputOffset()
	d.prune(done)
	if d.read-done > d.max {
		return 0, errValueTooLong
	}
	n, err := d.r.Read(p)
	d.window = append(d.window, p[:n]...)
	d.read += int64(n)
	if err != nil && !errors.Is(err, io.EOF) {
		d.err = err
	}
	return n, err
}

// prune drops the whole lines before offset off once they are at least
// half the window, so copying stays linear in the input.
func (d *docReader) prune(off int64) {
	i := int(off - d.start)
	if i <= 0 || i < len(d.window)/2 {
		return
	}
	nl := bytes.LastIndexByte(d.window[:i], '\n')
	if nl < 0 {
		return
	}
	d.line += bytes.Count(d.window[:nl+1], []byte("\n"))
	d.start += int64(nl + 1)
	d.window = append(d.window[:0], d.window[nl+1:]...)
}

// pos is the 1-based line and column (in characters) of offset off.
func (d *docReader) pos(off int64) (line, col int) {
	i := int(min(max(off-d.start, 0), int64(len(d.window))))
	line = d.line + bytes.Count(d.window[:i], []byte("\n"))
	ls := bytes.LastIndexByte(d.window[:i], '\n') + 1
	return line, charColumn(d.window[ls:], i-ls)
}

// readDocument reads a file that is one JSON value spread over lines — a
// checkpoint, or a chat recording as earlier versions wrote it — a token
// at a time, each message decoded on its own. A value that does not
// decode is counted and stepped over; broken JSON stops the read there.
func (g *geminiReader) readDocument(r *bufio.Reader, max int) error {
	if head, _ := r.Peek(len(bom)); bytes.Equal(head, bom) {
		r.Discard(len(bom))
	}
	d := &docReader{r: r, line: 1, max: int64(max)}
	d.dec = json.NewDecoder(d)
	for {
		tok, err := d.dec.Token()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err == nil {
			g.s.Lines.Lines++
			switch tok {
			case json.Delim('['): // a checkpoint of an older version
				err = g.docElements(d, g.docContent)
			case json.Delim('{'):
				err = g.docObject(d)
			default:
				g.s.Lines.Invalid++
				l, c := d.pos(d.dec.InputOffset() - 1)
				g.problem(l, c, "the file is not a Gemini CLI session: it holds a JSON value that is not an object or an array")
				return nil
			}
		}
		if err != nil {
			return g.docError(d, err)
		}
	}
}

// docError counts the problem that stopped a document's read, and returns
// the error only when it is a read error.
func (g *geminiReader) docError(d *docReader, err error) error {
	if d.err != nil {
		return d.err
	}
	s := g.s
	var se *json.SyntaxError
	var ds *docSyntaxError
	switch {
	case errors.Is(err, errValueTooLong):
		s.Lines.TooLong++
		l, c := d.pos(d.dec.InputOffset())
		g.problem(l, c, fmt.Sprintf("a value longer than %d bytes; the rest of the file was not read", d.max))
	case errors.Is(err, io.ErrUnexpectedEOF):
		s.Lines.Truncated++
		l, c := d.pos(d.read)
		g.problem(l, c, "the file ends in the middle of a JSON value (cut off?)")
	case errors.As(err, &ds):
		s.Lines.Invalid++
		l, c := d.pos(ds.off - 1)
		g.problem(l, c, ds.msg+"; the rest of the file was not read")
	case errors.As(err, &se):
		s.Lines.Invalid++
		l, c := d.pos(se.Offset - 1)
		g.problem(l, c, se.Error()+"; the rest of the file was not read")
	default:
		s.Lines.Invalid++
		l, c := d.pos(d.dec.InputOffset())
		g.problem(l, c, err.Error())
	}
	return nil
}

// docObject reads the members of the object whose '{' was just read:
// the messages of a recording, the history of a checkpoint, the
// session's id and start.
func (g *geminiReader) docObject(d *docReader) error {
	var meta geminiRecord
	for d.dec.More() {
		tok, err := d.dec.Token()
		if err != nil {
			return err
		}
		key, _ := tok.(string)
		switch key {
		case "messages", "history":
			err = g.docList(d, key)
		default:
			var raw json.RawMessage
			if _, err = d.decode(&raw); err == nil {
				switch key {
				case "sessionId":
					json.Unmarshal(raw, &meta.SessionID)
				case "startTime":
					json.Unmarshal(raw, &meta.StartTime)
				case "directories":
					json.Unmarshal(raw, &meta.Directories)
				}
			}
		}
		if err != nil {
			return err
		}
	}
	g.meta(&meta)
	_, err := d.dec.Token() // '}'
	return err
}

// docList reads the value of a messages or history member, which should
// be an array; any other value is stepped over and counted.
func (g *geminiReader) docList(d *docReader, key string) error {
	at := d.dec.InputOffset()
	tok, err := d.dec.Token()
	if err != nil {
		return err
	}
	if tok == json.Delim('[') {
		if key == "history" {
			return g.docElements(d, g.docContent)
		}
		return g.docElements(d, g.docMessage)
	}
	g.s.Lines.Invalid++
	l, c := d.pos(d.valueStart(at))
	g.problem(l, c, fmt.Sprintf("%q is not a list", key))
	for depth := 0; ; { // step over the rest of an object or array
		switch tok {
		case json.Delim('{'), json.Delim('['):
			depth++
		case json.Delim('}'), json.Delim(']'):
			depth--
		}
		if depth == 0 {
			return nil
		}
		if tok, err = d.dec.Token(); err != nil {
			return err
		}
	}
}

// docElements reads the elements of the array whose '[' was just read,
// each with each, and its ']'.
func (g *geminiReader) docElements(d *docReader, each func(*docReader) error) error {
	for d.dec.More() {
		g.s.Lines.Lines++
		if err := each(d); err != nil {
			return err
		}
	}
	_, err := d.dec.Token() // ']'
	return err
}

// docDecode decodes the next value into v. A value of the wrong shape is
// counted as invalid (ok false); a syntax or read error is returned.
func (g *geminiReader) docDecode(d *docReader, v any) (bool, error) {
	base, err := d.decode(v)
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		g.s.Lines.Invalid++
		l, c := d.pos(base + te.Offset)
		g.problem(l, c, fmt.Sprintf("%s is %s, not %s", fieldName(te.Field), te.Value, te.Type))
		return false, nil
	}
	return err == nil, err
}

// decode decodes the next value into v. The offsets of the errors the
// decoder gives for it count from the byte after the comma or colon
// before it (or from the value, when neither comes first); decode
// returns that start, as an offset in the input, and turns a syntax
// error's offset into one in the input.
func (d *docReader) decode(v any) (base int64, err error) {
	base = d.dec.InputOffset()
	if i := d.skipSpace(base); i < d.start+int64(len(d.window)) && (d.at(i) == ',' || d.at(i) == ':') {
		base = i + 1
	}
	err = d.dec.Decode(v)
	var se *json.SyntaxError
	if errors.As(err, &se) {
		// The decoder's offset counts every value it scanned before; scan
		// this one again on its own for the place.
		off := d.read
		var raw json.RawMessage
		again := json.NewDecoder(bytes.NewReader(d.window[base-d.start:]))
		if errors.As(again.Decode(&raw), &se) {
			off = base + se.Offset
		}
		err = &docSyntaxError{msg: se.Error(), off: off}
	}
	return base, err
}

// at is the input's byte at offset off, which must be in the window.
func (d *docReader) at(off int64) byte { return d.window[off-d.start] }

// skipSpace returns the offset of the first byte at or after off, within
// what was read, that is not JSON whitespace.
func (d *docReader) skipSpace(off int64) int64 {
	for off >= d.start && off < d.start+int64(len(d.window)) && isSpace(d.at(off)) {
		off++
	}
	return off
}

// valueStart is the offset of the value that follows a key whose end is
// at off: past the blanks and the colon.
func (d *docReader) valueStart(off int64) int64 {
	off = d.skipSpace(off)
	if off < d.start+int64(len(d.window)) && d.at(off) == ':' {
		off = d.skipSpace(off + 1)
	}
	return off
}

// docSyntaxError is a syntax error at an offset of the whole input.
type docSyntaxError struct {
	msg string
	off int64 // after reading off bytes
}

func (e *docSyntaxError) Error() string { return e.msg }

// docMessage reads one message of a recording document.
func (g *geminiReader) docMessage(d *docReader) error {
	var m geminiMessage
	ok, err := g.docDecode(d, &m)
	if ok {
		g.message(&m)
	}
	return err
}

// docContent reads one entry of a checkpoint's history.
func (g *geminiReader) docContent(d *docReader) error {
	var c geminiContent
	ok, err := g.docDecode(d, &c)
	if ok {
		g.content(&c)
	}
	return err
}
