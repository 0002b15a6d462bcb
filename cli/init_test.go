package cli

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestFindSelf: the printed commands name this reelier the way that runs
// from the directory it was started in.
func TestFindSelf(t *testing.T) {
	tmp := t.TempDir()
	mod := filepath.Join(tmp, "checkout")
	other := filepath.Join(tmp, "other")
	for _, d := range []string{filepath.Join(mod, "cmd", "reelier"), filepath.Join(mod, "docs"), filepath.Join(other, "sub")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(filepath.Join(mod, "go.mod"), []byte("// the checkout\nmodule github.com/reelier/reelier\n\ngo 1.26\n"), 0o644)
	os.WriteFile(filepath.Join(other, "go.mod"), []byte("module example.com/other\n"), 0o644)
	installed := filepath.Join(tmp, "bin", "reelier")
	os.MkdirAll(filepath.Dir(installed), 0o755)
	os.WriteFile(installed, []byte("binary"), 0o755)
	goRun := filepath.Join(tmp, "go-build123", "b001", "exe", "reelier")
	onPath := func(p string) func(string) (string, error) {
		return func(string) (string, error) { return p, nil }
	}
	notOnPath := func(string) (string, error) { return "", exec.ErrNotFound }

	tests := []struct {
		name     string
		exe, cwd string
		lookPath func(string) (string, error)
		version  string
		want     self
	}{
		{name: "on PATH", exe: installed, cwd: tmp, lookPath: onPath(installed),
			want: self{argv: []string{"reelier"}}},
		{name: "another reelier on PATH", exe: installed, cwd: tmp, lookPath: onPath(filepath.Join(mod, "go.mod")),
			want: self{argv: []string{installed}}},
		{name: "not on PATH", exe: installed, cwd: tmp, lookPath: notOnPath,
			want: self{argv: []string{installed}}},
		{name: "go run at the checkout's root (the README)", exe: goRun, cwd: mod, lookPath: notOnPath, version: "(devel)",
			want: self{argv: []string{"go", "run", "./cmd/reelier"}, temporary: true,
				build: `CGO_ENABLED=0 go build -trimpath -o "$(go env GOPATH)/bin/reelier" ./cmd/reelier`}},
		{name: "go run below the root", exe: goRun, cwd: filepath.Join(mod, "docs"), lookPath: onPath(installed), version: "(devel)",
			want: self{argv: []string{"go", "run", "../cmd/reelier"}, temporary: true,
				build: `CGO_ENABLED=0 go build -trimpath -o "$(go env GOPATH)/bin/reelier" ../cmd/reelier`}},
		{name: "go run pkg@version elsewhere", exe: goRun, cwd: tmp, lookPath: notOnPath, version: "v1.2.3",
			want: self{argv: []string{"go", "run", "github.com/reelier/reelier/cmd/reelier@v1.2.3"}, temporary: true,
				build: `CGO_ENABLED=0 GOBIN="$(go env GOPATH)/bin" go install -trimpath github.com/reelier/reelier/cmd/reelier@v1.2.3`}},
		{name: "go run in a module that requires reelier", exe: goRun, cwd: filepath.Join(other, "sub"), lookPath: notOnPath, version: "(devel)",
			want: self{argv: []string{"go", "run", "github.com/reelier/reelier/cmd/reelier"}, temporary: true,
				build: `CGO_ENABLED=0 go build -trimpath -o "$(go env GOPATH)/bin/reelier" github.com/reelier/reelier/cmd/reelier`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := findSelf(tt.exe, tt.cwd, tt.lookPath, tt.version)
			if !slices.Equal(got.argv, tt.want.argv) || got.temporary != tt.want.temporary || got.build != tt.want.build {
				t.Errorf("findSelf =\n%#v\nwant\n%#v", got, tt.want)
			}
		})
	}
}

// TestREADMESetUpHints runs the README's set-up command 1 exactly as
// written, from the checkout's root, on what looks like a fresh machine (an
// empty home, no reelier on PATH, the module proxy off), and then every
// command it prints, as printed, from the same directory; each must exit
// 0. The one line that is a template (`claude mcp add <name> …`) is not
// run, but must name a lasting reelier. Nothing may be left in the
// checkout.
func TestREADMESetUpHints(t *testing.T) {
	if testing.Short() {
		t.Skip("builds reelier with go run several times")
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command on PATH")
	}
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile("(?m)^(go run ./cmd/reelier init [^\n#]*?)\\s*$").FindSubmatch(readme)
	if m == nil {
		t.Fatal("README.md's set-up has no `go run ./cmd/reelier init …` command")
	}
	setUp := string(m[1])
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	goEnv := map[string]string{}
	for _, name := range []string{"GOCACHE", "GOMODCACHE", "GOENV"} {
		out, err := exec.Command(goBin, "env", name).Output()
		if err != nil {
			t.Fatal(err)
		}
		goEnv[name] = strings.TrimSpace(string(out))
	}
	before := leftovers(root)

	tests := []struct {
		name string
		// claude sets up Claude Code: a config with a local server and a
		// (empty) history folder.
		claude bool
		// want is the subcommand of every command printed, in order
		// ("template" for the line that is not run).
		want []string
	}{
		{name: "fresh machine", want: []string{"run", "push", "build", "template"}},
		{name: "with Claude Code", claude: true, want: []string{"run", "push", "scan", "build", "install", "install"}},
	}
	t.Run("scenarios", func(t *testing.T) {
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				t.Parallel()
				tmp := t.TempDir()
				home := filepath.Join(tmp, "home")
				os.MkdirAll(filepath.Join(tmp, "tmp"), 0o755)
				os.MkdirAll(home, 0o755)
				if tt.claude {
					os.MkdirAll(filepath.Join(home, ".claude", "projects"), 0o755)
					os.WriteFile(filepath.Join(home, ".claude.json"), []byte(`{"mcpServers": {"notes": {"command": "notes-mcp", "args": ["--dir", "/tmp/notes"]}}}`), 0o644)
				}
				env := freshEnv(home, filepath.Join(tmp, "tmp"), filepath.Join(tmp, "gopath"), goEnv)
				out := shell(t, root, env, setUp, "")
				i := strings.Index(out, "\nNext steps:\n")
				if i < 0 {
					t.Fatalf("no next steps:\n%s", out)
				}
				var got []string
				for _, line := range strings.Split(out[i:], "\n") {
					if !strings.HasPrefix(line, "  ") || strings.HasPrefix(line, "   ") {
						continue
					}
					command, _, _ := strings.Cut(strings.TrimSpace(line), "   # ")
					if strings.Contains(command, "<name>") {
						got = append(got, "template")
						if !strings.HasPrefix(command, `claude mcp add <name> -- "$(go env GOPATH)/bin/reelier" mcp --wrap `) {
							t.Errorf("the template does not name the lasting reelier: %s", command)
						}
						continue
					}
					got = append(got, subcommand(command))
					want := ""
					switch subcommand(command) {
					case "run":
						want = "result:       PASSED"
					case "push":
						want = "dry run: nothing was sent and nothing was written"
					case "scan":
						want = "0 sessions"
					}
					if res := shell(t, root, env, command, "hint"); !strings.Contains(res, want) {
						t.Errorf("%s\nprinted no %q:\n%s", command, want, res)
					}
				}
				if !slices.Equal(got, tt.want) {
					t.Errorf("printed commands %q, want %q:\n%s", got, tt.want, out)
				}
				if tt.claude {
					cfg, _ := os.ReadFile(filepath.Join(home, ".claude.json"))
					if !bytes.Contains(cfg, []byte(filepath.Join(tmp, "gopath", "bin", "reelier"))) {
						t.Errorf("the printed install did not front the server with the lasting reelier:\n%s", cfg)
					}
				}
			})
		}
	})
	if after := leftovers(root); !slices.Equal(before, after) {
		t.Errorf("the commands left files in the checkout: %q, was %q", after, before)
	}
}

