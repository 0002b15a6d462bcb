package session_test

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"
	"testing"

	"github.com/reelier/reelier/compile"
	"github.com/reelier/reelier/record/session"
)

// Codex rollout lines in the shape Codex 0.171.0 writes them (see the
// live fixture), and an earlier version's mcp_tool_call_end.
func cxMeta(id string) string {
	return fmt.Sprintf(`{"timestamp":"2026-07-19T10:00:00.000Z","type":"session_meta","payload":{"id":%q,"cwd":"/work/app","cli_version":"0.171.0","base_instructions":{"text":"…"}}}`, id)
}

func cxTurn(model string) string {
	return fmt.Sprintf(`{"timestamp":"2026-07-19T10:00:00.100Z","type":"turn_context","payload":{"cwd":"/work/app","model":%q}}`, model)
}

func cxCall(id, ns, name, args string) string {
	nsPart := ""
	if ns != "" {
		nsPart = fmt.Sprintf(`"namespace":%q,`, ns)
	}
	return fmt.Sprintf(`{"timestamp":"2026-07-19T10:00:01.000Z","type":"response_item","payload":{"type":"function_call","name":%q,%s"arguments":%q,"call_id":%q}}`, name, nsPart, args, id)
}

func cxOutput(id, text string) string {
	return fmt.Sprintf(`{"timestamp":"2026-07-19T10:00:01.500Z","type":"response_item","payload":{"type":"function_call_output","call_id":%q,"output":%q}}`, id, text)
}

// cxItem is an item_completed McpToolCall event; tail is the members after
// the arguments: a result, an error, the status.
func cxItem(id, server, tool, args, tail string) string {
	return fmt.Sprintf(`{"timestamp":"2026-07-19T10:00:01.250Z","type":"event_msg","payload":{"type":"item_completed","item":{"type":"McpToolCall","id":%q,"server":%q,"tool":%q,"arguments":%s,%s},"started_at_ms":1000,"completed_at_ms":1040}}`, id, server, tool, args, tail)
}

func cxOK(text string) string {
	return fmt.Sprintf(`"status":"completed","result":{"content":[{"type":"text","text":%q}]}`, text)
}

func cxEnd(id, server, tool, args, result string) string {
	return fmt.Sprintf(`{"timestamp":"2026-07-19T10:00:01.250Z","type":"event_msg","payload":{"type":"mcp_tool_call_end","call_id":%q,"invocation":{"server":%q,"tool":%q,"arguments":%s},"duration":{"secs":0,"nanos":25000000},"result":%s}}`, id, server, tool, args, result)
}

func cxTokens(input, cached, output int) string {
	return fmt.Sprintf(`{"timestamp":"2026-07-19T10:00:02.000Z","type":"event_msg","payload":{"type":"token_count","info":{"total_token_usage":{"input_tokens":%d,"cached_input_tokens":%d,"output_tokens":%d,"reasoning_output_tokens":0,"total_tokens":%d}},"rate_limits":null}}`, input, cached, output, input+output)
}

func cxLines(ls ...string) string { return strings.Join(ls, "\n") + "\n" }

