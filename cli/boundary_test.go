package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	neturl "net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/reelier/reelier/redact"
	"github.com/reelier/reelier/replay/runlog"
	"github.com/reelier/reelier/testkit/llmtest"
	"github.com/reelier/reelier/testkit/testutil"
)

// boundarySecrets are one secret of each kind the redactor knows, built at
// run time so no credential literal sits in the source: the value of a
// variable REELIER_REDACT names, a GitHub token, the credential of an
// Authorization: Bearer header and the value of a password member.
var boundarySecrets = []struct{ kind, value string }{
	{"REELIER_REDACT value", "bndEnv-" + "Kx93Qw7Lm"},
	{"GitHub token", "ghp_" + strings.Repeat("Bd7x", 9)},
	{"Bearer credential", "brrTk." + "9Xq2LmN4pR7sT1vWz"},
	{"password member", "Hunter2" + "Boundary-pw"},
}

// secret returns the boundary secret of a kind.
func secret(kind string) string {
	for _, s := range boundarySecrets {
		if s.kind == kind {
			return s.value
		}
	}
	panic("no secret of kind " + kind)
}

// boundary is everything one boundary let out of the processes: files,
// standard output and error, prompts, pages, each under a name.
type boundary struct {
	name  string
	items map[string]string
}

// boundaryRun is the state of TestBoundaries: a work directory, the
// environment every process runs in, and what each boundary let out.
type boundaryRun struct {
	t          *testing.T
	bin, dir   string
	env        []string
	boundaries []*boundary
	stopLedger func()
}

func (b *boundaryRun) boundary(name string) *boundary {
	bd := &boundary{name: name, items: map[string]string{}}
	b.boundaries = append(b.boundaries, bd)
	return bd
}

// file adds a file of the work directory to bd, failing when it is missing.
func (b *boundaryRun) file(bd *boundary, name string) string {
	b.t.Helper()
	data, err := os.ReadFile(filepath.Join(b.dir, name))
	if err != nil {
		b.t.Fatalf("%s: %v", bd.name, err)
	}
	bd.items[name] = string(data)
	return string(data)
}

// reelier runs the built binary in the work directory with args, adds its
// stdout and stderr to bd and returns them with the exit status.
func (b *boundaryRun) reelier(bd *boundary, extraEnv []string, args ...string) (stdout, stderr string, code int) {
	b.t.Helper()
	cmd := exec.Command(b.bin, args...)
	cmd.Dir = b.dir
	cmd.Env = append(append([]string{}, b.env...), extraEnv...)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	if _, ok := err.(*exec.ExitError); err != nil && !ok {
		b.t.Fatalf("reelier %s: %v", strings.Join(args, " "), err)
	}
	label := "reelier " + strings.Join(args, " ")
	bd.items[label+" (stdout)"] = out.String()
	bd.items[label+" (stderr)"] = errOut.String()
	return out.String(), errOut.String(), cmd.ProcessState.ExitCode()
}

// TestBoundaries follows one secret of each kind through every boundary
// where data leaves Reelier's processes — the trace of a recording (its
// meta and a note), the compiled skill, replays with --verbose, --json,
// --junit and --trace, the run record, reelier summary, the prompt a heal
// sends the LLM, a push and the ledger's pages and database, and serve's
// reelier_replay — with real processes: the built binary recording in
// front of the test MCP server, the fake LLM and a ledger on 127.0.0.1.
// No output may hold any secret, while the agent itself got the real
// values.
func TestBoundaries(t *testing.T) {
	b := &boundaryRun{t: t, bin: testutil.ReelierBinary(t), dir: t.TempDir()}
	home := filepath.Join(b.dir, "home")
	b.env = append(os.Environ(), "HOME="+home, "XDG_CONFIG_HOME="+filepath.Join(home, ".config"), "NO_COLOR=1",
		"REELIER_REDACT=BOUNDARY_SECRET", "BOUNDARY_SECRET="+secret("REELIER_REDACT value"),
		"REELIER_CLOUD_URL=", "REELIER_CLOUD_KEY=", "REELIER_LLM_API_KEY=", "REELIER_LLM_BASE_URL=")

	agent := b.record()
	b.compile()
	b.editSkill()
	b.replay()
	b.heal()
	b.serve()
	b.push()

	t.Run("agent", func(t *testing.T) {
		// The agent is the one party that must get the real values.
		for _, s := range boundarySecrets {
			if !strings.Contains(agent, s.value) {
				t.Errorf("the agent did not get the %s it sent through the proxy:\n%s", s.kind, agent)
			}
		}
	})
	for _, bd := range b.boundaries {
		t.Run(bd.name, func(t *testing.T) {
			names := make([]string, 0, len(bd.items))
			for name := range bd.items {
				names = append(names, name)
			}
			sort.Strings(names)
			for _, name := range names {
				for _, s := range boundarySecrets {
					if i := strings.Index(bd.items[name], s.value); i >= 0 {
						t.Errorf("%s: %s holds the %s: …%s…", bd.name, name, s.kind, excerptAround(bd.items[name], i, len(s.value)))
					}
				}
			}
		})
	}
}

