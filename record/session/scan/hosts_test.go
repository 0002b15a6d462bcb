package scan

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/reelier/reelier/record/session"
	"github.com/reelier/reelier/testkit/testutil"
)

// The hosts scan's tests read besides Claude Code are stand-ins: small
// files shaped like a Codex CLI rollout (JSON lines of session_meta and
// response_item records) and a Gemini CLI chat (one JSON document of
// messages with tool calls), each read by a reader written here. The
// real readers and their tests live with record/session; these only show
// that the table is all scan needs to know of a host.

// fakeRollout is a rollout-shaped session whose MCP calls are tools, each
// answered.
func fakeRollout(id string, tools ...string) string {
	var b strings.Builder
	fmt.Fprintf(&b, `{"timestamp":"2026-12-0%sT09:00:00.000Z","type":"session_meta","payload":{"id":%q,"cwd":"/home/ann/codex-proj"}}`+"\n", id[len(id)-1:], id)
	for i, t := range tools {
		fmt.Fprintf(&b, `{"type":"response_item","payload":{"type":"function_call","name":%q,"arguments":"{\"n\":%d}","call_id":"c%d"}}`+"\n", t, i, i)
		fmt.Fprintf(&b, `{"type":"response_item","payload":{"type":"function_call_output","call_id":"c%d","output":"{\"ok\":true}"}}`+"\n", i)
	}
	b.WriteString(`{"type":"response_item","payload":{"type":"function_call","name":"shell","arguments":"{}","call_id":"s1"}}` + "\n")
	return b.String()
}

// readRollout is the stand-in reader of fakeRollout's files: a call is
// replayable when its name is mcp__<server>__<tool> and its output was
// logged.
func readRollout(r io.Reader, opts session.Options) (*session.Session, error) {
	if opts.Keep {
		keptRollouts.Add(1)
	}
	s := &session.Session{Host: "fakecodex", Lines: session.LineCounts{Ignored: map[string]int{}}}
	calls := map[string]*session.Call{}
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		s.Lines.Lines++
		var l struct {
			Timestamp time.Time `json:"timestamp"`
			Type      string    `json:"type"`
			Payload   struct {
				Type, Name, CallID, ID, Cwd string
				Output                      string
			} `json:"payload"`
		}
		if json.Unmarshal(sc.Bytes(), &l) != nil {
			s.Lines.Invalid++
			continue
		}
		p := l.Payload
		switch {
		case l.Type == "session_meta":
			s.ID, s.CWD, s.StartedAt = p.ID, p.Cwd, l.Timestamp
		case p.Type == "function_call":
			t := session.Classify(p.Name)
			if t.Reason != "" {
				s.Skipped = append(s.Skipped, session.Skip{Tool: p.Name, Reason: t.Reason, Count: 1})
				continue
			}
			calls[p.CallID] = &session.Call{ID: p.CallID, Tool: t, OK: true}
		case p.Type == "function_call_output":
			if c := calls[p.CallID]; c != nil {
				s.Calls = append(s.Calls, c)
			}
		}
	}
	return s, sc.Err()
}

// keptRollouts counts the rollouts read for compiling (Keep).
var keptRollouts atomic.Int64

// fakeChat is a chat-shaped Gemini session, one JSON document.
func fakeChat(id string, tools ...string) string {
	var calls []string
	for i, t := range tools {
		calls = append(calls, fmt.Sprintf(`{"id":"g%d","name":%q,"args":{},"status":"success","result":[{"functionResponse":{"response":{"output":"ok"}}}]}`, i, t))
	}
	return fmt.Sprintf(`{"sessionId":%q,"startTime":"2026-12-01T08:00:00.000Z","messages":[{"type":"user","content":"go"},{"type":"gemini","toolCalls":[%s]}]}`, id, strings.Join(calls, ","))
}

func readChat(r io.Reader, _ session.Options) (*session.Session, error) {
	var doc struct {
		SessionID string    `json:"sessionId"`
		StartTime time.Time `json:"startTime"`
		Messages  []struct {
			ToolCalls []struct {
				ID, Name, Status string
			} `json:"toolCalls"`
		} `json:"messages"`
	}
	s := &session.Session{Host: "fakegemini", Lines: session.LineCounts{Lines: 1, Ignored: map[string]int{}}}
	if err := json.NewDecoder(r).Decode(&doc); err != nil {
		s.Lines.Invalid++
		return s, nil
	}
	s.ID, s.StartedAt = doc.SessionID, doc.StartTime
	for _, m := range doc.Messages {
		for _, c := range m.ToolCalls {
			// The stand-in names MCP tools <server>__<tool>.
			if t := session.Classify("mcp__" + c.Name); t.Reason == "" && c.Status == "success" {
				s.Calls = append(s.Calls, &session.Call{ID: c.ID, Tool: t, OK: true})
			}
		}
	}
	return s, nil
}

