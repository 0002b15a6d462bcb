package session_test

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"github.com/reelier/reelier/tool"
	"github.com/reelier/reelier/tool/jsondata"

	"github.com/reelier/reelier/compile"
	"github.com/reelier/reelier/lang/format"
	"github.com/reelier/reelier/record/session"
	"github.com/reelier/reelier/testkit/testutil"
	"github.com/reelier/reelier/trace"
)

var fixedNow = func() time.Time { return time.Date(2026, 7, 20, 8, 0, 0, 0, time.UTC) }

func TestClassify(t *testing.T) {
	tests := []struct {
		name, replay, server, reason string
	}{
		{"http.get", "http.get", "", ""},
		{"http.post", "http.post", "", ""},
		{"http.put", "", "", session.ReasonNotReplayable},
		{"mcp__crm__get_contact", "get_contact", "crm", ""},
		{"mcp__claude_ai_Gmail__search", "search", "claude_ai_Gmail", ""},
		{"mcp__srv__do__thing", "do__thing", "srv", ""},
		{"mcp__srv__reelier_note", "reelier_note", "srv", ""},
		{"mcp__srv__reelier_start_recording", "", "srv", session.ReasonControl},
		{"mcp__srv__reelier_stop_recording", "", "srv", session.ReasonControl},
		{"mcp__srv", "", "", session.ReasonMalformedMCP},
		{"mcp____tool", "", "", session.ReasonMalformedMCP},
		{"mcp__srv__", "", "", session.ReasonMalformedMCP},
		{"MCP__srv__tool", "", "", session.ReasonNotReplayable},
		{"Bash", "", "", session.ReasonNotReplayable},
		{"WebFetch", "", "", session.ReasonNotReplayable},
		{"get_contact", "", "", session.ReasonNotReplayable},
		{"", "", "", session.ReasonNotReplayable},
	}
	for _, tt := range tests {
		got := session.Classify(tt.name)
		want := session.Tool{Name: tt.name, Replay: tt.replay, Server: tt.server, Reason: tt.reason}
		if got != want {
			t.Errorf("Classify(%q) = %+v, want %+v", tt.name, got, want)
		}
	}
}

// use and result build transcript lines in the on-disk shape.
func use(id, name, input string) string {
	return fmt.Sprintf(`{"type":"assistant","message":{"role":"assistant","content":[{"type":"tool_use","id":%q,"name":%q,"input":%s}]},"timestamp":"2026-07-19T10:00:00.000Z"}`, id, name, input)
}

func result(id, content string, isError bool) string {
	return fmt.Sprintf(`{"type":"user","message":{"role":"user","content":[{"tool_use_id":%q,"type":"tool_result","content":%s,"is_error":%t}]},"timestamp":"2026-07-19T10:00:00.250Z"}`, id, content, isError)
}

