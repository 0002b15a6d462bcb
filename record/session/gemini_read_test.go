package session_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/reelier/reelier/compile"
	"github.com/reelier/reelier/record/session"
)

// geminiCall is one tool call record as the CLI logs it in a model
// message; output is the functionResponse's response.
func geminiCall(id, name, display, status, response string) string {
	return fmt.Sprintf(`{"id":%q,"name":%q,"args":{"id":"c_1"},"result":[{"functionResponse":{"id":%q,"name":%q,"response":%s}}],"status":%q,"timestamp":"2026-12-07T10:00:01.000Z","displayName":%q}`,
		id, name, id, name, response, status, display)
}

// geminiMsg is one model message line holding calls.
func geminiMsg(id string, calls ...string) string {
	return fmt.Sprintf(`{"id":%q,"timestamp":"2026-12-07T10:00:00.000Z","type":"gemini","content":"","model":"gemini-2.5-pro","tokens":{"input":100,"output":10,"cached":40,"thoughts":2,"tool":3,"total":115},"toolCalls":[%s]}`, id, strings.Join(calls, ","))
}

const geminiMeta = `{"sessionId":"5e55-1011","projectHash":"abc","startTime":"2026-12-07T09:59:00.000Z","kind":"main"}`

var (
	gmGet  = geminiCall("c1", "mcp_crm_get_contact", "get_contact (crm MCP Server)", "success", `{"output":"<untrusted_context>\n{\"id\":\"c_1\"}\n</untrusted_context>"}`)
	gmBash = geminiCall("c2", "run_shell_command", "Shell", "success", `{"output":"hi"}`)
)