// excerptAround is the text around s[i:i+n], on one line.
func excerptAround(s string, i, n int) string {
	from, to := max(0, i-60), min(len(s), i+n+60)
	return strings.ReplaceAll(s[from:to], "\n", `\n`)
}

// noteText carries every secret as an agent might write them in a note:
// in prose, in a header line and in a JSON body.
func noteText() string {
	return "Sign in as ann (" + secret("REELIER_REDACT value") + ") with " + secret("GitHub token") + ", sending\n" +
		"Authorization: Bearer " + secret("Bearer credential") + "\n" +
		`and the body {"user":"ann","password":"` + secret("password member") + `"}`
}

// itemTitle carries every secret in an item's title, a JSON document with
// a password member.
func itemTitle() string {
	title, _ := json.Marshal(map[string]string{
		"user": "ann", "password": secret("password member"), "ref": secret("GitHub token"),
		"note": secret("REELIER_REDACT value"), "auth": "Authorization: Bearer " + secret("Bearer credential"),
	})
	return string(title)
}

// wrapCommand starts the test MCP server with every secret on its command
// line: in an environment assignment, in a URL's password and query, in a
// header argument and as a bare word (the server ignores the arguments
// after its flags).
func wrapCommand() string {
	return "env BOUNDARY_GH=" + secret("GitHub token") + " mcptestserver -name boundary" +
		" 'https://ann:" + secret("password member") + "@example.test/mcp?access_token=" + secret("GitHub token") + "'" +
		" --header 'Authorization: Bearer " + secret("Bearer credential") + "' " + secret("REELIER_REDACT value")
}