// TestReadCodex: what each kind of rollout content gives — calls kept,
// calls skipped with their reasons, lines not read, tokens — for the
// current format, an earlier one, a mix of both and broken files.
func TestReadCodex(t *testing.T) {
	get := cxCall("c1", "mcp__crm", "get_contact", `{"id":"c_1"}`)
	getDone := cxItem("c1", "crm", "get_contact", `{"id":"c_1"}`, cxOK(`{"id":"c_1"}`))
	tests := []struct {
		name    string
		input   string
		maxLine int
		calls   string // "server/tool ok ms" per kept call
		skipped string // "tool ×n reason" lines
		lines   session.LineCounts
		usage   string
	}{
		{name: "empty", input: ""},
		{name: "a call and its result", input: cxLines(cxMeta("s1"), get, getDone, cxOutput("c1", "Wall time: 0.04 seconds\nOutput:\n{}")),
			calls: "crm/get_contact true 40", lines: session.LineCounts{Lines: 4}},
		{name: "CRLF", input: strings.ReplaceAll(cxLines(get, getDone), "\n", "\r\n"), calls: "crm/get_contact true 40", lines: session.LineCounts{Lines: 2}},
		{name: "an error result is a result", input: cxLines(get, cxItem("c1", "crm", "get_contact", `{}`, `"status":"failed","result":{"content":[{"type":"text","text":"no such contact"}],"isError":true}`)),
			calls: "crm/get_contact false 40", lines: session.LineCounts{Lines: 2}},
		{name: "refused by Codex", input: cxLines(get, cxItem("c1", "crm", "get_contact", `{}`, `"status":"failed","error":{"message":"MCP tool call requires approval"}`)),
			skipped: "mcp__crm__get_contact ×1 " + session.ReasonCodexHostError, lines: session.LineCounts{Lines: 2}},
		{name: "unknown tool: only an output", input: cxLines(cxCall("c2", "mcp__crm", "nope", `{}`), cxOutput("c2", "unsupported call: mcp__crmnope")),
			skipped: "mcp__crm__nope ×1 " + session.ReasonCodexNoMCPResult, lines: session.LineCounts{Lines: 2}},
		{name: "no result at all", input: cxLines(get),
			skipped: "mcp__crm__get_contact ×1 " + session.ReasonNoResult, lines: session.LineCounts{Lines: 1}},
		{name: "no MCP calls", input: cxLines(cxMeta("s1"), cxCall("c3", "", "exec_command", `{"cmd":"ls"}`), cxOutput("c3", "a\nb"),
			`{"timestamp":"2026-07-19T10:00:03.000Z","type":"response_item","payload":{"type":"custom_tool_call","name":"apply_patch","input":"*** Begin Patch","call_id":"c4"}}`,
			`{"timestamp":"2026-07-19T10:00:03.000Z","type":"response_item","payload":{"type":"web_search_call","status":"completed"}}`),
			skipped: "apply_patch ×1 " + session.ReasonNotReplayable + "\nexec_command ×1 " + session.ReasonNotReplayable + "\nweb_search ×1 " + session.ReasonServerTool,
			lines:   session.LineCounts{Lines: 5}},
		{name: "a shell call with no output", input: cxLines(cxCall("c3", "", "exec_command", `{"cmd":"ls"}`)),
			skipped: "exec_command ×1 " + session.ReasonNotReplayable, lines: session.LineCounts{Lines: 1}},
		{name: "arguments that are not JSON", input: cxLines(cxCall("c1", "mcp__crm", "get_contact", `{"id":`), getDone),
			skipped: "mcp__crm__get_contact ×1 " + session.ReasonBadInput, lines: session.LineCounts{Lines: 2}},
		{name: "recording control and note tools", input: cxLines(
			cxCall("r1", "mcp__crm", "reelier_start_recording", `{"name":"x"}`), cxItem("r1", "crm", "reelier_start_recording", `{}`, cxOK("ok")),
			cxCall("n1", "mcp__crm", "reelier_note", `{"text":"look up"}`), cxItem("n1", "crm", "reelier_note", `{}`, cxOK("noted")),
			get, getDone),
			calls: "crm/get_contact true 40", skipped: "mcp__crm__reelier_start_recording ×1 " + session.ReasonControl, lines: session.LineCounts{Lines: 6}},
		{name: "an earlier version: mcp_tool_call_end", input: cxLines(
			cxCall("e1", "", "mcp__crm__get_contact", `{"id":"c_1"}`),
			cxEnd("e1", "crm", "get_contact", `{"id":"c_1"}`, `{"Ok":{"content":[{"type":"text","text":"{}"}],"isError":false}}`),
			cxEnd("e2", "crm", "delete_contact", `{"id":"c_1"}`, `{"Err":"tool call failed"}`)),
			calls: "crm/get_contact true 25", skipped: "mcp__crm__delete_contact ×1 " + session.ReasonCodexHostError, lines: session.LineCounts{Lines: 3}},
		{name: "an earlier version without MCP events", input: cxLines(cxCall("e1", "", "mcp__crm__get_contact", `{}`), cxOutput("e1", `[{"type":"text","text":"{}"}]`)),
			skipped: "mcp__crm__get_contact ×1 " + session.ReasonCodexNoMCPResult, lines: session.LineCounts{Lines: 2}},
		{name: "the first rollout format: bare lines", input: cxLines(
			`{"id":"5973b6c0-94b8-487b-a530-2aeb6098ae0e","timestamp":"2025-08-01T10:00:00.000Z","instructions":null,"git":{"branch":"main"}}`,
			`{"record_type":"state"}`,
			`{"type":"message","role":"user","content":[{"type":"input_text","text":"hi"}]}`,
			`{"type":"function_call","name":"mcp__crm__get_contact","arguments":"{}","call_id":"b1"}`,
			`{"type":"function_call_output","call_id":"b1","output":"{\"id\":\"c_1\"}"}`,
			`{"type":"function_call","name":"shell","arguments":"{\"command\":[\"ls\"]}","call_id":"b2"}`,
			`{"type":"function_call_output","call_id":"b2","output":"a.txt"}`,
			`{"record_type":"state"}`),
			skipped: "mcp__crm__get_contact ×1 " + session.ReasonCodexNoMCPResult + "\nshell ×1 " + session.ReasonNotReplayable,
			lines:   session.LineCounts{Lines: 8, Ignored: map[string]int{"record_type": 2}}},
		{name: "the exec --json stream", input: cxLines(
			`{"type":"thread.started","thread_id":"t-1"}`,
			`{"type":"turn.started"}`,
			`{"type":"item.started","item":{"id":"item_1","type":"mcp_tool_call","server":"crm","tool":"get_contact","arguments":{"id":"c_1"},"result":null,"error":null,"status":"in_progress"}}`,
			`{"type":"item.completed","item":{"id":"item_1","type":"mcp_tool_call","server":"crm","tool":"get_contact","arguments":{"id":"c_1"},"result":{"content":[{"type":"text","text":"{}"}],"structured_content":{}},"error":null,"status":"completed"}}`,
			`{"type":"item.completed","item":{"id":"item_2","type":"mcp_tool_call","server":"crm","tool":"find","arguments":{},"result":{"content":[{"type":"text","text":"none"}],"structured_content":null},"error":null,"status":"failed"}}`,
			`{"type":"item.completed","item":{"id":"item_3","type":"mcp_tool_call","server":"crm","tool":"delete","arguments":{},"result":null,"error":{"message":"refused"},"status":"failed"}}`,
			`{"type":"item.completed","item":{"id":"item_4","type":"command_execution","command":"ls","status":"completed"}}`,
			`{"type":"item.completed","item":{"id":"item_5","type":"agent_message","text":"done"}}`,
			`{"type":"turn.completed","usage":{"input_tokens":100,"cached_input_tokens":40,"output_tokens":7}}`,
			`{"type":"turn.completed","usage":{"input_tokens":10,"cached_input_tokens":0,"output_tokens":3}}`),
			calls:   "crm/get_contact true 0\ncrm/find false 0",
			skipped: "command_execution ×1 " + session.ReasonNotReplayable + "\nmcp__crm__delete ×1 " + session.ReasonCodexHostError,
			lines:   session.LineCounts{Lines: 10, Ignored: map[string]int{"turn.started": 1}}, usage: "[{unknown 70 10 40 0}]"},
		{name: "mixed versions, one call logged both ways", input: cxLines(
			get, getDone, cxEnd("c1", "crm", "get_contact", `{"id":"c_1"}`, `{"Ok":{"content":[]}}`),
			cxEnd("e2", "crm", "list", `{}`, `{"Ok":{"content":[]}}`)),
			calls: "crm/get_contact true 40\ncrm/list true 25", lines: session.LineCounts{Lines: 4}},
		{name: "a call written twice", input: cxLines(get, get, getDone), calls: "crm/get_contact true 40", lines: session.LineCounts{Lines: 3}},
		{name: "an MCP end with no call line", input: cxLines(getDone), calls: "crm/get_contact true 40", lines: session.LineCounts{Lines: 1}},
		{name: "server named by the event, not the namespace", input: cxLines(
			cxCall("c1", "mcp__my_crm", "get_contact", `{}`), cxItem("c1", "my-crm", "get_contact", `{}`, cxOK("{}"))),
			calls: "my-crm/get_contact true 40", lines: session.LineCounts{Lines: 2}},
		{name: "bad lines", input: cxLines(`not json`, `{"type":"event_msg","payload":[1]}`, `{"type":"response_item","payload":{"type":`, get, getDone) + `{"timestamp":"2026-07-19T10:00:09.000Z","type":"event_msg","payl`,
			calls: "crm/get_contact true 40", lines: session.LineCounts{Lines: 6, Invalid: 3, Truncated: 1}},
		{name: "too long", input: cxLines(cxOutput("x", strings.Repeat("a", 300<<10)), get, getDone), maxLine: 1024,
			calls: "crm/get_contact true 40", lines: session.LineCounts{Lines: 3, TooLong: 1}},
		{name: "ignored types", input: cxLines(`{"type":"world_state","payload":{}}`, `{"type":"compacted","payload":{"message":"m"}}`,
			`{"type":"event_msg","payload":{"type":"task_started"}}`, `{"type":"event_msg","payload":{"type":"task_started"}}`),
			lines: session.LineCounts{Lines: 4, Ignored: map[string]int{"world_state": 1, "compacted": 1, "event_msg/task_started": 2}}},
		{name: "tokens: totals, repeats, a model change", input: cxLines(cxTurn("gpt-a"), cxTokens(100, 20, 10), cxTokens(100, 20, 10), cxTokens(250, 50, 30), cxTurn("gpt-b"), cxTokens(300, 50, 40)),
			lines: session.LineCounts{Lines: 6}, usage: "[{gpt-a 200 30 50 0} {gpt-b 50 10 0 0}]"},
		{name: "tokens before any model, then a restart", input: cxLines(cxTokens(100, 0, 10), cxTokens(40, 0, 5)),
			lines: session.LineCounts{Lines: 2}, usage: "[{unknown 140 15 0 0}]"},
		{name: "tokens that are not numbers", input: cxLines(`{"type":"event_msg","payload":{"type":"token_count","info":{"total_token_usage":{"input_tokens":"many"}}}}`, `{"type":"event_msg","payload":{"type":"token_count","info":null}}`),
			lines: session.LineCounts{Lines: 2, Invalid: 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, keep := range []bool{false, true} {
				s, err := session.ReadCodex(strings.NewReader(tt.input), session.Options{Keep: keep, MaxLine: tt.maxLine})
				if err != nil {
					t.Fatal(err)
				}
				if s.Host != "codex" {
					t.Errorf("Host %q", s.Host)
				}
				var calls []string
				for _, c := range s.Calls {
					calls = append(calls, fmt.Sprintf("%s/%s %v %d", c.Tool.Server, c.Tool.Replay, c.OK, c.MS))
				}
				if got := strings.Join(calls, "\n"); got != tt.calls {
					t.Errorf("keep %v: calls\n%s\nwant\n%s", keep, got, tt.calls)
				}
				var skipped []string
				for _, k := range s.Skipped {
					skipped = append(skipped, fmt.Sprintf("%s ×%d %s", k.Tool, k.Count, k.Reason))
				}
				if got := strings.Join(skipped, "\n"); got != tt.skipped {
					t.Errorf("keep %v: skipped\n%s\nwant\n%s", keep, got, tt.skipped)
				}
				want := tt.lines
				if want.Ignored == nil {
					want.Ignored = map[string]int{}
				}
				if fmt.Sprint(s.Lines) != fmt.Sprint(want) {
					t.Errorf("keep %v: lines %+v, want %+v", keep, s.Lines, want)
				}
				usage := ""
				if s.Usage != nil {
					usage = fmt.Sprint(s.Usage)
				}
				if usage != tt.usage {
					t.Errorf("keep %v: usage %s, want %s", keep, usage, tt.usage)
				}
			}
		})
	}
}