// subcommand names what a printed command does: the reelier subcommand,
// or "build" for the command that builds reelier.
func subcommand(command string) string {
	if rest, ok := strings.CutPrefix(command, lastingReelier+" "); ok {
		command = "reelier " + rest
	}
	f := strings.Fields(command)
	for len(f) > 0 && strings.HasPrefix(f[0], "CGO_ENABLED=") {
		f = f[1:]
	}
	switch {
	case len(f) > 2 && f[0] == "go" && f[1] == "build", len(f) > 2 && strings.HasPrefix(f[0], "GOBIN="):
		return "build"
	case len(f) > 3 && f[0] == "go" && f[1] == "run":
		return f[3]
	case len(f) > 1:
		return f[1]
	}
	return command
}

// freshEnv is this process's environment as a fresh machine with Go
// would have it: the given home, TMPDIR and GOPATH, no reelier on PATH,
// and the module proxy off, with this machine's build and module caches.
func freshEnv(home, tmpdir, gopath string, goEnv map[string]string) []string {
	var env []string
	for _, kv := range os.Environ() {
		name, value, _ := strings.Cut(kv, "=")
		switch name {
		case "HOME", "TMPDIR", "GOPATH", "GOPROXY", "GOFLAGS", "GOCACHE", "GOMODCACHE", "GOENV", "GOBIN":
			continue
		case "PATH":
			var keep []string
			for _, dir := range filepath.SplitList(value) {
				if _, err := os.Stat(filepath.Join(dir, "reelier")); err != nil {
					keep = append(keep, dir)
				}
			}
			kv = "PATH=" + strings.Join(keep, string(filepath.ListSeparator))
		}
		env = append(env, kv)
	}
	env = append(env, "HOME="+home, "TMPDIR="+tmpdir, "GOPATH="+gopath, "GOPROXY=off")
	for name, value := range goEnv {
		env = append(env, name+"="+value)
	}
	return env
}

// shell runs command with sh in dir and returns its output; it must exit
// 0.
func shell(t *testing.T, dir string, env []string, command, what string) string {
	t.Helper()
	cmd := exec.Command("sh", "-c", command)
	cmd.Dir, cmd.Env = dir, env
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			t.Fatalf("%s %s: exit %d, want 0:\n%s", what, command, exit.ExitCode(), out.String())
		}
		t.Fatalf("%s %s: %v", what, command, err)
	}
	return out.String()
}

// leftovers lists what reelier could have written under root: the
// folders init and the printed commands write to without --dir.
func leftovers(root string) []string {
	var names []string
	for _, dir := range []string{"skills", ".reelier", filepath.Join(".reelier", "runs"), filepath.Join(".reelier", "traces")} {
		entries, err := os.ReadDir(filepath.Join(root, dir))
		if err != nil {
			continue
		}
		names = append(names, dir+"/")
		for _, e := range entries {
			names = append(names, filepath.Join(dir, e.Name()))
		}
	}
	return names
}