// testHosts is Claude Code's entry of the host table with the two
// stand-ins after it (the real Gemini entry is left out: the stand-ins
// play the other hosts here).
func testHosts() []session.Host {
	claude, _ := session.HostNamed(session.Hosts, "claude")
	return append([]session.Host{claude},
		session.Host{
			Name: "fakecodex",
			Dirs: func(home string, getenv func(string) string) []string {
				if d := getenv("FAKECODEX_HOME"); d != "" {
					return []string{filepath.Join(d, "sessions")}
				}
				return []string{filepath.Join(home, ".fakecodex", "sessions")}
			},
			IsSession: func(path string, prefix []byte) bool {
				return strings.HasPrefix(filepath.Base(path), "rollout-") && strings.HasSuffix(path, ".jsonl") && bytes.Contains(prefix, []byte(`"type":"session_meta"`))
			},
			Read: readRollout,
		},
		session.Host{
			Name: "fakegemini",
			Dirs: func(home string, _ func(string) string) []string {
				return []string{filepath.Join(home, ".fakegemini", "tmp")}
			},
			IsSession: func(path string, prefix []byte) bool {
				return strings.HasSuffix(path, ".json") && bytes.Contains(prefix, []byte(`"sessionId"`)) && bytes.Contains(prefix, []byte(`"messages"`))
			},
			Read: readChat,
		})
}

// mixedHistory is a folder holding sessions of all three hosts: the same
// workflow (items: create_item, then get_item) done once in Claude Code,
// twice in the rollout host and once in the chat host, with other
// arguments each time; one other workflow; and files that are no host's.
func mixedHistory(t *testing.T) string {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "claude", "-home-ann-items", "s1.jsonl"), sessionWith("/home/ann/items", "mcp__items__create_item", "mcp__items__get_item"))
	write(t, filepath.Join(dir, "claude", "-home-ann-reads", "s2.jsonl"), sessionWith("/home/ann/reads", "mcp__crm__get_contact", "http.get"))
	write(t, filepath.Join(dir, "codex", "2026", "12", "rollout-1.jsonl"), fakeRollout("r1", "mcp__items__create_item", "mcp__items__get_item"))
	write(t, filepath.Join(dir, "codex", "2026", "12", "rollout-2.jsonl"), fakeRollout("r2", "mcp__items__create_item", "mcp__items__get_item"))
	write(t, filepath.Join(dir, "codex", "2026", "12", "rollout-3.jsonl"), fakeRollout("r3"))
	write(t, filepath.Join(dir, "gemini", "abc", "chats", "session-1.json"), fakeChat("g1", "items__create_item", "items__get_item"))
	write(t, filepath.Join(dir, "gemini", "abc", "logs.json"), `[{"sessionId":"g1","type":"user"}]`)
	write(t, filepath.Join(dir, "package.json"), `{"name":"not-a-session"}`)
	return dir
}

