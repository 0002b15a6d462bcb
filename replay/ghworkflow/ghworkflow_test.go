package ghworkflow

import (
	"errors"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reelier/reelier/testkit/testutil"
	"go.yaml.in/yaml/v3"
)

const ref = "0123456789abcdef0123456789abcdef01234567"

// repoSkills lists the skill files of testdata/repo the way `reelier ci`
// finds them (every *.skill.md and SKILL.md, in walk order).
func repoSkills(t *testing.T) []string {
	var out []string
	err := filepath.WalkDir("testdata/repo", func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && (strings.HasSuffix(p, ".skill.md") || d.Name() == "SKILL.md") {
			out = append(out, p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestGenerate: the workflow for a repository with an http skill and
// skills on two different MCP servers: one job for the http skill, one
// per server list (the two CRM skills share theirs), each with its wrap
// lines, the inputs and writing steps named in comments, the Action
// pinned by SHA and every other action pinned too. It is valid YAML, and
// actionlint finds nothing in it.
func TestGenerate(t *testing.T) {
	data, err := Generate(Options{Root: "testdata/repo", Skills: repoSkills(t), Action: "reelier/reelier", Ref: ref, Version: "v0.test", AllowWrites: true, Comment: true})
	if err != nil {
		t.Fatal(err)
	}
	testutil.Golden(t).Assert(t, "workflow", data)
	var wf struct {
		Jobs map[string]struct {
			Steps []struct {
				Uses string
				With map[string]string
			}
		}
	}
	if err := yaml.Unmarshal(data, &wf); err != nil {
		t.Fatalf("not YAML: %v", err)
	}
	if len(wf.Jobs) != 3 {
		t.Fatalf("%d jobs, want 3 (http, crm, memory)", len(wf.Jobs))
	}
	crm := wf.Jobs["replay-2"].Steps[1].With
	if crm["skills"] != "skills/crm/followup.skill.md\nskills/crm/lookup.skill.md\n" || crm["wrap"] != "npx -y @acme/crm-mcp@1.2.0\n" || crm["allow-writes"] != "true" || crm["yes"] != "" {
		t.Errorf("the CRM job: %q", crm)
	}
	actionlint(t, data)
}

// actionlint runs actionlint on the workflow: the one .ci/run installs
// (REELIER_ACTIONLINT), else one on PATH, else one findActionlint builds.
// Under CI a missing actionlint fails the test.
func actionlint(t *testing.T, data []byte) {
	t.Helper()
	bin, err := findActionlint()
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("CI is set but actionlint is not: .ci/run installs it and sets REELIER_ACTIONLINT (%v)", err)
		}
		t.Logf("actionlint could not be found or built (set REELIER_ACTIONLINT); the workflow was not linted: %v", err)
		return
	}
	dir := t.TempDir()
	wf := filepath.Join(dir, ".github", "workflows", "reelier.yml")
	os.MkdirAll(filepath.Dir(wf), 0o755)
	if err := os.WriteFile(wf, data, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "-no-color", ".github/workflows/reelier.yml")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("actionlint: %v\n%s", err, out)
	}
}

// TestGenerateRefuses: what the workflow could not carry is an error
// naming it, and nothing is generated.
func TestGenerateRefuses(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte(content), 0o644)
		return p
	}
	skill := func(servers string) string {
		return "---\nname: s\ndescription: d\n---\n" + servers + "\n## Steps\n\n### Step 1 — A\n- intent: a\n- action: http.get {\"url\": \"https://x.example\"}\n- assert: status == 200\n- effect: read\n"
	}
	ok := write("ok.skill.md", skill(""))
	tests := []struct {
		name string
		opts Options
		want string
	}{
		{"a tag", Options{Root: dir, Skills: []string{ok}, Ref: "v1"}, `the action ref "v1" is not a full commit SHA`},
		{"an upper-case SHA", Options{Root: dir, Skills: []string{ok}, Ref: strings.ToUpper(ref)}, "not a full commit SHA"},
		{"no skills", Options{Root: dir, Ref: ref}, "no skill found under " + dir},
		{"a skill that does not parse", Options{Root: dir, Skills: []string{write("bad.skill.md", "---\nname: b\n---\n")}, Ref: ref}, "bad.skill.md does not parse"},
		{"a path with a space", Options{Root: dir, Skills: []string{write("my skill.skill.md", skill(""))}, Ref: ref}, "holds white space"},
		{"an expression in a server command", Options{Root: dir, Skills: []string{write("x.skill.md", skill("\n## Servers\n- `x`: `run ${{ secrets.TOKEN }}`\n"))}, Ref: ref}, "holds ${{"},
		{"a skill outside the root", Options{Root: filepath.Join(dir, "sub"), Skills: []string{ok}, Ref: ref}, "is not inside"},
		{"an unknown sign mode", Options{Root: dir, Skills: []string{ok}, Ref: ref, Sign: "always"}, `sign "always": want off, keyless, key`},
		{"--no-writes with --allow-writes", Options{Root: dir, Skills: []string{ok}, Ref: ref, NoWrites: true, AllowWrites: true}, "--no-writes leaves the writing skills out, --allow-writes and --yes let them run: give one"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data, err := Generate(tt.opts)
			if err == nil || !strings.Contains(err.Error(), tt.want) || data != nil {
				t.Errorf("err %v, want %q", err, tt.want)
			}
		})
	}
}