// record drives `reelier mcp` as an agent: a recording with a note and two
// calls that carry every secret. It returns what the agent received.
func (b *boundaryRun) record() string {
	t := b.t
	bd := b.boundary("record: trace and proxy output")
	cmd := exec.Command(b.bin, "mcp", "--wrap", wrapCommand(), "--trace-dir", "traces")
	cmd.Dir, cmd.Env = b.dir, b.env
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	session, err := mcp.NewClient(&mcp.Implementation{Name: "boundary-agent", Version: "1"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connecting to reelier mcp: %v\n%s", err, stderr.String())
	}
	t.Cleanup(func() { session.Close() })
	var agent strings.Builder
	call := func(tool string, args any) string {
		res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
		if err != nil {
			t.Fatalf("%s: %v", tool, err)
		}
		var texts []string
		for _, c := range res.Content {
			if tc, ok := c.(*mcp.TextContent); ok {
				texts = append(texts, tc.Text)
			}
		}
		text := strings.Join(texts, "\n")
		if res.IsError {
			t.Fatalf("%s: %s", tool, text)
		}
		agent.WriteString(text + "\n")
		return text
	}
	call("reelier_start_recording", map[string]any{"name": "leaky"})
	call("reelier_note", map[string]any{"text": noteText()})
	var created struct{ ID string }
	if err := json.Unmarshal([]byte(call("create_item", map[string]any{"title": itemTitle()})), &created); err != nil {
		t.Fatal(err)
	}
	call("reelier_note", map[string]any{"text": "Read it back"})
	call("get_item", map[string]any{"id": created.ID})
	call("reelier_stop_recording", map[string]any{})
	session.Close()
	bd.items["reelier mcp (stderr)"] = stderr.String()
	b.file(bd, "traces/leaky-1.jsonl")
	return agent.String()
}

// compile compiles the recording, and prints it with reelier trace.
func (b *boundaryRun) compile() {
	bd := b.boundary("compile: skill")
	if _, stderr, code := b.reelier(bd, nil, "compile", "traces/leaky-1.jsonl", "-o", "leaky.skill.md"); code != 0 {
		b.t.Fatalf("compile exited %d:\n%s", code, stderr)
	}
	b.reelier(bd, nil, "trace", "traces/leaky-1.jsonl")
	b.file(bd, "leaky.skill.md")
}

// stepVars are the inputs of the edited skill, each holding one secret,
// as REELIER_VAR_ variables.
func stepVars() []string {
	return []string{
		"REELIER_VAR_bearer=" + secret("Bearer credential"),
		"REELIER_VAR_note=" + secret("REELIER_REDACT value"),
		"REELIER_VAR_password=" + secret("password member"),
		"REELIER_VAR_ref=" + secret("GitHub token"),
	}
}

// replayWrap starts the test server for a replay.
const replayWrap = "mcptestserver -name boundary"

// editSkill does what the compiled skill's open question asks of a skill
// whose redacted values are different secrets — one input each — and adds
// a check the item's title fails, so a replay's failure quotes the
// observed title with every secret in it.
func (b *boundaryRun) editSkill() {
	t := b.t
	path := filepath.Join(b.dir, "leaky.skill.md")
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	action := regexp.MustCompile(`(?m)^- action: create_item .*$`)
	check := regexp.MustCompile(`(?m)^(- assert: json.status == "open")$`)
	if !action.Match(src) || !check.Match(src) {
		t.Fatalf("the compiled skill lacks the lines the test edits:\n%s", src)
	}
	src = action.ReplaceAll(src, []byte(`- action: create_item {"title": "{\"auth\":\"Authorization: Bearer {{bearer}}\",\"note\":\"{{note}}\",\"password\":\"{{password}}\",\"ref\":\"{{ref}}\",\"user\":\"ann\"}"}`))
	src = check.ReplaceAll(src, []byte("$1\n- assert: json.title == \"nope\""))
	if err := os.WriteFile(path, src, 0o644); err != nil {
		t.Fatal(err)
	}
}

// replay replays the skill: refused at the destructive step (the refusal
// quotes the filled action), then with --yes, failing at the title check,
// with --verbose, --junit and --trace, then with --json; and renders the
// summary of the newest run.
func (b *boundaryRun) replay() {
	t := b.t
	bd := b.boundary("replay: receipt and run record")
	if _, _, code := b.reelier(bd, stepVars(), "run", "--wrap", replayWrap, "leaky.skill.md"); code == 0 {
		t.Fatal("the refused replay passed")
	}
	out, _, code := b.reelier(bd, stepVars(), "run", "--yes", "--verbose", "--junit", "replay.xml", "--trace", "replay.jsonl", "--wrap", replayWrap, "leaky.skill.md")
	if code == 0 || !strings.Contains(out, `json.title == "nope"`) {
		t.Fatalf("the replay did not fail at the title check:\n%s", out)
	}
	b.reelier(bd, stepVars(), "run", "--yes", "--json", "--wrap", replayWrap, "leaky.skill.md")
	b.file(bd, "replay.xml")
	b.file(bd, ".reelier/runs/leaky.jsonl")
	tr := b.boundary("replay: --trace")
	b.file(tr, "replay.jsonl")
	b.reelier(tr, nil, "trace", "replay.jsonl")
	sum := b.boundary("summary")
	if out, _, _ := b.reelier(sum, nil, "summary", ".reelier/runs/leaky.jsonl"); !strings.Contains(out, "failed") {
		t.Fatalf("the summary shows no failure:\n%s", out)
	}
}

// heal replays with --max-level 2 against the fake LLM, which proposes two
// patches that do not hold, and keeps every prompt it was sent.
func (b *boundaryRun) heal() {
	t := b.t
	bd := b.boundary("heal: LLM prompts")
	patch := func(want string) llmtest.Reply {
		text, _ := json.Marshal(map[string]any{"reason": "the title changed",
			"asserts": []string{"status == 200", "json.id is string", "json.title is string", `json.status == "open"`, `json.title == "` + want + `"`}})
		return llmtest.Reply{Text: string(text), InputTokens: 100, OutputTokens: 10}
	}
	srv := llmtest.New([]llmtest.Reply{patch("still-nope"), patch("still-nope-2")}, llmtest.Options{})
	t.Cleanup(srv.Close)
	env := append(stepVars(), "REELIER_LLM_BASE_URL="+srv.URL+"/v1", "REELIER_LLM_API_KEY=sk-boundary-"+"0123456789", "REELIER_LLM_MODEL=fake-small")
	out, _, _ := b.reelier(bd, env, "run", "--yes", "--max-level", "2", "--wrap", replayWrap, "leaky.skill.md")
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("the LLM got %d requests, want 2 (L1 and L2):\n%s", len(reqs), out)
	}
	for i, r := range reqs {
		bd.items[fmt.Sprintf("prompt %d (system)", i+1)] = r.System
		bd.items[fmt.Sprintf("prompt %d", i+1)] = r.Prompt
		if len(r.Problems) > 0 {
			t.Errorf("LLM request %d was malformed: %v", i+1, r.Problems)
		}
	}
	if !strings.Contains(reqs[1].Prompt, "A Level 1 patch") || !strings.Contains(reqs[0].Prompt, redact.Redacted) {
		t.Errorf("the prompts are not the ones expected:\n%s\n---\n%s", reqs[0].Prompt, reqs[1].Prompt)
	}
	b.file(bd, ".reelier/runs/leaky.jsonl")
	b.file(bd, "leaky.skill.md")
}