// TestReadGeminiBadInput: nothing in a session file is fatal; every
// record not read is counted, the first one placed at line:col, and
// every call left out is listed with its reason.
func TestReadGeminiBadInput(t *testing.T) {
	doc := func(msgs ...string) string {
		return "{\n  \"sessionId\": \"5e55-1011\",\n  \"projectHash\": \"abc\",\n  \"messages\": [\n    " + strings.Join(msgs, ",\n    ") + "\n  ]\n}\n"
	}
	tests := []struct {
		name    string
		input   string
		maxLine int
		calls   int
		lines   session.LineCounts // Ignored compared only when set
		skipped string
	}{
		{name: "empty", input: ""},
		{name: "blank lines", input: "\n \n\r\n"},
		{name: "one call", input: geminiMeta + "\n" + geminiMsg("m1", gmGet) + "\n", calls: 1, lines: session.LineCounts{Lines: 2}},
		{name: "CRLF and a BOM", input: "\xef\xbb\xbf" + geminiMeta + "\r\n" + geminiMsg("m1", gmGet) + "\r\n", calls: 1, lines: session.LineCounts{Lines: 2}},
		{name: "the message written again is read once",
			input: geminiMeta + "\n" + geminiMsg("m1", gmGet) + "\n" + geminiMsg("m1", gmGet) + "\n" + `{"$set":{"messages":[` + geminiMsg("m1", gmGet) + `]}}` + "\n",
			calls: 1, lines: session.LineCounts{Lines: 4}},
		{name: "no MCP call", input: geminiMeta + "\n" + geminiMsg("m1", gmBash) + "\n",
			lines: session.LineCounts{Lines: 2}, skipped: "run_shell_command ×1 " + session.ReasonGeminiTool},
		{name: "cancelled", input: geminiMsg("m1", geminiCall("c1", "mcp_crm_get_contact", "get_contact (crm MCP Server)", "cancelled", `{"error":"cancelled"}`)) + "\n",
			lines: session.LineCounts{Lines: 1}, skipped: "mcp_crm_get_contact ×1 " + session.ReasonGeminiCancelled},
		{name: "never completed", input: geminiMsg("m1", geminiCall("c1", "mcp_crm_get_contact", "get_contact (crm MCP Server)", "executing", `null`)) + "\n",
			lines: session.LineCounts{Lines: 1}, skipped: "mcp_crm_get_contact ×1 " + session.ReasonNoResult},
		{name: "completed in a later copy",
			input: geminiMsg("m1", geminiCall("c1", "mcp_crm_get_contact", "get_contact (crm MCP Server)", "executing", `null`)) + "\n" + geminiMsg("m1", gmGet) + "\n",
			calls: 1, lines: session.LineCounts{Lines: 2}},
		{name: "a rewind keeps the calls that ran", input: geminiMsg("m1", gmGet) + "\n" + `{"$rewindTo":"m1"}` + "\n",
			calls: 1, lines: session.LineCounts{Lines: 2, Ignored: map[string]int{"$rewindTo": 1}}},
		{name: "a line that is not JSON", input: geminiMeta + "\n" + "{not json\n" + geminiMsg("m1", gmGet) + "\n",
			calls: 1, lines: session.LineCounts{Lines: 3, Invalid: 1, First: "2:2: invalid character 'n' looking for beginning of object key string"}},
		{name: "the first line cut off, the session resumed after it", input: geminiMeta[:50] + "\n" + geminiMeta + "\n" + geminiMsg("m1", gmGet) + "\n",
			calls: 1, lines: session.LineCounts{Lines: 3, Invalid: 1, First: "1:51: unexpected end of JSON input"}},
		{name: "a field of the wrong type", input: geminiMeta + "\n" + `{"id":"m0","type":"gemini","toolCalls":{"x":1}}` + "\n",
			lines: session.LineCounts{Lines: 2, Invalid: 1, First: `2:41: "toolCalls" is object, not []session.geminiToolCall`}},
		{name: "the last line cut off", input: geminiMeta + "\n" + geminiMsg("m1", gmGet)[:80],
			lines: session.LineCounts{Lines: 2, Truncated: 1, First: "2:81: the last line is cut off"}},
		{name: "a line too long", maxLine: 300 << 10, input: geminiMeta + "\n" + geminiMsg("m1", gmGet) + "\n" + geminiMsg("m2", geminiCall("c2", "mcp_crm_get_contact", "get_contact (crm MCP Server)", "success", `{"output":"`+strings.Repeat("x", 400<<10)+`"}`)) + "\n",
			calls: 1, lines: session.LineCounts{Lines: 3, TooLong: 1, First: "3:1: a line longer than 307200 bytes was not read"}},
		{name: "MCP names without a display name", input: geminiMsg("m1",
			geminiCall("c1", "mcp_crm_get_contact", "", "success", `{"output":"x"}`),
			geminiCall("c2", "mcp_crm", "", "success", `{"output":"x"}`),
			geminiCall("c3", "mcp_crm_reelier_start_recording", "", "success", `{"output":"x"}`)) + "\n",
			calls: 1, lines: session.LineCounts{Lines: 1},
			skipped: "mcp_crm ×1 " + session.ReasonMalformedMCP + "\nmcp_crm_reelier_start_recording ×1 " + session.ReasonControl},

		{name: "mixed versions: a one-line document, then lines of 0.61.0",
			input: `{"sessionId":"5e55-1011","projectHash":"abc","startTime":"2026-01-01T00:00:00.000Z","messages":[` +
				geminiMsg("m0", geminiCall("c0", "get_contact", "get_contact (crm MCP Server)", "success", `{"content":[{"type":"text","text":"old"}]}`)) + `]}` + "\n" +
				geminiMsg("m1", gmGet, gmBash) + "\n" + `{"$set":{"lastUpdated":"2026-12-07T10:00:02.000Z"}}` + "\n",
			calls: 2, lines: session.LineCounts{Lines: 3, Ignored: map[string]int{"$set": 1}}, skipped: "run_shell_command ×1 " + session.ReasonGeminiTool},
		{name: "document", input: doc(geminiMsg("m1", gmGet), geminiMsg("m2", gmBash)), calls: 1,
			lines: session.LineCounts{Lines: 3}, skipped: "run_shell_command ×1 " + session.ReasonGeminiTool},
		{name: "document cut off", input: doc(geminiMsg("m1", gmGet), geminiMsg("m2", gmBash))[:700], calls: 1,
			lines: session.LineCounts{Lines: 3, Truncated: 1, First: "6:105: the file ends in the middle of a JSON value (cut off?)"}},
		{name: "document with broken JSON", input: doc(geminiMsg("m1", gmGet), `{"id": "m2", "type": gemini}`, geminiMsg("m3", gmGet)), calls: 1,
			lines: session.LineCounts{Lines: 3, Invalid: 1, First: "6:26: invalid character 'g' looking for beginning of value; the rest of the file was not read"}},
		{name: "document with a message of the wrong shape", input: doc(`{"id": "m2", "type": "gemini", "tokens": "many"}`, geminiMsg("m1", gmGet)), calls: 1,
			lines: session.LineCounts{Lines: 3, Invalid: 1, First: `5:52: "tokens" is string, not session.geminiTokens`}},
		{name: "document whose messages are not a list", input: "{\n  \"sessionId\": \"x\",\n  \"messages\": {\"a\": [1, {\"b\": 2}]}\n}\n",
			lines: session.LineCounts{Lines: 1, Invalid: 1, First: `3:15: "messages" is not a list`}},
		{name: "document with a message too long", maxLine: 300, input: doc(geminiMsg("m1", gmGet)),
			lines: session.LineCounts{Lines: 2, TooLong: 1, First: "5:5: a value longer than 300 bytes; the rest of the file was not read"}},
		{name: "not a session at all", input: "[\n  1,\n  2\n]\n", lines: session.LineCounts{Lines: 3, Invalid: 2, First: `2:4: the value is number, not session.geminiContent`}},
		{name: "a number", input: "42\n\n", lines: session.LineCounts{Lines: 1, Truncated: 0, Invalid: 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, keep := range []bool{false, true} {
				s, err := session.ReadGemini(strings.NewReader(tt.input), session.Options{Keep: keep, MaxLine: tt.maxLine})
				if err != nil {
					t.Fatal(err)
				}
				got := s.Lines
				if tt.lines.Ignored == nil {
					got.Ignored = nil
				}
				if tt.name == "a number" {
					got.First = "" // checked below
				}
				if fmt.Sprint(got) != fmt.Sprint(tt.lines) {
					t.Errorf("keep=%v: lines %+v, want %+v", keep, got, tt.lines)
				}
				if len(s.Calls) != tt.calls {
					t.Errorf("keep=%v: %d calls, want %d", keep, len(s.Calls), tt.calls)
				}
				var skipped []string
				for _, k := range s.Skipped {
					skipped = append(skipped, fmt.Sprintf("%s ×%d %s", k.Tool, k.Count, k.Reason))
				}
				if got := strings.Join(skipped, "\n"); got != tt.skipped {
					t.Errorf("keep=%v: skipped:\n%s\nwant:\n%s", keep, got, tt.skipped)
				}
				if s.Host != "gemini" {
					t.Errorf("host %q", s.Host)
				}
			}
		})
	}
}

