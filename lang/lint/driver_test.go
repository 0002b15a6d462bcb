package lint

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/reelier/reelier/lang/ast"
)

const sample = `---
name: sample
description: A skill with a few problems
---

# Sample

Inputs: none

### Step 1 — Fetch
- intent: Fetch the list
- action: http.get {"url": "https://api.example.test/items"}
- bind: first = json.items.3.id
- effect: read

### Step 2 — Fetch
- intent: Use the first item
- action: http.get {"url": "https://api.example.test/items/{{frist}}"}
- assert: status == 200
- effect: read
`

func codes(ds ast.Diagnostics) []string {
	var out []string
	for _, d := range ds {
		out = append(out, d.Code)
	}
	return out
}

func TestConfig(t *testing.T) {
	tests := []struct {
		name    string
		cfg     Config
		want    []string // codes found in sample, in order
		wantErr string
	}{
		{"defaults", Config{}, []string{"unchecked_step", "unused_bind", "drift_index", "duplicate_title", "unbound_variable"}, ""},
		{"disable one", Config{Disable: []string{"drift_index"}}, []string{"unchecked_step", "unused_bind", "duplicate_title", "unbound_variable"}, ""},
		{"only one", Config{Disable: []string{AllRules}, Enable: []string{"drift_index"}}, []string{"drift_index"}, ""},
		{"named beats all", Config{Enable: []string{AllRules}, Disable: []string{"unused_bind", "duplicate_title"}}, []string{"unchecked_step", "drift_index", "unbound_variable"}, ""},
		{"flags over file", Config{Enable: []string{"drift_index"}, Base: &Config{Disable: []string{AllRules}}}, []string{"drift_index"}, ""},
		{"file under flags", Config{Disable: []string{"drift_index"}, Base: &Config{Disable: []string{AllRules}, Enable: []string{"drift_index", "unbound_variable"}}}, []string{"unbound_variable"}, ""},
		{"unknown rule", Config{Enable: []string{"drift_indx"}}, nil, `unknown lint rule "drift_indx". Did you mean "drift_index"?`},
		{"unknown far", Config{Disable: []string{"zzz"}}, nil, `unknown lint rule "zzz" (see docs/lint.md`},
		{"unknown in base", Config{Base: &Config{Disable: []string{"zzz"}}}, nil, `unknown lint rule "zzz"`},
		{"unknown severity rule", Config{Severity: map[string]ast.Severity{"zzz": ast.SeverityInfo}}, nil, `unknown lint rule "zzz"`},
		{"both", Config{Enable: []string{"drift_index"}, Disable: []string{"drift_index"}}, nil, "both enabled and disabled"},
		{"parse_error off", Config{Disable: []string{"parse_error"}}, nil, "cannot be disabled"},
		{"parse_error severity", Config{Severity: map[string]ast.Severity{"parse_error": ast.SeverityWarning}}, nil, "always error"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.cfg.Today = testToday
			d, err := New(tt.cfg)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("New = %v, want error containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got := codes(d.Run(ParseFile("sample.skill.md", []byte(sample))))
			if strings.Join(got, " ") != strings.Join(tt.want, " ") {
				t.Errorf("codes = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestSeverityOverride(t *testing.T) {
	d, err := New(Config{
		Severity: map[string]ast.Severity{"drift_index": ast.SeverityError},
		Base:     &Config{Severity: map[string]ast.Severity{"drift_index": ast.SeverityHint, "unused_bind": ast.SeverityInfo}},
	})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]ast.Severity{"drift_index": ast.SeverityError, "unused_bind": ast.SeverityInfo, "duplicate_title": ast.SeverityWarning}
	for _, dg := range d.Run(ParseFile("s", []byte(sample))) {
		if w, ok := want[dg.Code]; ok && dg.Severity != w {
			t.Errorf("%s severity = %s, want %s", dg.Code, dg.Severity, w)
		}
	}
}

func TestLoadConfig(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	cfg, err := LoadConfig(write("ok.toml", "disable = [\"drift_index\"]\nenable = [\"all\"]\n[severity]\nunused_bind = \"error\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	if len(cfg.Disable) != 1 || cfg.Disable[0] != "drift_index" || len(cfg.Enable) != 1 || cfg.Severity["unused_bind"] != ast.SeverityError {
		t.Errorf("cfg = %+v", cfg)
	}
	for name, text := range map[string]string{
		"unknown key":  "disabled = [\"x\"]\n",
		"bad severity": "[severity]\nunused_bind = \"fatal\"\n",
		"bad toml":     "disable = [\n",
	} {
		if _, err := LoadConfig(write("bad.toml", text)); err == nil {
			t.Errorf("%s: LoadConfig accepted %q", name, text)
		}
	}
	if _, err := LoadConfig(filepath.Join(dir, "missing.toml")); err == nil {
		t.Error("LoadConfig accepted a missing file")
	}
}

func TestFindConfig(t *testing.T) {
	root := t.TempDir()
	sub := filepath.Join(root, "a", "b")
	if err := os.MkdirAll(filepath.Join(root, ".reelier"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	want := filepath.Join(root, ConfigPath)
	if err := os.WriteFile(want, []byte("disable = []\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := FindConfig(sub); got != want {
		t.Errorf("FindConfig = %q, want %q", got, want)
	}
	if got := FindConfig(t.TempDir()); got != "" {
		t.Errorf("FindConfig in an empty tree = %q", got)
	}
}

func TestSuppression(t *testing.T) {
	src := strings.NewReplacer(
		"### Step 2 — Fetch", "<!-- reelier:ignore duplicate_title -->\n### Step 2 — Fetch",
		"- bind: first", "<!-- reelier:ignore drift_index, unused_bind -->\n- bind: first",
		"- action: http.get {\"url\": \"https://api.example.test/items/", "<!-- reelier:ignore -->\n- action: http.get {\"url\": \"https://api.example.test/items/",
		"### Step 1 — Fetch", "<!-- reelier:ignore unused_bind -->\n### Step 1 — Fetch",
	).Replace(sample)
	d, err := New(Config{Today: testToday})
	if err != nil {
		t.Fatal(err)
	}
	got := codes(d.Run(ParseFile("s", []byte(src))))
	// The comment above step 1 names another rule, so unchecked_step stays.
	if strings.Join(got, " ") != "unchecked_step" {
		t.Errorf("codes = %v, want [unchecked_step]\n%s", got, src)
	}
	// Parse errors cannot be silenced.
	broken := "<!-- reelier:ignore -->\n" + strings.Replace(sample, "- effect: read\n", "", 1)
	if got := codes(d.Run(ParseFile("s", []byte(broken)))); len(got) == 0 || got[0] != "parse_error" {
		t.Errorf("parse errors were silenced: %v", got)
	}
}

func TestFindIgnores(t *testing.T) {
	src := "a\n<!-- reelier:ignore x y,z -->\n  <!--reelier:ignore-->  \n<!-- reelier:ignorex -->\n<!-- other -->\n<!-- reelier:ignore x\n"
	got := findIgnores([]byte(src))
	if !got[2].covers("z") || got[2].covers("w") {
		t.Errorf("line 2: %v", got[2])
	}
	if !got[3].covers("anything") {
		t.Errorf("line 3: %v", got[3])
	}
	for _, line := range []int{1, 4, 5, 6} {
		if got[line] != nil {
			t.Errorf("line %d: %v, want no comment", line, got[line])
		}
	}
}

func TestParseErrorsStopOtherRules(t *testing.T) {
	d, err := New(Config{})
	if err != nil {
		t.Fatal(err)
	}
	broken := strings.Replace(sample, "- effect: read\n", "- effect: maybe\n", 1)
	for _, dg := range d.Run(ParseFile("s", []byte(broken))) {
		if dg.Code != "parse_error" {
			t.Errorf("rule %s ran on a file that does not parse", dg.Code)
		}
	}
}

// testRule builds a rule for driver tests.
func testRule(name string, run func(*Pass)) *Rule {
	return &Rule{Name: name, Title: "t", Doc: "d", Example: "e", Category: CategoryClarity, Run: run}
}

func TestBadFixesAreRefused(t *testing.T) {
	src := []byte(sample)
	f := ParseFile("s", src)
	at := func(off int) ast.Range {
		return ast.Range{Start: ast.Pos{Offset: int32(off), Line: 1, Column: int32(off + 1)}, End: ast.Pos{Offset: int32(off + 3), Line: 1, Column: int32(off + 4)}}
	}
	overlap := testRule("overlap", func(p *Pass) {
		p.Report(ast.Diagnostic{Range: at(0), Message: "m", Fixes: fix("two edits", replace(at(0), "a"), replace(at(1), "b"))})
	})
	outside := testRule("outside", func(p *Pass) {
		p.Report(ast.Diagnostic{Range: at(0), Message: "m", Fixes: fix("far", replace(at(len(src)), "x"))})
	})
	same := testRule("same_point", func(p *Pass) {
		p.Report(ast.Diagnostic{Range: at(0), Message: "m", Fixes: fix("twice", p.insertAt(4, "a"), p.insertAt(4, "b"))})
	})
	d, err := newDriver([]*Rule{overlap, outside, same}, Config{})
	if err != nil {
		t.Fatal(err)
	}
	var bugs int
	for _, dg := range d.Run(f) {
		if strings.Contains(dg.Message, "internal error") {
			bugs++
			continue
		}
		if len(dg.Fixes) != 0 {
			t.Errorf("%s kept a bad fix", dg.Code)
		}
	}
	if bugs != 3 {
		t.Errorf("%d bug reports, want 3", bugs)
	}
}

func TestFixThatBreaksTheFileIsRefused(t *testing.T) {
	breaker := testRule("breaker", func(p *Pass) {
		// Deleting the frontmatter fence makes the file unparseable.
		p.Report(ast.Diagnostic{Range: p.span(0, 3), Message: "breaks", Fixes: fix("Delete the fence", replace(p.span(0, 3), ""))})
	})
	d, err := newDriver([]*Rule{breaker, ruleDriftIndex, ruleUncheckedStep}, Config{})
	if err != nil {
		t.Fatal(err)
	}
	res := d.Fix(ParseFile("s", []byte(sample)))
	if !res.Changed() || res.Applied != 1 {
		t.Fatalf("applied %d fixes, want the one good fix", res.Applied)
	}
	if !strings.HasPrefix(string(res.Src), "---\n") || !strings.Contains(string(res.Src), "- assert: status == 200\n- bind: first") {
		t.Errorf("unexpected result:\n%s", res.Src)
	}
	var bug *ast.Diagnostic
	for i, dg := range res.Diagnostics {
		if dg.Code == "breaker" && strings.Contains(dg.Message, "internal error") {
			bug = &res.Diagnostics[i]
		}
	}
	if bug == nil || bug.Severity != ast.SeverityError || !strings.Contains(bug.Message, "would not parse") {
		t.Fatalf("no bug report for the breaking fix:\n%s", renderDiagnostics(res.Diagnostics))
	}
}

func TestFixLeavesUnparseableFilesAlone(t *testing.T) {
	d, err := New(Config{})
	if err != nil {
		t.Fatal(err)
	}
	broken := []byte(strings.Replace(sample, "- effect: read\n", "- effect: maybe\n", 1))
	res := d.Fix(ParseFile("s", broken))
	if res.Changed() || string(res.Src) != string(broken) {
		t.Error("Fix changed a file that does not parse")
	}
	if !res.Diagnostics.HasErrors() {
		t.Error("the parse error was not reported")
	}
}

// TestFixChain fixes a secret, which leaves an input to document, which a
// second pass documents; fixing the result again changes nothing.
func TestFixChain(t *testing.T) {
	src := strings.Replace(sample, `"https://api.example.test/items"}`, `"https://api.example.test/items", "headers": {"X-Api-Key": "3f9a2c7e103f9a2c7e103f9a2c7e103f9a2c7e10"}}`, 1)
	src = strings.Replace(src, "{{frist}}", "{{first}}", 1)
	d, err := New(Config{Today: testToday})
	if err != nil {
		t.Fatal(err)
	}
	res := d.Fix(ParseFile("s.skill.md", []byte(src)))
	out := string(res.Src)
	for _, want := range []string{`"X-Api-Key": "{{x_api_key}}"`, "Inputs: {{x_api_key}}", "- assert: status == 200\n- bind: first"} {
		if !strings.Contains(out, want) {
			t.Errorf("fixed file lacks %q:\n%s", want, out)
		}
	}
	checkFixed(t, d, "s.skill.md", res.Src)
}

func TestBOMFix(t *testing.T) {
	src := append([]byte{0xEF, 0xBB, 0xBF}, sample...)
	d := onlyRule(t, "unchecked_step")
	res := d.Fix(ParseFile("s", src))
	if !res.Changed() || !strings.HasPrefix(string(res.Src), "\xEF\xBB\xBF---\n") || !strings.Contains(string(res.Src), "- assert: status == 200") {
		t.Errorf("BOM file fixed wrongly:\n%q", res.Src)
	}
	checkFixed(t, d, "s", res.Src)
}

func TestSuggest(t *testing.T) {
	cands := []string{"order_id", "customer", "today", "abc", "abd"}
	tests := map[string]string{
		"orderid": "order_id", "custmer": "customer", "Today": "today", "toda": "today",
		"zzz": "", "abx": "abc", "customer_name": "", "": "",
	}
	for in, want := range tests {
		if got := suggest(in, cands); got != want {
			t.Errorf("suggest(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestDateLiteralStableAcrossDays lints one skill as if run on three
// different days: the date_literal messages must not change (baselines and
// SARIF fingerprints depend on them), only the offered fix may, and a date
// inside prose is never given a fix.
func TestDateLiteralStableAcrossDays(t *testing.T) {
	src := strings.Replace(sample, `"url": "https://api.example.test/items"`,
		`"url": "https://api.example.test/items?since=2026-07-10", "note": "signed up 2026-07-10 after the trial"`, 1)
	if !strings.Contains(src, "signed up") {
		t.Fatal("sample changed: no step took the dated arguments")
	}
	var first []string
	for i, day := range []string{"2026-07-10", "2026-07-17", "2027-09-01"} {
		today, _ := time.Parse(time.DateOnly, day)
		d, err := New(Config{Today: today})
		if err != nil {
			t.Fatal(err)
		}
		var msgs []string
		for _, dg := range d.Run(ParseFile("s", []byte(src))) {
			if dg.Code != "date_literal" {
				continue
			}
			msgs = append(msgs, dg.Message)
			prose := strings.Contains(dg.Message, "inside text")
			if prose && len(dg.Fixes) != 0 {
				t.Errorf("%s: a date inside prose was given a fix: %v", day, dg.Fixes)
			}
			if !prose && day != "2027-09-01" && len(dg.Fixes) == 0 {
				t.Errorf("%s: the URL date within 365 days got no fix", day)
			}
		}
		if len(msgs) != 2 {
			t.Fatalf("%s: %d date_literal findings, want 2: %q", day, len(msgs), msgs)
		}
		if i == 0 {
			first = msgs
		} else if strings.Join(msgs, "\n") != strings.Join(first, "\n") {
			t.Errorf("messages changed between days:\n%q\n%q", first, msgs)
		}
	}
}

// TestDocumentedInputs reads inputs from an Inputs line and from the text
// under an Inputs heading, each with the line that documents it.
func TestDocumentedInputs(t *testing.T) {
	for _, tc := range []struct {
		preamble string
		want     string
		// metadata, when set, is the frontmatter's metadata block.
		metadata string
	}{
		{preamble: "Inputs: `{{owner}}`, `{{repo}}` — what to read.\n", want: "owner@Inputs: `{{owner}}`, `{{repo}}` — what to read. repo@Inputs: `{{owner}}`, `{{repo}}` — what to read."},
		{preamble: "## Inputs\n\n- `{{owner}}`: the account\r\n- `{{repo}}`: its repository\n\n## Other\n\n{{later}}\n", want: "owner@- `{{owner}}`: the account repo@- `{{repo}}`: its repository"},
		{preamble: "Inputs: none\n", want: ""},
		{metadata: "metadata:\n  reelier-inputs: \"{{owner}} the account, {{repo}}\"\n", want: "owner@reelier-inputs: \"{{owner}} the account, {{repo}}\" repo@reelier-inputs: \"{{owner}} the account, {{repo}}\""},
		{preamble: "Inputs: {{owner}}\n", metadata: "metadata: {reelier-inputs: \"{{repo}}\", owner: me}\n", want: "owner@Inputs: {{owner}} repo@reelier-inputs: \"{{repo}}\""},
	} {
		src := "---\nname: x\ndescription: x\n" + tc.metadata + "---\n\n# X\n\n" + tc.preamble + "\n### Step 1 — A\n- intent: a\n- action: t {}\n- assert: status == 200\n- effect: read\n"
		f := ParseFile("s", []byte(src))
		var got []string
		for _, in := range DocumentedInputs(f.Skill) {
			if name := src[in.Offset : in.Offset+len(in.Name)]; name != in.Name {
				t.Errorf("offset %d holds %q, want %q", in.Offset, name, in.Name)
			}
			got = append(got, in.Name+"@"+in.Line)
		}
		if strings.Join(got, " ") != tc.want {
			t.Errorf("DocumentedInputs(%q) = %q, want %q", tc.preamble, strings.Join(got, " "), tc.want)
		}
	}
}
