package mock_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/reelier/reelier/testkit/testutil"
)

// notTraces are the .jsonl files under a testdata folder that are not
// traces on purpose, each with why; `reelier mock` must refuse each with
// exit 2 and the message given (PATH is the file's path).
var notTraces = map[string]struct{ why, message string }{
	"lang/lsp/testdata/traces/search-1.jsonl": {"a trace whose third line is deliberately not a record (the LSP's bad-line test)",
		`PATH:3: not a JSON record: expected a JSON object, found "not a record"`},
	"replay/runlog/testdata/mixed-history.jsonl": {"a run history (run records), not a trace",
		`PATH:1: field "t": missing or not a string`},
	"testdata/sessions/claude-file.jsonl":    {"a Claude Code session transcript (reelier from-session reads it)", `PATH:1: field "t": missing or not a string`},
	"testdata/sessions/claude-stream.jsonl":  {"a Claude Code stream-json transcript", `PATH:1: field "t": missing or not a string`},
	"testdata/sessions/mixed.jsonl":          {"a Claude Code session transcript", `PATH:1: field "t": missing or not a string`},
	"testdata/sessions/none.jsonl":           {"a Claude Code session transcript", `PATH:1: field "t": missing or not a string`},
	"testdata/sessions/gemini-session.jsonl": {"a Gemini CLI chat recording (reelier from-session reads it)", `PATH:1: field "t": missing or not a string`},
	"testdata/sessions/codex-live.jsonl":     {"a Codex CLI rollout file (reelier from-session reads it)", `PATH:1: field "t": missing or not a string`},
	"testdata/sessions/codex-stream.jsonl":   {"the stream codex exec --json prints", `PATH:1: field "t": missing or not a string`},
	"redact/testdata/redact/benign.jsonl":    {"the redactor's corpus of look-alikes, not a trace", `PATH:1: field "t": missing or not a string`},
	"redact/testdata/redact/secrets.jsonl":   {"the redactor's corpus of secrets, not a trace", `PATH:1: field "t": missing or not a string`},
}

// expectation is what a replay of a compiled trace against its mock must
// show when it does not simply pass, and why.
type expectation struct {
	why     string
	verdict string // the run record's verdict
	exit    int
	// step and failure: the failed step and a text its failures hold.
	step    int
	failure string
	// output are texts the run's output (the mock's stderr included)
	// holds.
	output []string
	// passWith are extra mock arguments under which the replay passes.
	passWith [][]string
}

var cannotPass = map[string]expectation{
	"compile/testdata/traces/12-is-error.jsonl": {
		why:     "every recorded call returned isError: true, so the compiled skill has no asserts and the replay checks nothing",
		verdict: "unchecked", exit: 0,
	},
	"compile/testdata/traces/17-verb-words.jsonl": {
		why:     "the recording has an MCP tool named http.get, which replay's builtin of that name hides: the builtin is called with the MCP tool's arguments, which have no url",
		verdict: "failed", exit: 3, step: 5, failure: `missing required string argument "url"`,
	},
	"compile/testdata/traces/25-template-literals.jsonl": {
		why:     "the agent sent the literal text \"Sent {{today}}\", which the compiled skill fills with today's date (its open question says so); exact matching refuses the call and names the path, ignoring it or loose matching answers",
		verdict: "failed", exit: 1, step: 2, failure: "status == 200 failed: got 500",
		output: []string{
			`[reelier] reelier mock: no recorded call of render_preview matches these arguments (--match exact): {"body":"Hello {{first_name}}","footer":"Sent 2`,
			`; the nearest recorded call is PATH:6 with {"body":"Hello {{first_name}}","footer":"Sent {{today}}","raw":"{{ not a hole }}"}; what differs: args.footer: recorded "Sent {{today}}", got "Sent 2`,
		},
		passWith: [][]string{{"--ignore-arg", "args.footer"}, {"--match", "loose"}},
	},
}