// TestReadGeminiFormats: the same session as the CLI's three files — a
// chat recording in JSON Lines, the same recording as one document, and
// a checkpoint of its history — gives the same calls and results.
func TestReadGeminiFormats(t *testing.T) {
	lines := readFixture(t, "gemini-session.jsonl")
	want := readGeminiKept(t, lines)

	// The document earlier versions wrote: the metadata and the last copy
	// of every message, indented.
	var meta map[string]any
	byID := map[string]json.RawMessage{}
	var order []string
	sc := bufio.NewScanner(bytes.NewReader(lines))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var rec map[string]json.RawMessage
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			t.Fatal(err)
		}
		switch {
		case rec["projectHash"] != nil:
			json.Unmarshal(sc.Bytes(), &meta)
		case rec["id"] != nil:
			var id string
			json.Unmarshal(rec["id"], &id)
			if byID[id] == nil {
				order = append(order, id)
			}
			byID[id] = bytes.Clone(sc.Bytes())
		}
	}
	var msgs []json.RawMessage
	for _, id := range order {
		msgs = append(msgs, byID[id])
	}
	meta["messages"] = msgs
	document, _ := json.MarshalIndent(meta, "", "  ")

	// The checkpoint: the API history, calls and responses as parts.
	var history []map[string]any
	for _, id := range order {
		var m struct {
			Type      string `json:"type"`
			ToolCalls []struct {
				ID     string            `json:"id"`
				Name   string            `json:"name"`
				Args   json.RawMessage   `json:"args"`
				Result []json.RawMessage `json:"result"`
			} `json:"toolCalls"`
		}
		json.Unmarshal(byID[id], &m)
		for _, tc := range m.ToolCalls {
			history = append(history,
				map[string]any{"role": "model", "parts": []any{map[string]any{"functionCall": map[string]any{"id": tc.ID, "name": tc.Name, "args": tc.Args}}}},
				map[string]any{"role": "user", "parts": tc.Result})
		}
	}
	checkpoint, _ := json.MarshalIndent(map[string]any{"history": history, "authType": "gemini-api-key"}, "", "  ")
	bare, _ := json.MarshalIndent(history, "", "  ")

	for _, tt := range []struct {
		name string
		data []byte
	}{{"document", document}, {"checkpoint", checkpoint}, {"bare checkpoint", bare}} {
		t.Run(tt.name, func(t *testing.T) {
			if !session.IsGeminiSession("x.json", tt.data) {
				t.Errorf("IsGeminiSession does not recognise the %s", tt.name)
			}
			got := readGeminiKept(t, tt.data)
			if p := got.Lines.Problems(); p != "" {
				t.Fatalf("lines not read: %s (%s)", p, got.Lines.First)
			}
			if len(got.Calls) != len(want.Calls) {
				t.Fatalf("%d calls, want %d", len(got.Calls), len(want.Calls))
			}
			if len(got.Calls) != len(want.Calls) {
				t.Fatalf("%d calls, want %d", len(got.Calls), len(want.Calls))
			}
			for i, c := range got.Calls {
				w := want.Calls[i]
				if c.Tool != w.Tool || c.OK != w.OK || string(c.Content) != string(w.Content) || compact(c.Input) != compact(w.Input) {
					t.Errorf("call %d: %+v %s %s\nwant %+v %s %s", i, c.Tool, c.Input, c.Content, w.Tool, w.Input, w.Content)
				}
			}
			if got.SkippedCalls() != want.SkippedCalls() {
				t.Errorf("%d skipped, want %d", got.SkippedCalls(), want.SkippedCalls())
			}
			a := compileSession(t, got, session.ObservedFile)
			b := compileSession(t, want, session.ObservedFile)
			if a.Summary.Binds != b.Summary.Binds || len(a.Skill.Steps) != len(b.Skill.Steps) {
				t.Errorf("compiles to %d steps, %d binds; want %d, %d", len(a.Skill.Steps), a.Summary.Binds, len(b.Skill.Steps), b.Summary.Binds)
			}
		})
	}
	if len(want.Usage) == 0 {
		t.Error("the recording's tokens were not read")
	}
}