// TestReadBadInput: nothing a transcript holds is fatal; every line that
// is not read and every call that is left out is counted with its reason.
func TestReadBadInput(t *testing.T) {
	get := use("t1", "mcp__crm__get_contact", `{"id":"c_1"}`)
	ok := result("t1", `"{\"id\":\"c_1\"}"`, false)
	tests := []struct {
		name    string
		input   string
		maxLine int
		calls   int
		lines   session.LineCounts
		skipped string // "tool ×n reason" lines, sorted as Read sorts them
	}{
		{name: "empty", input: "", lines: session.LineCounts{}},
		{name: "blank lines", input: "\n \n\r\n", lines: session.LineCounts{}},
		{name: "a pair", input: get + "\n" + ok + "\n", calls: 1, lines: session.LineCounts{Lines: 2}},
		{name: "CRLF", input: get + "\r\n" + ok + "\r\n", calls: 1, lines: session.LineCounts{Lines: 2}},
		{name: "no newline at the end", input: get + "\n" + ok, calls: 1, lines: session.LineCounts{Lines: 2}},
		{name: "truncated last line", input: get + "\n" + ok[:len(ok)-20], lines: session.LineCounts{Lines: 2, Truncated: 1},
			skipped: "mcp__crm__get_contact ×1 " + session.ReasonNoResult},
		{name: "invalid JSON lines", input: "not json\n" + get + "\n{\"type\":\n[1,2]\n\"str\"\n" + ok + "\n", calls: 1,
			lines: session.LineCounts{Lines: 6, Invalid: 4}},
		{name: "unknown line types", input: `{"type":"attachment"}` + "\n" + `{"type":"frobnicate","message":{"content":[{"type":"tool_use","id":"x","name":"http.get","input":{}}]}}` + "\n" + `{"no":"type"}` + "\n" + get + "\n" + ok + "\n",
			calls: 1, lines: session.LineCounts{Lines: 5, Ignored: map[string]int{"attachment": 1, "frobnicate": 1, "(no type)": 1}}},
		{name: "binary garbage", input: "\x00\x01\x02\xff\xfe\n\x89PNG\r\n\x1a\n" + get + "\n" + ok + "\n", calls: 1,
			lines: session.LineCounts{Lines: 5, Invalid: 3}},
		{name: "a call without a result", input: get + "\n", lines: session.LineCounts{Lines: 1},
			skipped: "mcp__crm__get_contact ×1 " + session.ReasonNoResult},
		{name: "a result without a call", input: ok + "\n", lines: session.LineCounts{Lines: 1}},
		{name: "the same tool_use twice", input: get + "\n" + get + "\n" + ok + "\n", calls: 1, lines: session.LineCounts{Lines: 3}},
		{name: "invalid input", input: use("t1", "http.get", `{"url":[1,,2]}`) + "\n" + result("t1", `"x"`, false) + "\n", lines: session.LineCounts{Lines: 2},
			skipped: "http.get ×1 " + session.ReasonBadInput},
		{name: "invalid result content", input: get + "\n" + result("t1", `[{"type":"text",,}]`, false) + "\n", lines: session.LineCounts{Lines: 2},
			skipped: "mcp__crm__get_contact ×1 " + session.ReasonBadResult},
		{name: "a malformed message", input: `{"type":"assistant","message":"hi"}` + "\n" + `{"type":"user","message":{"content":[1,]}}` + "\n", lines: session.LineCounts{Lines: 2, Invalid: 2}},
		{name: "a line too long", input: get + strings.Repeat(" ", 600<<10) + "\n" + ok + "\n", maxLine: 512 << 10,
			lines: session.LineCounts{Lines: 2, TooLong: 1}},
		{name: "a long line within the limit", input: use("t1", "mcp__crm__get_contact", `{"id":"`+strings.Repeat("x", 400<<10)+`"}`) + "\n" + ok + "\n", calls: 1,
			lines: session.LineCounts{Lines: 2}},
		{name: "default-deny", input: use("a", "Bash", `{}`) + "\n" + use("b", "Bash", `{}`) + "\n" + use("c", "mcp__x", `{}`) + "\n" + result("a", `"ok"`, false) + "\n",
			lines: session.LineCounts{Lines: 4}, skipped: "Bash ×2 " + session.ReasonNotReplayable + "\nmcp__x ×1 " + session.ReasonMalformedMCP},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := session.Read(strings.NewReader(tt.input), session.Options{Keep: true, MaxLine: tt.maxLine})
			if err != nil {
				t.Fatal(err)
			}
			if len(s.Calls) != tt.calls {
				t.Errorf("%d replayable calls, want %d", len(s.Calls), tt.calls)
			}
			if tt.lines.Ignored == nil {
				tt.lines.Ignored = map[string]int{}
			}
			if fmt.Sprint(s.Lines) != fmt.Sprint(tt.lines) {
				t.Errorf("lines %+v, want %+v", s.Lines, tt.lines)
			}
			var skipped []string
			for _, k := range s.Skipped {
				skipped = append(skipped, fmt.Sprintf("%s ×%d %s", k.Tool, k.Count, k.Reason))
			}
			if got := strings.Join(skipped, "\n"); got != tt.skipped {
				t.Errorf("skipped:\n%s\nwant:\n%s", got, tt.skipped)
			}
		})
	}
}

// TestReadError: a failing reader ends the read with its error and what
// was read so far.
func TestReadError(t *testing.T) {
	r := iotest.TimeoutReader(strings.NewReader(strings.Repeat(`{"type":"x"}`+"\n", 30000)))
	s, err := session.Read(r, session.Options{})
	if !errors.Is(err, iotest.ErrTimeout) || s == nil {
		t.Fatalf("got %v, %v; want the reader's error and a session", s, err)
	}
}

// TestKeepAgrees: reading without Keep (scan) gives the same verdict as
// reading with it (from-session), for every fixture.
func TestKeepAgrees(t *testing.T) {
	for _, name := range []string{"claude-file.jsonl", "claude-stream.jsonl", "mixed.jsonl", "none.jsonl"} {
		data := readFixture(t, name)
		kept, _ := session.Read(bytes.NewReader(data), session.Options{Keep: true})
		light, _ := session.Read(bytes.NewReader(data), session.Options{})
		if fmt.Sprint(kept.Skipped, kept.Lines, len(kept.Calls), kept.Servers()) != fmt.Sprint(light.Skipped, light.Lines, len(light.Calls), light.Servers()) {
			t.Errorf("%s: Keep and no Keep disagree", name)
		}
		if light.Calls != nil && light.Calls[0].Input != nil {
			t.Errorf("%s: without Keep, inputs are kept", name)
		}
	}
}

