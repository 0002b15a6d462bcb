package truth

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"time"
)

// commandTimeout bounds every process the bench starts; none should take
// more than a few seconds.
const commandTimeout = 90 * time.Second

// bench holds what every workflow shares: the programs it runs.
type bench struct {
	bin    string // the reelier binary built for the test
	npm    string // REELIER_NPM_DIR, absolute
	node   string // node
	envBin string // env, which starts each server with only its world's variables
	agent  string // agent/agent.mjs, absolute
	gitDir string // the folder holding the git program, the git server's only PATH
}

// workflowSpec is one workflow as agent.mjs lists it.
type workflowSpec struct {
	Name       string         `json:"name"`
	Server     string         `json:"server"`
	Needs      string         `json:"needs"` // the flag a truthful skill needs, or "" when the workflow does not say
	Rerunnable bool           `json:"rerunnable"`
	RerunWhy   string         `json:"rerunWhy"`
	Scenarios  []scenarioSpec `json:"scenarios"`
}

type scenarioSpec struct {
	ID   string `json:"id"`
	Kind string `json:"kind"` // irrelevant or relevant
	What string `json:"what"`
}

// call is one tools/call a server received.
type call struct {
	Tool    string          `json:"tool"`
	Args    json.RawMessage `json:"args"`
	IsError bool            `json:"isError"`
}

// agentRun is what agent.mjs play prints.
type agentRun struct {
	Calls     []call `json:"calls"`
	GaveUp    string `json:"gaveUp"`
	Recording *struct {
		Started string `json:"started"`
		Stopped string `json:"stopped"`
	} `json:"recording"`
}

// runRecord is the part of `reelier run --json` the bench reads.
type runRecord struct {
	Passed bool `json:"passed"`
	Steps  []struct {
		N        int      `json:"n"`
		Title    string   `json:"title"`
		Outcome  string   `json:"outcome"`
		Failures []string `json:"failures"`
	} `json:"steps"`
}

// replayRun is one `reelier run` of a skill.
type replayRun struct {
	Exit     int
	Stdout   []byte
	Stderr   string
	Record   *runRecord // nil when the run printed no record (exit 2)
	Received []call     // what the server received, from the spy's log
}