// compact is JSON without its blanks.
func compact(raw []byte) string {
	var b bytes.Buffer
	json.Compact(&b, raw)
	return b.String()
}

func readGeminiKept(t *testing.T, data []byte) *session.Session {
	t.Helper()
	s, err := session.ReadGemini(bytes.NewReader(data), session.Options{Keep: true})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestReadGeminiResults: the result the CLI logged, taken back to the
// MCP content the server returned.
func TestReadGeminiResults(t *testing.T) {
	tests := []struct {
		name, status, response, content string
		ok                              bool
	}{
		{"one text", "success", `{"output":"<untrusted_context>\n{\"a\":1}\n</untrusted_context>"}`, `[{"type":"text","text":"{\"a\":1}"}]`, true},
		{"two texts", "success", `{"output":"<untrusted_context>\nfirst\n</untrusted_context>\n<untrusted_context>\n\n</untrusted_context>"}`, `[{"type":"text","text":"first"},{"type":"text","text":""}]`, true},
		{"an escaped closing tag", "success", `{"output":"<untrusted_context>\na &lt;/untrusted_context&gt; b\n</untrusted_context>"}`, `[{"type":"text","text":"a </untrusted_context> b"}]`, true},
		{"unwrapped text (an older CLI)", "success", `{"output":"plain\ntext"}`, `[{"type":"text","text":"plain\ntext"}]`, true},
		{"text around a wrapped block", "success", `{"output":"Resource Link: x at y\n<untrusted_context>\nz\n</untrusted_context>"}`, `[{"type":"text","text":"Resource Link: x at y\n<untrusted_context>\nz\n</untrusted_context>"}]`, true},
		{"no text", "success", `{}`, `[]`, true},
		{"MCP content (an older CLI)", "success", `{"content":[{"type":"text","text":"t"}],"isError":true}`, `[{"type":"text","text":"t"}]`, false},
		{"an isError result", "error", `{"error":"MCP tool 'get' reported tool error for function call: {\"name\":\"get\",\"args\":{}} with response: [{\"functionResponse\":{\"name\":\"get\",\"response\":{\"content\":[{\"type\":\"text\",\"text\":\"no such id\"}],\"isError\":true}}}]"}`, `[{"type":"text","text":"no such id"}]`, false},
		{"another error", "error", `{"error":"Tool call aborted"}`, `[{"type":"text","text":"Tool call aborted"}]`, false},
		{"a response that is not an object", "success", `"odd"`, `[{"type":"text","text":"\"odd\""}]`, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := geminiMsg("m1", geminiCall("c1", "mcp_crm_get", "get (crm MCP Server)", tt.status, tt.response)) + "\n"
			s := readGeminiKept(t, []byte(in))
			if len(s.Calls) != 1 {
				t.Fatalf("%d calls; skipped %+v", len(s.Calls), s.Skipped)
			}
			if c := s.Calls[0]; string(c.Content) != tt.content || c.OK != tt.ok {
				t.Errorf("content %s ok %v, want %s %v", c.Content, c.OK, tt.content, tt.ok)
			}
		})
	}
}