// serve replays the skill through `reelier serve`'s reelier_replay, as an
// agent would, and keeps the record it answers.
func (b *boundaryRun) serve() {
	t := b.t
	bd := b.boundary("serve: reelier_replay")
	cmd := exec.Command(b.bin, "serve")
	cmd.Dir, cmd.Env = b.dir, b.env
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	session, err := mcp.NewClient(&mcp.Implementation{Name: "boundary-agent", Version: "1"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connecting to reelier serve: %v\n%s", err, stderr.String())
	}
	t.Cleanup(func() { session.Close() })
	vars := map[string]string{}
	for _, v := range stepVars() {
		name, value, _ := strings.Cut(strings.TrimPrefix(v, "REELIER_VAR_"), "=")
		vars[name] = value
	}
	res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: "reelier_replay", Arguments: map[string]any{
		"skillPath": "leaky.skill.md", "vars": vars, "wrap": []string{replayWrap}, "allowDestructive": true}})
	if err != nil {
		t.Fatal(err)
	}
	session.Close()
	answer, _ := json.Marshal(res)
	if res.IsError || !strings.Contains(string(answer), `json.title == \"nope\"`) {
		t.Fatalf("reelier_replay did not answer the failed record: %s", answer)
	}
	bd.items["reelier_replay result"] = string(answer)
	bd.items["reelier serve (stderr)"] = stderr.String()
}