// TestReplayEveryTrace compiles every trace under a testdata folder of
// the repository (the truth bench's recordings included) with `reelier
// compile` and replays the skill with `reelier run --wrap "reelier mock
// TRACE"`, offline: the run passes, or shows exactly the reason the
// table gives. The files that are not traces on purpose are refused by
// the mock with exit 2 and the line at fault.
func TestReplayEveryTrace(t *testing.T) {
	bin := testutil.ReelierBinary(t)
	root := testutil.Root()
	env := append(os.Environ(), "PATH="+filepath.Dir(bin)+string(os.PathListSeparator)+os.Getenv("PATH"), "NO_COLOR=1")
	var found []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "node_modules" || d.Name() == ".ci") {
			return filepath.SkipDir
		}
		rel, _ := filepath.Rel(root, path)
		if !d.IsDir() && strings.HasSuffix(path, ".jsonl") && slices.Contains(strings.Split(filepath.ToSlash(rel), "/"), "testdata") {
			found = append(found, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(found) < 40 {
		t.Fatalf("found %d .jsonl files under testdata folders; the walk is broken", len(found))
	}
	for rel := range notTraces {
		if !slices.Contains(found, rel) {
			t.Errorf("%s is listed as not a trace but no longer exists; update the list", rel)
		}
	}
	for rel := range cannotPass {
		if !slices.Contains(found, rel) {
			t.Errorf("%s is listed as unable to pass but no longer exists; update the list", rel)
		}
	}
	if replayed := len(found) - len(notTraces); replayed < 45 {
		t.Errorf("%d traces to replay; want every trace under testdata (at least 45)", replayed)
	}
	for _, rel := range found {
		t.Run(rel, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(root, rel)
			if bad, ok := notTraces[rel]; ok {
				t.Logf("not a trace: %s", bad.why)
				out, code := reelier(t, bin, env, t.TempDir(), "mock", path)
				want := "reelier: " + strings.ReplaceAll(bad.message, "PATH", path)
				if code != 2 || !strings.HasPrefix(out, want) {
					t.Errorf("reelier mock %s: exit %d, output\n%s\nwant exit 2 and a line starting %q", rel, code, out, want)
				}
				return
			}
			dir := t.TempDir()
			skill := filepath.Join(dir, "replay.skill.md")
			out, code := reelier(t, bin, env, dir, "compile", "--json", "-o", skill, path)
			if code != 0 {
				t.Fatalf("reelier compile: exit %d\n%s", code, out)
			}
			var summary struct {
				Inputs []string `json:"inputs"`
			}
			if err := json.Unmarshal([]byte(out[strings.Index(out, "{"):]), &summary); err != nil {
				t.Fatalf("compile --json: %v\n%s", err, out)
			}
			run := func(mockArgs ...string) (runRecord, int, string) {
				args := []string{"run", "--json", "--yes", "--runs-dir", filepath.Join(dir, "runs")}
				for _, in := range summary.Inputs {
					args = append(args, "--var", in+"=an input the trace redacted")
				}
				wrap := strings.Join(append(append([]string{"reelier", "mock"}, mockArgs...), "'"+path+"'"), " ")
				args = append(args, "--wrap", wrap, skill)
				out, code := reelier(t, bin, env, dir, args...)
				rec, err := lastRecord(out)
				if err != nil {
					t.Fatalf("reelier run --wrap %q: exit %d, %v\n%s", wrap, code, err, out)
				}
				return rec, code, out
			}
			rec, code, out := run()
			exp, special := cannotPass[rel]
			if !special {
				if code != 0 || rec.Verdict != "passed" {
					t.Fatalf("replay against the mock: exit %d, verdict %s\n%s", code, rec.Verdict, out)
				}
				return
			}
			t.Logf("does not simply pass: %s", exp.why)
			if code != exp.exit || rec.Verdict != exp.verdict {
				t.Fatalf("replay against the mock: exit %d, verdict %s; want exit %d, verdict %s\n%s", code, rec.Verdict, exp.exit, exp.verdict, out)
			}
			if exp.step > 0 {
				st := rec.step(exp.step)
				if st == nil || st.Outcome != "failed" || !strings.Contains(strings.Join(st.failureTexts(), "\n"), exp.failure) {
					t.Errorf("step %d: want it failed with %q; got %+v\n%s", exp.step, exp.failure, st, out)
				}
			}
			for _, want := range exp.output {
				if want = strings.ReplaceAll(want, "PATH", path); !strings.Contains(out, want) {
					t.Errorf("the output does not hold %q:\n%s", want, out)
				}
			}
			for _, extra := range exp.passWith {
				rec, code, out := run(extra...)
				if code != 0 || rec.Verdict != "passed" {
					t.Errorf("replay against reelier mock %s: exit %d, verdict %s; want passed\n%s", strings.Join(extra, " "), code, rec.Verdict, out)
				}
			}
		})
	}
}

