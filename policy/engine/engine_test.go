package engine

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reelier/reelier/policy"
)

const sample = `version: 1
default: allow
rules:
  - name: no-deletes
    when: tool.startsWith("delete_") || (annotations.destructiveHint && !annotations.readOnlyHint && effect != "read")
    action: deny
    message: deletes are reviewed by a person
  - name: writes-rehearsed
    when: effect == "write" && server.name == "fs"
    action: dry-run
    message: writes to fs are rehearsed
  - name: mode
    when: has(args.mode) && args.mode == "delete"
    action: ask
    message: confirm the delete mode
`

func mustParse(t *testing.T, src string) *policy.Policy {
	t.Helper()
	p, err := Load("", write(t, "p.yaml", src))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func write(t *testing.T, name, src string) string {
	t.Helper()
	f := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(f, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return f
}

func TestDecide(t *testing.T) {
	p := mustParse(t, sample)
	tests := []struct {
		name string
		call policy.Call
		want policy.Action
		rule string
	}{
		{"delete verb", policy.Call{Tool: "delete_file"}, policy.Deny, "no-deletes"},
		{"destructive hint", policy.Call{Tool: "move", Annotations: map[string]any{"destructiveHint": true}}, policy.Deny, "no-deletes"},
		{"hint defaults", policy.Call{Tool: "move", Effect: "write"}, policy.Deny, "no-deletes"},
		{"write on fs", policy.Call{Tool: "write_file", Effect: "write", Server: policy.Server{Name: "fs"}, Annotations: map[string]any{"destructiveHint": false}}, policy.DryRun, "writes-rehearsed"},
		{"write elsewhere", policy.Call{Tool: "write_file", Effect: "write", Server: policy.Server{Name: "other"}, Annotations: map[string]any{"destructiveHint": false}}, policy.Allow, ""},
		{"mode delete", policy.Call{Tool: "edit", Annotations: map[string]any{"readOnlyHint": true}, Args: map[string]any{"mode": "delete"}}, policy.Ask, "mode"},
		{"mode absent", policy.Call{Tool: "edit", Annotations: map[string]any{"readOnlyHint": true}, Args: map[string]any{"path": "x"}}, policy.Allow, ""},
		{"read", policy.Call{Tool: "read_file", Effect: "read"}, policy.Allow, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := p.Decide(tt.call)
			if d.Action != tt.want || d.Rule != tt.rule {
				t.Fatalf("Decide = %+v, want %s by %q", d, tt.want, tt.rule)
			}
			withStatic := tt.call
			withStatic.Static = policy.NewStatic(tt.call.Server, tt.call.Annotations)
			withStatic.Server, withStatic.Annotations = policy.Server{Name: "ignored"}, nil
			if ds := p.Decide(withStatic); ds != d {
				t.Fatalf("with Static: %+v; without: %+v", ds, d)
			}
			if !strings.HasPrefix(d.Digest, "sha256:") || len(d.Digest) != 71 {
				t.Fatalf("digest %q", d.Digest)
			}
		})
	}
}

func TestDecideFailsClosed(t *testing.T) {
	p := mustParse(t, "default: allow\nrules:\n  - name: unguarded\n    when: args.mode == \"x\"\n    action: allow\n")
	d := p.Decide(policy.Call{Tool: "t", Args: map[string]any{}})
	if d.Action != policy.Deny || d.Rule != "unguarded" || !strings.Contains(d.Message, "no such key") {
		t.Fatalf("Decide = %+v, want deny by unguarded naming the missing key", d)
	}
	var nilP *policy.Policy
	if d := nilP.Decide(policy.Call{Tool: "t"}); d.Action != policy.Allow {
		t.Fatalf("nil policy: %+v", d)
	}
	p = mustParse(t, "default: deny\nrules: []\n")
	if d := p.Decide(policy.Call{Tool: "t"}); d.Action != policy.Deny || d.Rule != "" {
		t.Fatalf("empty deny-default policy: %+v", d)
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name, src, want string
	}{
		{"not yaml", "rules: [\n", "p.yaml:1:1: not YAML:"},
		{"not a mapping", "- a\n", "p.yaml:1:1: a policy is a mapping"},
		{"no rules", "default: deny\n", "p.yaml:1:1: a policy has `rules:`"},
		{"unknown top field", "rules: []\nrulez: []\n", `p.yaml:2:1: unknown field "rulez"`},
		{"unknown rule field", "rules:\n  - name: a\n    when: \"true\"\n    action: deny\n    mesage: x\n", `p.yaml:5:5: unknown field "mesage" in a rule`},
		{"bad action", "rules:\n  - name: a\n    when: \"true\"\n    action: block\n", `p.yaml:4:13: action: "block" is not an action`},
		{"bad default", "default: maybe\nrules: []\n", `p.yaml:1:10: default: "maybe" is not an action`},
		{"no when", "rules:\n  - name: a\n    action: deny\n", `p.yaml:2:5: rule "a" needs a ` + "`when:`"},
		{"no name", "rules:\n  - when: \"true\"\n    action: deny\n", "p.yaml:2:5: a rule needs a name"},
		{"duplicate name", "rules:\n  - {name: a, when: \"true\", action: deny}\n  - {name: a, when: \"true\", action: deny}\n", `p.yaml:3:5: rule "a": the name is used twice`},
		{"syntax error plain", "rules:\n  - name: a\n    when: tool == \n    action: deny\n", `p.yaml:3:`},
		{"unknown variable", "rules:\n  - name: a\n    when: tool == \"x\" && toll == \"y\"\n    action: deny\n", `p.yaml:3:26: rule "a": undeclared reference to 'toll'`},
		{"type error", "rules:\n  - name: a\n    when: tool == 3\n    action: deny\n", `p.yaml:3:16: rule "a": found no matching overload for '_==_'`},
		{"quoted column", "rules:\n  - name: a\n    when: \"effect + 1 == 2\"\n    action: deny\n", `p.yaml:3:19: rule "a": found no matching overload for '_+_'`},
		{"block scalar", "rules:\n  - name: a\n    when: |\n      tool == \"x\" &&\n        nope\n    action: deny\n", `p.yaml:5:9: rule "a": undeclared reference to 'nope'`},
		{"not bool", "rules:\n  - name: a\n    when: tool\n    action: deny\n", `p.yaml:3:11: rule "a": the condition is a string, not a bool`},
		{"version", "version: 2\nrules: []\n", `p.yaml:1:10: unknown version "2"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Load("", write(t, "p.yaml", tt.src))
			if err == nil {
				t.Fatal("loaded")
			}
			got := err.Error()
			i := strings.Index(got, "p.yaml:")
			if i < 0 || !strings.HasPrefix(got[i:], tt.want) {
				t.Fatalf("error\n%s\nwant it to start with\n%s", got, tt.want)
			}
			var es policy.Errors
			if !errors.As(err, &es) {
				t.Fatalf("%T is not policy.Errors", err)
			}
		})
	}
}

func TestSymlinkOutOfProject(t *testing.T) {
	proj := t.TempDir()
	outside := write(t, "elsewhere.yaml", "rules: []\n")
	if err := os.MkdirAll(filepath.Join(proj, ".reelier"), 0o755); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(proj, policy.FileName)
	if err := os.Symlink(outside, link); err != nil {
		t.Fatal(err)
	}
	_, err := Load(proj, link)
	if err == nil || !strings.Contains(err.Error(), "a symbolic link out of the project") {
		t.Fatalf("err = %v", err)
	}
	// A link inside the project is fine.
	in := filepath.Join(proj, "in.yaml")
	if err := os.WriteFile(in, []byte("rules: []\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	os.Remove(link)
	if err := os.Symlink(in, link); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(proj, link); err != nil {
		t.Fatal(err)
	}
}

func TestLoadCombines(t *testing.T) {
	a := write(t, "a.yaml", "rules:\n  - {name: a, when: 'tool == \"x\"', action: deny}\n")
	b := write(t, "b.yaml", "default: deny\nrules:\n  - {name: b, when: 'tool == \"y\"', action: allow}\n")
	p, err := Load("", a, b)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Rules) != 2 || p.Rules[0].Name != "a" || p.Default != policy.Deny {
		t.Fatalf("combined %+v", p)
	}
	if d := p.Decide(policy.Call{Tool: "z"}); d.Action != policy.Deny || d.Rule != "" {
		t.Fatalf("%+v", d)
	}
	pa, _ := Load("", a)
	if pa.Digest == p.Digest {
		t.Fatal("the digest of two files is the first's")
	}
}

func TestFindOrder(t *testing.T) {
	proj := t.TempDir()
	cfg := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", cfg)
	t.Setenv("HOME", cfg)
	if got := policy.Find(proj); len(got) != 0 {
		t.Fatalf("policy.Find = %v with no files", got)
	}
	os.MkdirAll(filepath.Join(proj, ".reelier"), 0o755)
	os.WriteFile(filepath.Join(proj, policy.FileName), []byte("rules: []\n"), 0o644)
	os.MkdirAll(filepath.Join(cfg, "reelier"), 0o755)
	os.WriteFile(filepath.Join(cfg, policy.UserFileName), []byte("rules: []\n"), 0o644)
	got := policy.Find(proj)
	if len(got) != 2 || got[0] != filepath.Join(proj, policy.FileName) || got[1] != filepath.Join(cfg, policy.UserFileName) {
		t.Fatalf("policy.Find = %v", got)
	}
}

func FuzzLoad(f *testing.F) {
	f.Add([]byte(sample))
	f.Add([]byte("rules:\n  - name: a\n    when: |\n      tool == \"x\" &&\n        nope\n    action: deny\n"))
	f.Add([]byte("default: deny\nrules: []\n"))
	f.Add([]byte("rules:\n  - {name: a, when: 'args.x.y[0] > 1.5', action: ask, message: m}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := Parse("f.yaml", data)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "f.yaml:") {
				t.Fatalf("error not at its place: %v", err)
			}
			return
		}
		var args map[string]any
		json.Unmarshal([]byte(`{"mode":"delete","n":1,"x":{"y":[2]}}`), &args)
		d := p.Decide(policy.Call{Tool: "delete_file", Args: args, Effect: "write", Server: policy.Server{Name: "fs"}})
		if !d.Action.Valid() {
			t.Fatalf("decision %+v", d)
		}
	})
}

func BenchmarkDecide50(b *testing.B) {
	var src strings.Builder
	src.WriteString("rules:\n")
	for k := 0; k < 49; k++ {
		fmt.Fprintf(&src, "  - name: r%d\n    when: 'server.name == \"s%d\" && tool.startsWith(\"t%d_\") && has(args.path) && args.path.startsWith(\"/etc\")'\n    action: deny\n", k, k, k)
	}
	src.WriteString("  - name: last\n    when: annotations.readOnlyHint == true\n    action: allow\n")
	p, err := Parse("b.yaml", []byte(src.String()))
	if err != nil {
		b.Fatal(err)
	}
	var args map[string]any
	json.Unmarshal([]byte(`{"path":"/tmp/x","content":"hello"}`), &args)
	c := policy.Call{Server: policy.Server{Name: "fs"}, Tool: "write_file", Args: args,
		Annotations: map[string]any{"readOnlyHint": false}, Effect: "write"}
	b.ReportAllocs()
	for b.Loop() {
		if d := p.Decide(c); d.Action != policy.Allow {
			b.Fatal(d)
		}
	}
}

func TestCostLimit(t *testing.T) {
	p := mustParse(t, "rules:\n  - name: heavy\n    when: 'args.xs.all(a, args.xs.all(b, args.xs.all(c, a + b + c >= 0)))'\n    action: allow\n")
	xs := make([]any, 200)
	for k := range xs {
		xs[k] = float64(k)
	}
	d := p.Decide(policy.Call{Tool: "t", Args: map[string]any{"xs": xs}})
	if d.Action != policy.Deny || !strings.Contains(d.Message, "cost") {
		t.Fatalf("Decide = %+v, want deny over the cost limit", d)
	}
}