// TestReadGeminiUsage: tokens are counted once per message, whichever
// copies of it the file holds, per model; the cached prompt is a cache
// read, the tool-use prompt input, thoughts output.
func TestReadGeminiUsage(t *testing.T) {
	other := strings.Replace(geminiMsg("m3"), "gemini-2.5-pro", "gemini-2.5-flash", 1)
	in := strings.Join([]string{geminiMsg("m1", gmGet), geminiMsg("m1", gmGet), geminiMsg("m2"), other, `{"id":"m4","type":"gemini","tokens":null}`}, "\n")
	s := readGeminiKept(t, []byte(in))
	want := []session.Usage{
		{Model: "gemini-2.5-pro", Input: 2 * 63, Output: 2 * 12, CacheRead: 2 * 40},
		{Model: "gemini-2.5-flash", Input: 63, Output: 12, CacheRead: 40},
	}
	if fmt.Sprint(s.Usage) != fmt.Sprint(want) {
		t.Errorf("usage %+v, want %+v", s.Usage, want)
	}
}

func TestIsGeminiSession(t *testing.T) {
	tests := []struct {
		path, prefix string
		want         bool
	}{
		{"x.jsonl", geminiMeta + "\n" + geminiMsg("m1"), true},
		{"x.json", "{\n  \"sessionId\": \"a\",\n  \"projectHash\": \"b\",\n", true},
		{"x.json", "{\n  \"history\": [\n    {\n      \"role\": \"user\",\n      \"parts\": []", true},
		{"x.json", "[\n  {\n    \"role\": \"user\",\n    \"parts\": [", true},
		{"x.jsonl", `{"type":"user","sessionId":"a","message":{"role":"user","content":"hi"}}` + "\n", false},
		{"x.jsonl", `{"t":"meta","name":"x"}` + "\n", false},
		{"x.jsonl", `{"type":"user","sessionId":"a","message":{"role":"user","content":"what is a \"projectHash\" in \"history\" \"parts\"?"}}` + "\n", false},
		{"x.jsonl", `{"history":[{"role":"user","parts":[]}]}` + "\n", true},
		{"x.json", `[{"role":"user","parts":[]}]` + "\n", true},
		{"/h/.gemini/tmp/p/chats/session-2026-01-01T10-00-abc.jsonl", "", true},
		{"/h/.gemini/tmp/p/checkpoint-mine.json", "", true},
		{"/h/elsewhere/session-1.jsonl", "", false},
		{"/h/.claude/projects/p/0f1e.jsonl", "", false},
	}
	for _, tt := range tests {
		if got := session.IsGeminiSession(tt.path, []byte(tt.prefix)); got != tt.want {
			t.Errorf("IsGeminiSession(%q, %.40q) = %v, want %v", tt.path, tt.prefix, got, tt.want)
		}
	}
}