// exec runs a program with a timeout and returns its stdout; a non-zero
// exit is an error carrying stderr.
func (b *bench) exec(ctx context.Context, dir string, env []string, argv ...string) ([]byte, []byte, error) {
	ctx, cancel := context.WithTimeout(ctx, commandTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if err != nil {
		err = fmt.Errorf("%s: %w\n%s", strings.Join(argv, " "), err, lastLines(stderr.String(), 20))
	}
	return stdout.Bytes(), stderr.Bytes(), err
}

// node runs agent.mjs with the given arguments.
func (b *bench) runAgent(ctx context.Context, dir string, args ...string) ([]byte, error) {
	out, _, err := b.exec(ctx, dir, []string{"REELIER_NPM_DIR=" + b.npm}, append([]string{b.node, b.agent}, args...)...)
	return out, err
}

func (b *bench) list(ctx context.Context) ([]workflowSpec, error) {
	out, err := b.runAgent(ctx, filepath.Dir(b.agent), "list")
	if err != nil {
		return nil, err
	}
	var specs []workflowSpec
	return specs, json.Unmarshal(out, &specs)
}

// buildWorld makes dir the named world of a workflow: the seed, then the
// scenario's drift ("seed" for none).
func (b *bench) buildWorld(ctx context.Context, workflow, scenario, dir string) error {
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	_, err := b.runAgent(ctx, filepath.Dir(b.agent), "world", workflow, scenario, dir)
	return err
}

// play runs the agent on the world in dir against the MCP server started
// by argv, recording when record is set.
func (b *bench) play(ctx context.Context, workdir, workflow, world string, record bool, argv []string) (*agentRun, error) {
	args := []string{"play", workflow, world}
	if record {
		args = append(args, "--record")
	}
	args = append(append(args, "--"), argv...)
	out, err := b.runAgent(ctx, workdir, args...)
	if err != nil {
		return nil, err
	}
	var run agentRun
	if err := json.Unmarshal(out, &run); err != nil {
		return nil, fmt.Errorf("agent output: %v\n%s", err, out)
	}
	return &run, nil
}

// serverArgv is the command that starts a workflow's server on the world
// in dir: the official npm server, run by node with no environment but
// its world's (env -i), so nothing of the test's environment reaches it.
func (b *bench) serverArgv(server, dir string) ([]string, error) {
	pkg := func(name string) string {
		return filepath.Join(b.npm, "node_modules", "@modelcontextprotocol", name, "dist", "index.js")
	}
	// The git server gets git and one committer whose clock is fixed, so a
	// tag it creates is the same object in every run; GIT_BASE_DIR keeps
	// it inside the world.
	gitServer := []string{b.envBin, "-i", "PATH=" + b.gitDir, "GIT_BASE_DIR=" + dir, "MCP_LOG_LEVEL=error",
		"GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null",
		"GIT_AUTHOR_NAME=Bench Agent", "GIT_AUTHOR_EMAIL=agent@example.com", "GIT_AUTHOR_DATE=2026-04-01T09:00:00Z",
		"GIT_COMMITTER_NAME=Bench Agent", "GIT_COMMITTER_EMAIL=agent@example.com", "GIT_COMMITTER_DATE=2026-04-01T09:00:00Z",
		b.node, filepath.Join(b.npm, "node_modules", "@cyanheads", "git-mcp-server", "dist", "index.js")}
	switch server {
	case "memory":
		return []string{b.envBin, "-i", "MEMORY_FILE_PATH=" + filepath.Join(dir, "memory.jsonl"), b.node, pkg("server-memory")}, nil
	case "filesystem":
		return []string{b.envBin, "-i", b.node, pkg("server-filesystem"), dir}, nil
	case "everything":
		vars, err := orderedEnv(filepath.Join(dir, "env.json"))
		if err != nil {
			return nil, err
		}
		return append(append([]string{b.envBin, "-i"}, vars...), b.node, pkg("server-everything"), "stdio"), nil
	case "sqlite":
		return []string{b.envBin, "-i", b.node, filepath.Join(b.npm, "node_modules", "@executeautomation", "database-server", "dist", "src", "index.js"),
			filepath.Join(dir, "shop.db")}, nil
	case "git":
		return gitServer, nil
	}
	return nil, fmt.Errorf("unknown server %q", server)
}

// orderedEnv reads an everything world's env.json as NAME=value pairs in
// file order (get-env reports them in that order).
func orderedEnv(path string) ([]string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, fmt.Errorf("%s: not a JSON object", path)
	}
	var vars []string
	for dec.More() {
		var name, value string
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		name, _ = tok.(string)
		if err := dec.Decode(&value); err != nil {
			return nil, fmt.Errorf("%s: %s: %v", path, name, err)
		}
		vars = append(vars, name+"="+value)
	}
	return vars, nil
}

// wrapCommand is argv as one --wrap string, quoted the way reelier splits
// it (POSIX shell words).
func wrapCommand(argv []string) string {
	words := make([]string, len(argv))
	for i, a := range argv {
		words[i] = shellQuote(a)
	}
	return strings.Join(words, " ")
}

var plainWord = regexp.MustCompile(`^[A-Za-z0-9_@%+=:,./-]+$`)