// TestFixtures pins, per fixture transcript, the skip list, the line
// counts, the trace and the compiled skill.
func TestFixtures(t *testing.T) {
	for _, name := range []string{"claude-file.jsonl", "claude-stream.jsonl", "mixed.jsonl", "none.jsonl"} {
		t.Run(name, func(t *testing.T) {
			s := readKept(t, readFixture(t, name))
			var b bytes.Buffer
			fmt.Fprintf(&b, "id %q cwd %q started %s init %v\n", s.ID, s.CWD, s.StartedAt.Format(time.RFC3339Nano), s.Init)
			s.WriteSkipped(&b)
			s.WriteLines(&b)
			observed := session.ObservedFile
			if s.Init {
				observed = session.ObservedStream
			}
			b.WriteString("\n-- trace --\n")
			opts := session.TraceOptions{Name: strings.TrimSuffix(name, ".jsonl"), Observed: observed, Now: fixedNow}
			err := s.WriteTrace(&b, opts)
			switch {
			case len(s.Calls) == 0:
				if !errors.Is(err, session.ErrNothingReplayable) {
					t.Fatalf("WriteTrace: %v, want ErrNothingReplayable", err)
				}
				fmt.Fprintf(&b, "%v\n", err)
			case err != nil:
				t.Fatal(err)
			default:
				out, err := s.Compile(opts, compile.Options{Source: name, Now: fixedNow})
				if err != nil {
					t.Fatal(err)
				}
				b.WriteString("\n-- skill --\n")
				b.Write(format.Source(out.Skill))
			}
			testutil.Golden(t).Assert(t, strings.TrimSuffix(name, ".jsonl"), b.Bytes())
		})
	}
}

// TestTraceShape: the trace a session gives reads back through the trace
// package, with the observation in meta, the agent's ids on the calls,
// and secrets blanked.
func TestTraceShape(t *testing.T) {
	input := use("t1", "http.get", `{"url":"https://api.example.com/me","headers":{"Authorization":"Bearer abcdefghijklmnopqrstuvwxyz012345"}}`) + "\n" +
		result("t1", `[{"type":"text","text":"{\"me\":\"ann\"}"},{"type":"image","source":{"type":"base64","data":"AAAA"}}]`, false) + "\n"
	s := readKept(t, []byte(input))
	tr, err := s.Trace(session.TraceOptions{Name: "me", Observed: session.ObservedStream})
	if err != nil {
		t.Fatal(err)
	}
	if tr.Meta.Observed != "stream" || tr.Meta.Name != "me" || len(tr.Meta.Wrapped) != 0 || tr.Meta.StartedAt != "2026-07-19T10:00:00.000Z" {
		t.Errorf("meta %+v", tr.Meta)
	}
	call := tr.Records[1].(*trace.Call)
	res := tr.Records[2].(*trace.Result)
	if call.ToolUseID != "t1" || call.Tool != "http.get" || strings.Contains(string(call.Args), "abcdefghij") {
		t.Errorf("call %+v", call)
	}
	obs, err := tool.ObserveToolResult(res.Body)
	if err != nil || obs.Status != 200 || obs.Body != "{\"me\":\"ann\"}\n[image unknown, 4 bytes of base64]" || res.MS != 250 || !res.OK {
		t.Errorf("result %+v: observed %+v (%v)", res, obs, err)
	}
	if v, err := obs.JSON(); err != nil || jsondata.String(v) != `{"me":"ann"}` {
		t.Errorf("json paths read %v (%v); want the text block only", v, err)
	}
	if _, err := readKept(t, nil).Trace(session.TraceOptions{}); !errors.Is(err, session.ErrNothingReplayable) {
		t.Errorf("an empty session: %v", err)
	}
	light, _ := session.Read(strings.NewReader(input), session.Options{})
	if _, err := light.Trace(session.TraceOptions{}); err == nil {
		t.Error("a session read without Keep gave a trace")
	}
}

// TestProvenance: the compiled skill's preamble says how its calls were
// observed, and still parses.
func TestProvenance(t *testing.T) {
	s := readKept(t, readFixture(t, "mixed.jsonl"))
	for _, observed := range []string{session.ObservedFile, session.ObservedStream} {
		out, err := s.Compile(session.TraceOptions{Name: "p", Observed: observed}, compile.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(out.Skill.Preamble.Text, session.Provenance(observed)+"\n\n## Steps") {
			t.Errorf("%s: the preamble does not end with the provenance:\n%s", observed, out.Skill.Preamble.Text)
		}
	}
	if session.Provenance(trace.ObservedProxy) != "" {
		t.Error("a proxy recording gets a caveat")
	}
}

func TestDefaultName(t *testing.T) {
	tests := []struct{ id, path, want string }{
		{"2f8e5c1a-0000-4000-8000-000000000001", "x/2f8e5c1a.jsonl", "session-2f8e5c1a"},
		{"abc", "", "session-abc"},
		{"", "dir/9a1b2c3d-ffff.jsonl", "session-9a1b2c3d"},
		{"", "dir/short.jsonl", "session-short"},
		{"", "", "session"},
		{"", "tmp/p/checkpoint-live.json", "session-live"},
		{"", "tmp/p/checkpoint-.json", "session-checkpoi"},
	}
	for _, tt := range tests {
		s := &session.Session{ID: tt.id}
		if got := s.DefaultName(tt.path); got != tt.want {
			t.Errorf("DefaultName(%q) with id %q = %q, want %q", tt.path, tt.id, got, tt.want)
		}
	}
}