// TestReadCodexTrace: a Codex call's trace records the whole result Codex
// logged (structuredContent too), the call's arguments and its id.
func TestReadCodexTrace(t *testing.T) {
	input := cxLines(cxMeta("s1"), cxCall("c1", "mcp__crm", "get_contact", `{"id":"c_1"}`),
		cxItem("c1", "crm", "get_contact", `{"id":"c_1"}`, `"status":"completed","result":{"content":[{"type":"text","text":"{\"id\":\"c_1\"}"}],"structuredContent":{"id":"c_1"}}`))
	s, err := session.ReadCodex(strings.NewReader(input), session.Options{Keep: true})
	if err != nil {
		t.Fatal(err)
	}
	if s.ID != "s1" || s.CWD != "/work/app" {
		t.Errorf("id %q cwd %q", s.ID, s.CWD)
	}
	var b bytes.Buffer
	if err := s.WriteTrace(&b, session.TraceOptions{Name: "t", Observed: session.ObservedFile, Now: fixedNow}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		`"tool":"get_contact","args":{"id":"c_1"}`,
		`"toolUseId":"c1"`,
		`"body":{"content":[{"type":"text","text":"{\"id\":\"c_1\"}"}],"structuredContent":{"id":"c_1"}}`,
		`"wrapped":["crm"]`,
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("the trace misses %s:\n%s", want, b.String())
		}
	}
}