// TestGenerateSign: the sign modes. Off (and unset) writes no sign input
// and grants nothing beyond reading the contents; keyless passes sign to
// the Action and grants id-token and attestations write, and only then;
// key passes the key secret and grants nothing more. Each reads back as
// YAML and passes actionlint.
func TestGenerateSign(t *testing.T) {
	skills := repoSkills(t)
	for _, tt := range []struct {
		sign        string
		permissions map[string]string
		with        map[string]string
	}{
		{"", map[string]string{"contents": "read"}, nil},
		{SignOff, map[string]string{"contents": "read"}, nil},
		{SignKeyless, map[string]string{"contents": "read", "id-token": "write", "attestations": "write"}, map[string]string{"sign": "keyless"}},
		{SignKey, map[string]string{"contents": "read"}, map[string]string{"sign": "key", "signing-key": "${{ secrets.REELIER_SIGNING_KEY }}"}},
	} {
		t.Run("sign="+tt.sign, func(t *testing.T) {
			data, err := Generate(Options{Root: "testdata/repo", Skills: skills, Action: "reelier/reelier", Ref: ref, Version: "v0.test", Sign: tt.sign, AllowWrites: true})
			if err != nil {
				t.Fatal(err)
			}
			var wf struct {
				Permissions map[string]string
				Jobs        map[string]struct {
					Permissions map[string]string
					Steps       []struct {
						Uses string
						With map[string]string
					}
				}
			}
			if err := yaml.Unmarshal(data, &wf); err != nil {
				t.Fatalf("not YAML: %v", err)
			}
			if !maps.Equal(wf.Permissions, tt.permissions) {
				t.Errorf("permissions %v, want %v", wf.Permissions, tt.permissions)
			}
			for id, j := range wf.Jobs {
				if j.Permissions != nil {
					t.Errorf("job %s has its own permissions %v", id, j.Permissions)
				}
				with := j.Steps[1].With
				for _, k := range []string{"sign", "signing-key"} {
					if with[k] != tt.with[k] {
						t.Errorf("job %s: %s %q, want %q", id, k, with[k], tt.with[k])
					}
				}
			}
			if tt.sign == SignKeyless || tt.sign == SignKey {
				testutil.Golden(t).Assert(t, "workflow-"+tt.sign, data)
			}
			actionlint(t, data)
		})
	}
}

// TestWrite: an existing workflow is replaced only with force.
func TestWrite(t *testing.T) {
	p := filepath.Join(t.TempDir(), ".github", "workflows", "reelier.yml")
	if err := Write(p, []byte("one\n"), false); err != nil {
		t.Fatal(err)
	}
	if err := Write(p, []byte("two\n"), false); !errors.Is(err, ErrExists) {
		t.Errorf("second write: %v", err)
	}
	if got, _ := os.ReadFile(p); string(got) != "one\n" {
		t.Errorf("the file was changed: %q", got)
	}
	if err := Write(p, []byte("two\n"), true); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(p); string(got) != "two\n" {
		t.Errorf("with force: %q", got)
	}
}