// reelier runs the binary in dir and returns its stdout and stderr
// together, and its exit status.
func reelier(t *testing.T, bin string, env []string, dir string, args ...string) (string, int) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Dir, cmd.Env = dir, env
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return out.String(), 0
	case errors.As(err, &ee):
		return out.String(), ee.ExitCode()
	}
	t.Fatalf("reelier %v: %v", args, err)
	return "", -1
}

// runRecord is the part of a run record the test reads.
type runRecord struct {
	Verdict string       `json:"verdict"`
	Steps   []stepRecord `json:"steps"`
}

type stepRecord struct {
	N        int               `json:"n"`
	Outcome  string            `json:"outcome"`
	Failures []json.RawMessage `json:"failures"`
}

func (r runRecord) step(n int) *stepRecord {
	for k := range r.Steps {
		if r.Steps[k].N == n {
			return &r.Steps[k]
		}
	}
	return nil
}

func (s *stepRecord) failureTexts() []string {
	var out []string
	for _, f := range s.Failures {
		var text string
		if json.Unmarshal(f, &text) != nil {
			text = string(f)
		}
		out = append(out, text)
	}
	return out
}

// lastRecord reads the run record in run --json output (stdout and
// stderr mixed: the record is the line that starts with "{").
func lastRecord(out string) (runRecord, error) {
	var rec runRecord
	lines := strings.Split(out, "\n")
	for k := len(lines) - 1; k >= 0; k-- {
		if strings.HasPrefix(lines[k], "{") {
			return rec, json.Unmarshal([]byte(lines[k]), &rec)
		}
	}
	return rec, errors.New("no run record in the output")
}

// TestMockProcessHTTP starts `reelier mock --http 127.0.0.1:0` with a
// token, reads the address it prints, and replays the recording through
// it with the go-sdk client; SIGTERM ends it with exit 0.
func TestMockProcessHTTP(t *testing.T) {
	bin := testutil.ReelierBinary(t)
	const token = "0123456789abcdef-mock"
	cmd := exec.Command(bin, "mock", "--http", "127.0.0.1:0", "--token-env", "MOCK_TOKEN", shipTrace)
	cmd.Env = append(os.Environ(), "MOCK_TOKEN="+token)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	lines := bufio.NewReader(stderr)
	first, err := lines.ReadString('\n')
	if err != nil {
		t.Fatalf("reading the mock's first line: %v", err)
	}
	m := regexp.MustCompile(`^reelier mock: serving 3 tools from 1 recordings \(--match exact\) at (http://127\.0\.0\.1:[0-9]+/mcp) \(bearer token from \$MOCK_TOKEN required\)\n$`).FindStringSubmatch(first)
	if m == nil {
		t.Fatalf("first line: %q", first)
	}
	ctx := t.Context()
	client := mcp.NewClient(&mcp.Implementation{Name: "e2e", Version: "1"}, nil)
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: m[1], HTTPClient: &http.Client{Transport: bearerTransport(token)}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "search_orders", Arguments: map[string]any{"customer": "ann", "status": "open"}})
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := json.Marshal(res.StructuredContent); string(got) != `{"orders":[{"id":"ord_7Q2","total":12.5}]}` || res.IsError {
		t.Errorf("search_orders over HTTP: %s (isError %t)", got, res.IsError)
	}
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "ship_order", Arguments: map[string]any{"id": "ord_7Q2", "carrier": "dhl"}})
	if err != nil || res.IsError {
		t.Fatalf("ship_order over HTTP: %v %+v", err, res)
	}
	cs.Close()
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	rest, _ := io.ReadAll(lines)
	if err := cmd.Wait(); err != nil {
		t.Errorf("reelier mock after SIGTERM: %v\n%s", err, rest)
	}
}