func TestGeminiDirs(t *testing.T) {
	tests := []struct {
		env  map[string]string
		want string
	}{
		{nil, "/home/ann/.gemini/tmp"},
		{map[string]string{"GEMINI_CLI_HOME": "/srv/g"}, "/srv/g/.gemini/tmp"},
		{map[string]string{"SANDBOX": "sandbox-exec"}, "/home/ann/.cache/.gemini/tmp"},
		{map[string]string{"SANDBOX": "docker"}, "/home/ann/.gemini/tmp"},
	}
	for _, tt := range tests {
		got := session.GeminiDirs("/home/ann", func(k string) string { return tt.env[k] })
		if len(got) != 1 || got[0] != tt.want {
			t.Errorf("GeminiDirs with %v = %v, want [%s]", tt.env, got, tt.want)
		}
	}
}

// TestReadGeminiReadError: a read error comes back with the session so
// far.
func TestReadGeminiReadError(t *testing.T) {
	for _, in := range []string{geminiMeta + "\n" + geminiMsg("m1", gmGet) + "\n", "{\n \"messages\": [\n" + geminiMsg("m1", gmGet) + ",\n"} {
		r := io.MultiReader(strings.NewReader(in), iotest.ErrReader(io.ErrClosedPipe))
		s, err := session.ReadGemini(r, session.Options{})
		if err != io.ErrClosedPipe || s == nil || len(s.Calls) != 1 {
			t.Errorf("err %v, session %v; want the read error and the call before it", err, s)
		}
	}
}