// TestLocalPath: a command naming a path only the recording machine has
// is found, wherever the word is; standard binary folders, repository
// paths, packages and URLs are not.
func TestLocalPath(t *testing.T) {
	tests := []struct{ command, want string }{
		{"npx -y @modelcontextprotocol/server-memory", ""},
		{"node ./tools/server.js --port 3000", ""},
		{"tools/server --db data/x.db", ""},
		{"/usr/bin/env node server.js", ""},
		{"/usr/local/bin/mcp-server --log /dev/null", ""},
		{"https://mcp.example.test/mcp", ""},
		{"node /tmp/reelier-dev/server.js", "/tmp/reelier-dev/server.js"},
		{"/home/dev/bin/mcp-server --stdio", "/home/dev/bin/mcp-server"},
		{"npx -y mcp-sqlite --db=/Users/dev/data.db", "/Users/dev/data.db"},
		{"~/bin/server", "~/bin/server"},
		{"sh -c '$HOME/server'", "$HOME/server"},
		{"$HOME/server --x", "$HOME/server"},
		{`C:\Users\dev\server.exe`, `C:\Users\dev\server.exe`},
		{"/usr/bin/../../tmp/x", "/usr/bin/../../tmp/x"},
		{"/usr/bin/sub/dir/x", "/usr/bin/sub/dir/x"},
		{"/opt/server", "/opt/server"},
		{"node '/var/folders/xy/T/server.js'", "/var/folders/xy/T/server.js"},
		{"node 'unbalanced /tmp/x", "/tmp/x"},
	}
	for _, tt := range tests {
		if got := LocalPath(tt.command); got != tt.want {
			t.Errorf("LocalPath(%q) = %q, want %q", tt.command, got, tt.want)
		}
	}
}

// TestWrites: steps that write are decided or refused. Undecided, Render
// refuses with a *WritesError listing each writing step at file:line and
// the flags; --allow-writes covers idempotent writes and not destructive
// steps; --yes covers both; --no-writes leaves the writing skills out,
// and refuses when it leaves none. Each workflow written passes
// actionlint.
func TestWrites(t *testing.T) {
	dir := t.TempDir()
	write := func(name, effect string) string {
		p := filepath.Join(dir, name)
		src := "---\nname: " + strings.TrimSuffix(name, ".skill.md") + "\ndescription: d\n---\n\n## Steps\n\n### Step 1 — A\n- intent: a\n- action: http.get {\"url\": \"https://x.example\"}\n- assert: status == 200\n- effect: read\n\n" +
			"### Step 2 — B\n- intent: b\n- action: http.post {\"url\": \"https://x.example\", \"body\": {}}\n- assert: status == 200\n- effect: " + effect + "\n"
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	read := write("reads.skill.md", "read")
	idem := write("idem.skill.md", "idempotent-write")
	destr := write("destr.skill.md", "destructive")
	type with = map[string]string
	tests := []struct {
		name                string
		skills              []string
		allow, yes, noWrite bool
		undecided           []string // WriteStep strings
		jobSkills, err      string
		with                with
	}{
		{name: "only reads", skills: []string{read}, jobSkills: "reads.skill.md\n", with: with{}},
		{name: "undecided", skills: []string{read, idem, destr}, undecided: []string{"idem.skill.md:14: step 2 (idempotent-write)", "destr.skill.md:14: step 2 (destructive)"}},
		{name: "allow-writes, a destructive step left", skills: []string{idem, destr}, allow: true, undecided: []string{"destr.skill.md:14: step 2 (destructive)"}},
		{name: "allow-writes", skills: []string{read, idem}, allow: true, jobSkills: "reads.skill.md\nidem.skill.md\n", with: with{"allow-writes": "true"}},
		{name: "yes", skills: []string{idem, destr}, yes: true, jobSkills: "idem.skill.md\ndestr.skill.md\n", with: with{"allow-writes": "true", "yes": "true"}},
		{name: "no-writes", skills: []string{read, idem, destr}, noWrite: true, jobSkills: "reads.skill.md\n", with: with{}},
		{name: "no-writes leaves nothing", skills: []string{idem}, noWrite: true, err: "--no-writes leaves no skill to replay"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data, err := Generate(Options{Root: dir, Skills: tt.skills, Action: "reelier/reelier", Ref: ref, AllowWrites: tt.allow, AllowDestructive: tt.yes, NoWrites: tt.noWrite})
			var we *WritesError
			switch {
			case tt.undecided != nil:
				if !errors.As(err, &we) || data != nil {
					t.Fatalf("err %v, want a *WritesError", err)
				}
				var got []string
				for _, w := range we.Steps {
					got = append(got, w.String())
				}
				if strings.Join(got, "|") != strings.Join(tt.undecided, "|") {
					t.Errorf("undecided %q, want %q", got, tt.undecided)
				}
				msg := err.Error()
				for _, w := range append(tt.undecided, "--no-writes", "fail the job on its first run") {
					if !strings.Contains(msg, w) {
						t.Errorf("the message lacks %q:\n%s", w, msg)
					}
				}
				if destructive := strings.Contains(msg, "(destructive)"); destructive != strings.Contains(msg, "--yes") {
					t.Errorf("--yes offered %t, a destructive step %t:\n%s", !destructive, destructive, msg)
				}
				if idempotent := strings.Contains(msg, "(idempotent-write)"); idempotent != strings.Contains(msg, "--allow-writes") {
					t.Errorf("--allow-writes offered %t, an idempotent-write step %t:\n%s", !idempotent, idempotent, msg)
				}
				return
			case tt.err != "":
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err %v, want %q", err, tt.err)
				}
				return
			case err != nil:
				t.Fatal(err)
			}
			var wf struct {
				Jobs map[string]struct {
					Steps []struct{ With map[string]string }
				}
			}
			if err := yaml.Unmarshal(data, &wf); err != nil || len(wf.Jobs) != 1 {
				t.Fatalf("%d jobs, %v", len(wf.Jobs), err)
			}
			got := wf.Jobs["replay"].Steps[1].With
			if got["skills"] != tt.jobSkills {
				t.Errorf("skills %q, want %q", got["skills"], tt.jobSkills)
			}
			for _, k := range []string{"allow-writes", "yes"} {
				if got[k] != tt.with[k] {
					t.Errorf("%s %q, want %q", k, got[k], tt.with[k])
				}
			}
			if tt.noWrite && !strings.Contains(string(data), "# Left out (--no-writes: they have steps that write):\n#   idem.skill.md\n#   destr.skill.md\n") {
				t.Errorf("the left-out skills are not named:\n%s", data)
			}
			actionlint(t, data)
		})
	}
}