// push pushes every run record and the skill to a `reelier ledger serve`
// process, through a tap that keeps what goes over the wire, then reads
// the ledger's pages, its read API and its database files.
func (b *boundaryRun) push() {
	t := b.t
	bd := b.boundary("push: output and state")
	pages := b.boundary("ledger: pages, read API and database")
	db := filepath.Join(b.dir, "ledger", "ledger.db")
	if err := os.MkdirAll(filepath.Dir(db), 0o755); err != nil {
		t.Fatal(err)
	}
	keyOut, _, code := b.reelier(bd, nil, "ledger", "key", "create", "ci", "--db", "sqlite:"+db)
	if code != 0 {
		t.Fatal("ledger key create failed")
	}
	key := strings.TrimSpace(keyOut)
	b.appendLegacyRecord()
	url := b.startLedger(pages, db)
	proxy := wireTap(t, url, b.boundary("push: requests on the wire"))
	out, errOut, code := b.reelier(bd, []string{"REELIER_CLOUD_URL=" + proxy, "REELIER_CLOUD_KEY=" + key}, "push", "leaky.skill.md")
	ids := regexp.MustCompile(`pushed as (run_[a-z0-9]+)`).FindAllStringSubmatch(out, -1)
	if code != 0 || len(ids) < 6 {
		t.Fatalf("push exited %d with %d record(s) pushed:\n%s%s", code, len(ids), out, errOut)
	}
	paths := []string{"/", "/skills/leaky", "/api/v1/skills", "/api/v1/skills/leaky/runs"}
	for _, id := range ids {
		paths = append(paths, "/runs/"+id[1])
	}
	for _, p := range paths {
		req, _ := http.NewRequest("GET", url+p, nil)
		req.Header.Set("Authorization", "Bearer "+key)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		page, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("GET %s: %d %s", p, resp.StatusCode, page)
		}
		pages.items["GET "+p] = string(page)
	}
	b.stopLedger()
	files, _ := filepath.Glob(db + "*")
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		pages.items["ledger database "+filepath.Base(f)] = string(data)
	}
	b.file(bd, ".reelier/push-state.json")
}

// appendLegacyRecord appends to the run history a record as a Reelier
// that did not redact failures wrote it — the filled action, a bind and
// the failure quoting what was observed, all in the clear — for push to
// redact on the way out.
func (b *boundaryRun) appendLegacyRecord() {
	t := b.t
	quoted, _ := json.Marshal(itemTitle())
	rec := runlog.Record{Skill: "leaky", StartedAt: "2026-07-18T14:00:00.000Z", FinishedAt: "2026-07-18T14:00:01.000Z", Path: "leaky.skill.md",
		Steps: []runlog.StepRecord{{N: 1, Title: "Read it back", Outcome: runlog.Failed, Kind: runlog.KindCheck,
			Failures: []string{`json.title == "nope" failed: got ` + string(quoted)},
			Action:   &runlog.ActionRecord{Tool: "create_item", Args: json.RawMessage(`{"title":` + string(quoted) + `}`)},
			Binds:    map[string]json.RawMessage{"title": quoted}}}}
	rec.Steps[0].Why = &runlog.Why{Trigger: rec.Steps[0].Failures[0]}
	rec.Finish(false)
	line, err := runlog.Marshal(&rec)
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(filepath.Join(b.dir, ".reelier", "runs", "leaky.jsonl"), os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.Write(line); err != nil {
		t.Fatal(err)
	}
}

// wireTap serves, on 127.0.0.1, a reverse proxy to target that keeps every
// request body it passes on in bd, and returns its URL.
func wireTap(t *testing.T, target string, bd *boundary) string {
	u, err := neturl.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	rp := httputil.NewSingleHostReverseProxy(u)
	var mu sync.Mutex
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		mu.Lock()
		bd.items[fmt.Sprintf("request %d: %s %s", len(bd.items)+1, r.Method, r.URL.Path)] = string(body)
		mu.Unlock()
		r.Body = io.NopCloser(bytes.NewReader(body))
		rp.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

var ledgerListening = regexp.MustCompile(`listening on (http://\S+) `)

// startLedger starts `reelier ledger serve` on a free loopback port and
// returns its URL once it listens.
func (b *boundaryRun) startLedger(bd *boundary, db string) string {
	t := b.t
	cmd := exec.Command(b.bin, "ledger", "serve", "--addr", "127.0.0.1:0", "--db", "sqlite:"+db)
	cmd.Dir, cmd.Env = b.dir, b.env
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	out := bufio.NewReader(stdout)
	first, err := out.ReadString('\n')
	m := ledgerListening.FindStringSubmatch(first)
	if err != nil || m == nil {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("the ledger did not start: %q %v\n%s", first, err, stderr.String())
	}
	b.stopLedger = func() {
		cmd.Process.Signal(os.Interrupt)
		rest, _ := io.ReadAll(out)
		cmd.Wait()
		bd.items["reelier ledger serve (stdout)"] = first + string(rest)
		bd.items["reelier ledger serve (stderr)"] = stderr.String()
	}
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			cmd.Process.Kill()
			cmd.Wait()
		}
	})
	return m[1]
}