// TestScanHosts: a folder holding several hosts' sessions is read file by
// file with the reader of the host that claims each; the folder's line
// counts them per host; the same workflow done four times is listed once
// with "you did this 4 times", first.
func TestScanHosts(t *testing.T) {
	dir := mixedHistory(t)
	res, err := Scan(dir, Options{Hosts: testHosts()})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	res.WriteSummary(&b)
	b.WriteString("\n")
	res.WriteListing(&b)
	out := bytes.ReplaceAll(b.Bytes(), []byte(dir), []byte("DIR"))
	testutil.Golden(t).Assert(t, "mixed", out)
	if len(res.Groups) != 2 || res.Groups[0].Count != 4 || res.Groups[1].Count != 1 {
		t.Fatalf("groups %+v, want the items workflow ×4 then one other", res.Groups)
	}
	hosts := map[string]int{}
	for _, k := range res.Groups[0].Sessions {
		hosts[res.Replayable[k].Host]++
	}
	if fmt.Sprint(hosts) != "map[claude:1 fakecodex:2 fakegemini:1]" {
		t.Errorf("the repeated workflow's sessions come from %v", hosts)
	}
	if got := strings.Join(res.Groups[0].Workflow, " "); got != "items/create_item items/get_item" {
		t.Errorf("workflow %q", got)
	}
	// Compiling the group compiles its newest session, with its host's
	// reader (the rollout host's here; the stand-in keeps no events, so
	// the compiler gets nothing it can write).
	newest := res.Replayable[res.Groups[0].Sessions[0]]
	if newest.Host != "fakecodex" || !strings.HasSuffix(newest.Path, "rollout-2.jsonl") {
		t.Fatalf("the newest session of the group is %s's %s", newest.Host, newest.Path)
	}
	before := keptRollouts.Load()
	c := res.CompileChosen(io.Discard, []int{0}, CompileOptions{OutDir: t.TempDir(), JSON: true})
	if len(c) != 1 || c[0].Path != newest.Path || keptRollouts.Load() != before+1 {
		t.Errorf("compiling the group did not read its newest session with its host's reader: %+v", c)
	}
	// The Claude Code session alone compiles, through the Claude reader.
	c = res.CompileChosen(io.Discard, []int{1}, CompileOptions{OutDir: t.TempDir(), JSON: true})
	if len(c) != 1 || c[0].Status != "written" || c[0].Steps != 2 {
		t.Errorf("compiling the Claude session: %+v", c)
	}
}

// TestScanHostFolders: with no folder given, each host's own folders are
// read, by that host alone; a folder that is not there is listed so.
func TestScanHostFolders(t *testing.T) {
	src := mixedHistory(t)
	home := t.TempDir()
	codexHome := filepath.Join(t.TempDir(), "codex-home")
	if err := os.MkdirAll(filepath.Join(home, ".claude"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(filepath.Join(src, "claude"), filepath.Join(home, ".claude", "projects")); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(codexHome, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(filepath.Join(src, "codex"), filepath.Join(codexHome, "sessions")); err != nil {
		t.Fatal(err)
	}
	// A Claude transcript in the rollout host's folder is not read there.
	write(t, filepath.Join(codexHome, "sessions", "stray.jsonl"), sessionWith("/x", "http.get"))
	env := map[string]string{"FAKECODEX_HOME": codexHome}
	res, err := ScanHosts(testHosts(), home, func(k string) string { return env[k] }, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	res.writeWhere(&b)
	got := strings.NewReplacer(home, "HOME", codexHome, "CODEX_HOME").Replace(b.String())
	want := `Looked in:
  HOME/.claude/projects (claude) — claude: 2 read, 2 replayable, 0 skipped
  CODEX_HOME/sessions (fakecodex) — fakecodex: 3 read, 2 replayable, 1 skipped
  HOME/.fakegemini/tmp (fakegemini) — not there
`
	if got != want {
		t.Errorf("folders:\n%s\nwant:\n%s", got, want)
	}
	if res.Sessions != 5 || len(res.Replayable) != 4 || res.Groups[0].Count != 3 {
		t.Errorf("sessions %d, replayable %d, groups %+v", res.Sessions, len(res.Replayable), res.Groups)
	}
	// Only the hosts asked for.
	res, err = ScanHosts(testHosts()[1:2], home, func(k string) string { return env[k] }, Options{})
	if err != nil || len(res.Folders) != 1 || res.Folders[0].Host != "fakecodex" {
		t.Fatalf("one host: %+v, %v", res, err)
	}
}

func TestSniff(t *testing.T) {
	hosts := testHosts()
	tests := []struct{ path, prefix, want string }{
		{"a/s.jsonl", `{"type":"user"}`, "claude"},
		{"a/s.jsonl", ``, "claude"},
		{"a/rollout-1.jsonl", `{"timestamp":"x","type":"session_meta"}`, "fakecodex"},
		{"a/rollout-1.jsonl", `{"type":"user"}`, "claude"},
		{"a/session-1.json", `{"sessionId":"x","messages":[]}`, "fakegemini"},
		{"a/package.json", `{"name":"x"}`, ""},
		{"a/s.jsonl", `not json`, ""},
		{"a/s.txt", `{}`, ""},
	}
	for _, tt := range tests {
		h, ok := session.Sniff(hosts, tt.path, []byte(tt.prefix))
		if got := h.Name; got != tt.want || ok != (tt.want != "") {
			t.Errorf("Sniff(%s, %s) = %q, want %q", tt.path, tt.prefix, got, tt.want)
		}
	}
}