// TestComment: the comment on (the default of reelier ci) grants
// pull-requests: write and leaves the Action's comment input at its
// default; off writes comment: "false" and grants nothing.
func TestComment(t *testing.T) {
	for _, on := range []bool{true, false} {
		data, err := Generate(Options{Root: "testdata/repo", Skills: repoSkills(t), Action: "reelier/reelier", Ref: ref, AllowWrites: true, Comment: on})
		if err != nil {
			t.Fatal(err)
		}
		var wf struct {
			Permissions map[string]string
			Jobs        map[string]struct {
				Steps []struct{ With map[string]string }
			}
		}
		if err := yaml.Unmarshal(data, &wf); err != nil {
			t.Fatal(err)
		}
		if got := wf.Permissions["pull-requests"]; (got == "write") != on {
			t.Errorf("comment %t: pull-requests %q", on, got)
		}
		for id, j := range wf.Jobs {
			want := ""
			if !on {
				want = "false"
			}
			if got := j.Steps[1].With["comment"]; got != want {
				t.Errorf("comment %t: job %s comment %q, want %q", on, id, got, want)
			}
		}
		actionlint(t, data)
	}
}

// TestSuggest: a local path inside an npm package gets the published
// package's npx form, with the version its package.json says and the
// command's own arguments; without a package.json, the name alone;
// elsewhere, the general advice.
func TestSuggest(t *testing.T) {
	dir := t.TempDir()
	pkg := filepath.Join(dir, "node_modules", "@modelcontextprotocol", "server-everything")
	os.MkdirAll(filepath.Join(pkg, "dist"), 0o755)
	os.WriteFile(filepath.Join(pkg, "package.json"), []byte(`{"name": "@modelcontextprotocol/server-everything", "version": "2025.9.25"}`), 0o644)
	bad := filepath.Join(dir, "other", "node_modules", "evil")
	os.MkdirAll(bad, 0o755)
	os.WriteFile(filepath.Join(bad, "package.json"), []byte(`{"name": "evil", "version": "1.0.0; rm -rf /"}`), 0o644)
	index := filepath.Join(pkg, "dist", "index.js")
	tests := []struct{ command, want string }{
		{"node " + index + " stdio", "the path is inside the npm package @modelcontextprotocol/server-everything@2025.9.25: record the server as `npx -y @modelcontextprotocol/server-everything@2025.9.25 stdio`"},
		{"node /tmp/x/node_modules/mcp-sqlite/bin/cli.js --db x.db", "the path is inside the npm package mcp-sqlite: record the server as `npx -y mcp-sqlite --db x.db`"},
		{"node " + filepath.Join(bad, "index.js"), "record the server as `npx -y evil`"},
		{"node /tmp/reelier-dev/server.js", "start the server with a published package (npx -y <package>@<version>) or a path relative to the repository"},
		{"node /tmp/node_modules/.bin/x", "start the server with a published package"},
	}
	for _, tt := range tests {
		lp := LocalPath(tt.command)
		if got := Suggest(tt.command, lp); !strings.Contains(got, tt.want) {
			t.Errorf("Suggest(%q, %q) = %q, want %q", tt.command, lp, got, tt.want)
		}
	}
}