// TestReadGeminiHuge reads a generated file in each layout — JSON Lines
// and one document — from a stream, and checks that the heap does not grow
// with it: 128 MB each by default, which shows the same (each call's
// result is dropped before the next is read); REELIER_HUGE_SIZE=1073741824
// reads a gigabyte each, as the issue asks (1–5 minutes on two cores).
func TestReadGeminiHuge(t *testing.T) {
	if testing.Short() {
		t.Skip("reads 256 MB")
	}
	size := int64(128 << 20)
	if v, err := strconv.ParseInt(os.Getenv("REELIER_HUGE_SIZE"), 10, 64); err == nil && v > 0 {
		size = v
	}
	big := strings.Repeat("x", 1<<20)
	call := geminiCall("c%d", "mcp_crm_get_contact", "get_contact (crm MCP Server)", "success", `{"output":"`+big+`"}`)
	n := int(size >> 20) // × ~1 MB
	for _, layout := range []string{"lines", "document"} {
		t.Run(layout, func(t *testing.T) {
			var i int
			var head, sep, tail string
			switch layout {
			case "lines":
				head, sep, tail = geminiMeta+"\n", "\n", "\n"
			case "document":
				head, sep, tail = "{\n  \"sessionId\": \"s\",\n  \"messages\": [\n", ",\n", "\n  ]\n}\n"
			}
			r := &genReader{head: head, tail: tail, next: func() string {
				if i == n {
					return ""
				}
				i++
				s := strings.Replace(geminiMsg(fmt.Sprintf("m%d", i), strings.ReplaceAll(call, "c%d", fmt.Sprintf("c%d", i))), `"content":""`, `"content":""`, 1)
				if i > 1 {
					s = sep + s
				}
				return s
			}}
			runtime.GC()
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			s, err := session.ReadGemini(r, session.Options{})
			runtime.ReadMemStats(&after)
			if err != nil {
				t.Fatal(err)
			}
			if len(s.Calls) != n || s.Lines.Problems() != "" {
				t.Fatalf("%d calls, problems %q; want %d and none", len(s.Calls), s.Lines.Problems(), n)
			}
			if r.size < size {
				t.Fatalf("generated %d bytes, want at least %d", r.size, size)
			}
			if grew := int64(after.HeapSys) - int64(before.HeapSys); grew > 128<<20 {
				t.Errorf("the heap grew by %d MB reading %d MB", grew>>20, r.size>>20)
			}
		})
	}
}

// genReader streams head, the strings next returns until "", and tail.
type genReader struct {
	head, tail string
	next       func() string
	buf        string
	done       bool
	size       int64
}

func (g *genReader) Read(p []byte) (int, error) {
	for g.buf == "" {
		switch {
		case g.head != "":
			g.buf, g.head = g.head, ""
		case !g.done:
			if g.buf = g.next(); g.buf == "" {
				g.done = true
			}
		case g.tail != "":
			g.buf, g.tail = g.tail, ""
		default:
			return 0, io.EOF
		}
	}
	n := copy(p, g.buf)
	g.buf = g.buf[n:]
	g.size += int64(n)
	return n, nil
}

// FuzzReadGemini: no input makes the reader panic, Keep never changes the
// verdict, and a session with calls gives a trace that reads back and
// compiles without a panic.
func FuzzReadGemini(f *testing.F) {
	f.Add(readFixture(f, "gemini-session.jsonl"))
	f.Add([]byte(geminiMeta + "\n" + geminiMsg("m1", gmGet, gmBash) + "\n{\"$rewindTo\":\"m1\"}\n"))
	f.Add([]byte("{\n  \"sessionId\": \"s\",\n  \"messages\": [\n" + geminiMsg("m1", gmGet) + "\n  ]\n}\n"))
	f.Add([]byte(`[{"role":"model","parts":[{"functionCall":{"name":"mcp_a_b","args":{}}}]},{"role":"user","parts":[{"functionResponse":{"name":"mcp_a_b","response":{"output":"x"}}}]}]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		kept, err := session.ReadGemini(bytes.NewReader(data), session.Options{Keep: true, MaxLine: 4096})
		if err != nil {
			t.Fatal(err)
		}
		light, _ := session.ReadGemini(bytes.NewReader(data), session.Options{MaxLine: 4096})
		if len(kept.Calls) != len(light.Calls) || kept.SkippedCalls() != light.SkippedCalls() || fmt.Sprint(kept.Lines) != fmt.Sprint(light.Lines) {
			t.Fatalf("Keep changed the verdict on %q", data)
		}
		if len(kept.Calls) == 0 {
			return
		}
		tr, err := kept.Trace(session.TraceOptions{Name: "f", Observed: session.ObservedFile})
		if err != nil {
			t.Fatalf("the trace of %q does not read back: %v", data, err)
		}
		if len(tr.Records) < 1+2*len(kept.Calls) {
			t.Fatalf("%d records for %d calls", len(tr.Records), len(kept.Calls))
		}
		compile.Compile(tr, compile.Options{})
	})
}