func shellQuote(s string) string {
	if plainWord.MatchString(s) {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// replay runs the skill with writes allowed, against the server behind a
// second `reelier mcp` whose REELIER_MCP_LOG shows what the server
// received.
func (b *bench) replay(ctx context.Context, workdir, skill, spyLog string, serverArgv []string) (*replayRun, error) {
	spy := wrapCommand([]string{b.bin, "mcp", "--trace-dir", filepath.Join(workdir, "spy-traces"), "--wrap", wrapCommand(serverArgv)})
	stdout, stderr, err := b.exec(ctx, workdir, []string{"REELIER_MCP_LOG=" + spyLog},
		b.bin, "run", skill, "--wrap", spy, "--yes", "--json", "--runs-dir", filepath.Join(workdir, "runs"))
	r := &replayRun{Stdout: stdout, Stderr: string(stderr)}
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		r.Exit = exit.ExitCode()
	case err != nil:
		return nil, err
	}
	if line := bytes.TrimSpace(stdout); len(line) > 0 {
		var rec runRecord
		if err := json.Unmarshal(line, &rec); err != nil {
			return nil, fmt.Errorf("reelier run --json printed something that is not a run record: %v\n%s", err, stdout)
		}
		r.Record = &rec
	}
	received, err := spyCalls(spyLog)
	if err != nil {
		return nil, err
	}
	r.Received = received
	return r, nil
}

// replayMock replays the skill against `reelier mock` of the trace it
// was compiled from, offline, and says why when it does not pass.
func (b *bench) replayMock(ctx context.Context, workdir, skill, trace string) error {
	stdout, stderr, err := b.exec(ctx, workdir, nil, b.bin, "run", skill, "--wrap", wrapCommand([]string{b.bin, "mock", trace}),
		"--yes", "--json", "--runs-dir", filepath.Join(workdir, "mock-runs"))
	var rec runRecord
	if jerr := json.Unmarshal(bytes.TrimSpace(stdout), &rec); jerr != nil {
		return fmt.Errorf("%v; no run record: %v\n%s", err, jerr, lastLines(string(stderr), 10))
	}
	if err != nil || !rec.Passed {
		for _, st := range rec.Steps {
			if st.Outcome != "passed" {
				return fmt.Errorf("step %d (%s) %s: %s\n%s", st.N, st.Title, st.Outcome, strings.Join(st.Failures, "; "), lastLines(string(stderr), 10))
			}
		}
		return fmt.Errorf("%v\n%s", err, lastLines(string(stderr), 10))
	}
	return nil
}

// spyCalls reads the tools/call requests (and whether each answer was an
// error) from a REELIER_MCP_LOG file: lines "read: <message>" from the
// client and "write: <message>" to it.
func spyCalls(path string) ([]call, error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil // the spy never started, so the server received nothing
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var calls []call
	byID := map[string]int{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		line := sc.Text()
		var msg struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				Name      string          `json:"name"`
				Arguments json.RawMessage `json:"arguments"`
			} `json:"params"`
			Result *struct {
				IsError bool `json:"isError"`
			} `json:"result"`
			Error json.RawMessage `json:"error"`
		}
		switch {
		case strings.HasPrefix(line, "read: {"):
			if json.Unmarshal([]byte(line[len("read: "):]), &msg) != nil || msg.Method != "tools/call" {
				continue
			}
			byID[string(msg.ID)] = len(calls)
			calls = append(calls, call{Tool: msg.Params.Name, Args: msg.Params.Arguments})
		case strings.HasPrefix(line, "write: {"):
			if json.Unmarshal([]byte(line[len("write: "):]), &msg) != nil || msg.ID == nil {
				continue
			}
			if k, ok := byID[string(msg.ID)]; ok {
				calls[k].IsError = msg.Error != nil || msg.Result != nil && msg.Result.IsError
				delete(byID, string(msg.ID))
			}
		}
	}
	return calls, sc.Err()
}

// worldState is a world folder's content: each file's bytes by its
// slash-separated path, and each folder as "path/" with no content.
type worldState map[string]string

func snapshot(dir string) (worldState, error) {
	st := worldState{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		rel = filepath.ToSlash(rel)
		switch {
		case rel == ".":
		case d.IsDir():
			st[rel+"/"] = ""
		default:
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			st[rel] = string(data)
		}
		return nil
	})
	return st, err
}