// TestReadInputSniffsCodex: from-session's input reader takes a rollout
// file for Codex's, by name or by its first line, and anything else for
// Claude Code's.
func TestReadInputSniffsCodex(t *testing.T) {
	dir := t.TempDir()
	rollout := cxLines(cxMeta("s1"), cxCall("c1", "mcp__crm", "get_contact", `{}`), cxItem("c1", "crm", "get_contact", `{}`, cxOK("{}")))
	for _, tt := range []struct{ name, content, host string }{
		{"rollout-2026-07-19T10-00-00-s1.jsonl", rollout, "codex"},
		{"renamed.jsonl", rollout, "codex"},
		{"claude.jsonl", use("t1", "mcp__crm__get", `{}`) + "\n", "claude"},
	} {
		path := dir + "/" + tt.name
		if err := os.WriteFile(path, []byte(tt.content), 0o644); err != nil {
			t.Fatal(err)
		}
		s, _, err := session.ReadInput(path, nil)
		if err != nil {
			t.Fatal(err)
		}
		if s.Host != tt.host {
			t.Errorf("%s read as %s, want %s", tt.name, s.Host, tt.host)
		}
	}
	s, _, err := session.ReadInput("-", strings.NewReader(rollout))
	if err != nil || s.Host != "codex" || len(s.Calls) != 1 {
		t.Errorf("stdin: %v, host %q, %d calls", err, s.Host, len(s.Calls))
	}
}

