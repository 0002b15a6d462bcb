package compile_test

import (
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/reelier/reelier/compile"
	"github.com/reelier/reelier/lang/agentskill"
	"github.com/reelier/reelier/lang/format"
	"github.com/reelier/reelier/trace"
)

// TestFindings holds the compiler to each finding of the [truth] issue,
// measured on real servers and reproduced here on traces shaped like those
// recordings (testdata/traces/36–40). Each case names what must, and what
// must not, appear in the compiled skill; each failed on the compiler
// before the fix (see the closing note for the run).
func TestFindings(t *testing.T) {
	tests := []struct {
		finding string
		trace   string
		want    []string // lines (or regexps, when they start with ~) the skill must have
		wantNot []string // substrings the skill must not have
	}{
		{
			finding: "values the agent typed and the server echoed are not dataflow",
			trace:   "36-memory-echo.jsonl",
			want:    []string{`- action: create_relations {"relations": [{"from": "Dana Lee", "to": "Acme Corp", "relationType": "works_at"}]}`},
			wantNot: []string{`"from": "{{`, `"entityName": "{{`},
		},
		{
			finding: "a search keyword is not bound to an unrelated field of an earlier result",
			trace:   "36-memory-echo.jsonl",
			want:    []string{`- action: search_nodes {"query": "customer"}`},
		},
		{
			finding: "a search that finds another entity first does not feed it on: the pick is by what the step asked for",
			trace:   "36-memory-echo.jsonl",
			want:    []string{`- bind: entity_name = only(json.entities where entityType == "customer").name`, `- action: open_nodes {"names": ["{{entity_name}}"]}`},
		},
		{
			finding: "a name from a text listing is bound, inside the longer path that holds it",
			trace:   "37-filesystem-text.jsonl",
			want:    []string{`~^- bind: file_name = body match /.*\\\[FILE\\\] `, `- action: read_text_file {"path": "/srv/world/inbox/{{file_name}}"}`},
		},
		{
			finding: "the bound name reaches every path that contains it (move_file's source and destination)",
			trace:   "37-filesystem-text.jsonl",
			want:    []string{`- action: move_file {"source": "/srv/world/inbox/{{file_name}}", "destination": "/srv/world/inbox/archive/{{file_name}}"}`},
		},
		{
			finding: "the content a write was derived from is checked, so a change fails instead of writing a stale summary",
			trace:   "37-filesystem-text.jsonl",
			want:    []string{`- assert: body contains "Quarterly report Q3"`, `- assert: body contains "Revenue: 1200"`, `- assert: body contains "Cost: 800"`},
		},
		{
			finding: "prose the agent wrote from a result is named by an open question",
			trace:   "37-filesystem-text.jsonl",
			want:    []string{`~^- Step 3 \(write_file\): the text the argument content sends repeats words of step 2's result \("Quarterly", "report"\)`},
		},
		{
			finding: "a short number from a structured result flows on (corroborated: the only one in the result just before)",
			trace:   "38-structured-number.jsonl",
			want:    []string{`- bind: temperature = json.temperature`, `- action: get-sum {"a": "{{temperature}}", "b": 4}`},
		},
		{
			finding: "structuredContent is what json paths read",
			trace:   "38-structured-number.jsonl",
			want:    []string{`- assert: json.conditions == "Sunny"`},
		},
		{
			finding: "asserts check values and types, not only status and presence",
			trace:   "38-structured-number.jsonl",
			want:    []string{`- assert: json.temperature is number`, `- assert: json.humidity == 70`},
			wantNot: []string{` is set`},
		},
		{
			finding: "two redacted secrets are never one value: each becomes an input with a question",
			trace:   "39-redacted-secrets.jsonl",
			want: []string{`- action: refund_charge {"charge": "ch_3PqR7x", "stripe_key": "{{stripe_key}}", "auth": "Bearer {{auth}}"}`,
				"Inputs: `{{password}}`, `{{stripe_key}}`, `{{auth}}` — values the recording redacted; supply each as REELIER_VAR_<name> in the environment, in a --var-file, or with --var name=value.",
				`~^- Step 2 \(refund_charge\): the recording redacted a secret here, .* \{\{stripe_key\}\}`},
			wantNot: []string{"Open questions: none", "«redacted»\"}"},
		},
		{
			finding: "odd results: an image is described, disagreeing text and structure get a question, nothing panics",
			trace:   "40-odd-results.jsonl",
			want: []string{`- assert: body contains "[image image/png, 12 bytes of base64]"`,
				`~^- Step 2 \(get_status\): the result's text and its structuredContent disagree`,
				`- assert: json.state == "down"`},
		},
	}
	for _, tt := range tests {
		t.Run(tt.finding, func(t *testing.T) {
			path := filepath.Join("testdata", "traces", tt.trace)
			tr, err := trace.Load(path)
			if err != nil {
				t.Fatal(err)
			}
			out, err := compile.Compile(tr, compile.Options{Source: tt.trace, Now: fixedNow})
			if err != nil {
				t.Fatal(err)
			}
			src := string(format.Source(out.Skill))
			checkLines(t, src, tt.want, tt.wantNot)
		})
	}
}

// TestAgentSkillNames: whatever the recording was called, the compiled
// skill's name and description pass the Agent Skills constraints.
func TestAgentSkillNames(t *testing.T) {
	for _, name := range []string{"My Claude_Session!! <x>", "ÄÖÜ", strings.Repeat("long-name-", 20), "anthropic"} {
		meta := `{"t":"meta","seq":0,"name":` + strconv.Quote(name) + `,"startedAt":"2026-07-18T14:02:00.000Z","wrapped":[]}` + "\n"
		out, err := readAndCompile(meta+`{"t":"call","seq":1,"i":0,"ts":"s","tool":"get_x","args":{}}`+"\n", compile.Options{Source: "the <b>trace</b>.jsonl"})
		if err != nil {
			t.Fatal(err)
		}
		got := out.Skill.Name()
		if p := agentskill.NameProblems(got); len(p) > 0 {
			t.Errorf("%q compiled to the name %q: %v", name, got, p)
		}
		if p := agentskill.DescriptionProblems(out.Skill.Frontmatter.Lookup("description").Value); len(p) > 0 {
			t.Errorf("%q: description %v", name, p)
		}
	}
}

// checkLines checks a compiled skill: each of want is a line of it (or,
// after "~", a pattern one line matches), none of wantNot is in it; on a
// failure the skill is logged.
func checkLines(t *testing.T, src string, want, wantNot []string) {
	t.Helper()
	lines := strings.Split(src, "\n")
	for _, w := range want {
		if re, ok := strings.CutPrefix(w, "~"); ok {
			rx := regexp.MustCompile(re)
			found := false
			for _, l := range lines {
				found = found || rx.MatchString(l)
			}
			if !found {
				t.Errorf("no line matches %s", re)
			}
			continue
		}
		if !strings.Contains(src, w+"\n") {
			t.Errorf("missing line: %s", w)
		}
	}
	for _, w := range wantNot {
		if strings.Contains(src, w) {
			t.Errorf("must not contain %q", w)
		}
	}
	if t.Failed() {
		t.Logf("compiled skill:\n%s", src)
	}
}