func (st worldState) restore(dir string) error {
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for rel, content := range st {
		p := filepath.Join(dir, filepath.FromSlash(strings.TrimSuffix(rel, "/")))
		if strings.HasSuffix(rel, "/") {
			if err := os.MkdirAll(p, 0o755); err != nil {
				return err
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// diffState names the first path where two worlds differ, or "".
func diffState(got, want worldState) string {
	for _, p := range slices.Sorted(maps.Keys(want)) {
		g, ok := got[p]
		switch {
		case !ok:
			return fmt.Sprintf("%s is missing", p)
		case g != want[p]:
			return fmt.Sprintf("%s holds %s; the correct run leaves %s", p, clip(g, 70), clip(want[p], 70))
		}
	}
	for _, p := range slices.Sorted(maps.Keys(got)) {
		if _, ok := want[p]; !ok {
			return fmt.Sprintf("%s should not exist", p)
		}
	}
	return ""
}

// sameCall compares two calls by tool and by the decoded value of their
// arguments (numbers by value, strings never equal to numbers).
func sameCall(a, b call) bool {
	if a.Tool != b.Tool {
		return false
	}
	var av, bv any
	if json.Unmarshal(a.Args, &av) != nil || json.Unmarshal(b.Args, &bv) != nil {
		return bytes.Equal(a.Args, b.Args)
	}
	return reflect.DeepEqual(av, bv)
}

// diffCalls describes the first difference between the calls a replay
// sent and the calls a correct agent sends, or returns "".
func diffCalls(got, want []call) string {
	for i := 0; i < len(got) || i < len(want); i++ {
		switch {
		case i >= len(got):
			return fmt.Sprintf("the replay stopped after %d calls; a correct run goes on with %s %s", len(got), want[i].Tool, clip(string(want[i].Args), 80))
		case i >= len(want):
			return fmt.Sprintf("call %d %s %s; a correct run stops after %d calls", i+1, got[i].Tool, clip(string(got[i].Args), 80), len(want))
		case got[i].Tool != want[i].Tool:
			return fmt.Sprintf("call %d is %s; a correct run calls %s", i+1, got[i].Tool, want[i].Tool)
		case !sameCall(got[i], want[i]):
			var g, w any
			json.Unmarshal(got[i].Args, &g)
			json.Unmarshal(want[i].Args, &w)
			at, gv, wv := firstDifference(g, w, "")
			return fmt.Sprintf("call %d %s sent %s = %s; a correct run sends %s", i+1, got[i].Tool, at, clipJSON(gv), clipJSON(wv))
		}
	}
	return ""
}

// firstDifference finds the first leaf (in key order) where two decoded
// JSON values differ, and returns its path and both values there.
func firstDifference(a, b any, at string) (string, any, any) {
	switch av := a.(type) {
	case map[string]any:
		bv, ok := b.(map[string]any)
		if !ok {
			break
		}
		keys := slices.Sorted(maps.Keys(av))
		for _, k := range slices.Sorted(maps.Keys(bv)) {
			if _, ok := av[k]; !ok {
				keys = append(keys, k)
			}
		}
		for _, k := range keys {
			if !reflect.DeepEqual(av[k], bv[k]) {
				return firstDifference(av[k], bv[k], at+"."+k)
			}
		}
	case []any:
		bv, ok := b.([]any)
		if !ok || len(av) != len(bv) {
			break
		}
		for i := range av {
			if !reflect.DeepEqual(av[i], bv[i]) {
				return firstDifference(av[i], bv[i], fmt.Sprintf("%s.%d", at, i))
			}
		}
	}
	if at == "" {
		at = "the arguments"
	} else {
		at = at[1:]
	}
	return at, a, b
}

func clipJSON(v any) string {
	if v == nil {
		return "nothing"
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.Encode(v)
	return clip(strings.TrimSpace(buf.String()), 90)
}

func clip(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len([]rune(s)) <= n {
		return s
	}
	return string([]rune(s)[:n]) + "…"
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