func TestCodexDirs(t *testing.T) {
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	got := session.CodexDirs("/home/ann", env(nil))
	if fmt.Sprint(got) != "[/home/ann/.codex/sessions /home/ann/.codex/archived_sessions]" {
		t.Errorf("default: %v", got)
	}
	got = session.CodexDirs("/home/ann", env(map[string]string{"CODEX_HOME": "/srv/codex"}))
	if fmt.Sprint(got) != "[/srv/codex/sessions /srv/codex/archived_sessions]" {
		t.Errorf("CODEX_HOME: %v", got)
	}
	if got := session.CodexDirs("", env(nil)); got != nil {
		t.Errorf("no home: %v", got)
	}
}

func TestIsCodexSession(t *testing.T) {
	for _, tt := range []struct {
		path, prefix string
		want         bool
	}{
		{"/x/rollout-2026-07-19T10-00-00-abc.jsonl", "", true},
		{"/x/rollout-2026-07-19T10-00-00-abc.jsonl", cxMeta("s1"), true},
		{"/x/rollout-2025-08-01T10-00-00-abc.jsonl", `{"id":"x","timestamp":"2025-08-01T10:00:00Z","instructions":null}`, true},
		{"/x/rollout-2025-08-01T10-00-00-abc.jsonl", `{"record_type":"state"}`, true},
		{"/x/rollout-1.jsonl", `{"type":"user","message":{}}`, false}, // Claude Code's, whatever its name
		{"-", `{"type":"thread.started","thread_id":"t"}`, true},
		{"/x/s.jsonl", cxMeta("s1")[:70], true}, // the type comes before the payload
		{"/x/s.jsonl", "\n" + cxMeta("s1"), true},
		{"/x/s.jsonl", use("t1", "mcp__a__b", `{}`), false},
		{"/x/s.jsonl", `{"type":"response_item","payload":{"type":"session_meta"}}`, false},
		{"/x/s.jsonl", "", false},
		{"/x/rollout-notes.txt", "", false},
	} {
		if got := session.IsCodexSession(tt.path, []byte(tt.prefix)); got != tt.want {
			t.Errorf("IsCodexSession(%q, %.40q) = %v", tt.path, tt.prefix, got)
		}
	}
}

// TestReadCodexHuge reads 1 GB of rollout lines generated on the fly —
// a call, a large output for the model and the MCP result, over and over
// — and checks that every call is counted and that the heap stays far
// below the input's size.
func TestReadCodexHuge(t *testing.T) {
	if testing.Short() {
		t.Skip("reads 1 GB; not in -short")
	}
	const size = 1 << 30
	block := cxLines(
		cxCall("c%d", "mcp__crm", "get_contact", `{"id":"c_1"}`),
		cxOutput("c%d", strings.Repeat("x", 200<<10)),
		cxItem("c%d", "crm", "get_contact", `{"id":"c_1"}`, cxOK(strings.Repeat("y", 100<<10))),
	)
	r := &codexGenReader{block: block, size: size}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	s, err := session.ReadCodex(r, session.Options{})
	if err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	if r.n == 0 || len(s.Calls) < r.n-1 || len(s.Calls) > r.n {
		t.Errorf("%d calls kept of %d blocks", len(s.Calls), r.n)
	}
	if grown := int64(after.HeapInuse) - int64(before.HeapInuse); grown > 64<<20 {
		t.Errorf("the heap grew by %d MB reading 1 GB", grown>>20)
	}
}

// codexGenReader produces size bytes of block repeated, each copy with its own
// call id (the %d in block).
type codexGenReader struct {
	block string
	size  int64
	read  int64
	buf   []byte
	n     int
}

func (g *codexGenReader) Read(p []byte) (int, error) {
	if len(g.buf) == 0 {
		if g.read >= g.size {
			return 0, io.EOF
		}
		g.n++
		id := fmt.Sprint(g.n)
		g.buf = []byte(strings.ReplaceAll(g.block, "c%d", "c"+id))
	}
	n := copy(p, g.buf)
	g.buf = g.buf[n:]
	g.read += int64(n)
	return n, nil
}

// FuzzReadCodex: no input makes the Codex reader panic, Keep never
// changes the verdict or the tokens, and a session with replayable calls
// gives a trace that reads back and compiles without a panic.
func FuzzReadCodex(f *testing.F) {
	f.Add(readFixture(f, "codex-live.jsonl"))
	f.Add(readFixture(f, "codex-stream.jsonl"))
	get := cxCall("c1", "mcp__crm", "get_contact", `{"id":"c_1"}`)
	f.Add([]byte(cxLines(cxMeta("s1"), cxTurn("m"), get, cxItem("c1", "crm", "get_contact", `{"id":"c_1"}`, cxOK(`{"id":"c_1"}`)), cxTokens(10, 2, 3))))
	f.Add([]byte(cxLines(cxCall("e1", "", "mcp__crm__get", `{}`), cxEnd("e1", "crm", "get", `{}`, `{"Ok":{"content":[]}}`), cxOutput("e1", "x"))))
	f.Add([]byte(cxLines(get, cxItem("c1", "crm", "get_contact", `{}`, `"status":"failed","error":{"message":"no"}`))))
	f.Add([]byte(cxLines(`{"id":"x","timestamp":"2025-08-01T10:00:00.000Z","instructions":null}`, `{"record_type":"state"}`, `{"type":"function_call","name":"mcp__a__b","arguments":"{}","call_id":"b1"}`)))
	f.Fuzz(func(t *testing.T, data []byte) {
		kept, err := session.ReadCodex(bytes.NewReader(data), session.Options{Keep: true, MaxLine: 4096})
		if err != nil {
			t.Fatal(err)
		}
		light, _ := session.ReadCodex(bytes.NewReader(data), session.Options{MaxLine: 4096})
		if len(kept.Calls) != len(light.Calls) || kept.SkippedCalls() != light.SkippedCalls() || kept.Lines.Lines != light.Lines.Lines || fmt.Sprint(kept.Usage) != fmt.Sprint(light.Usage) {
			t.Fatalf("Keep changed the verdict on %q", data)
		}
		for _, u := range kept.Usage {
			if u.Input < 0 || u.Output < 0 || u.CacheRead < 0 || u.CacheWrite < 0 {
				t.Fatalf("negative tokens %+v", u)
			}
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
