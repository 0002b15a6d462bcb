package mcpx

import (
	"bytes"
	"io"
	"path"
	"strconv"
	"strings"
	"sync"

	"github.com/google/shlex"

	"github.com/reelier/reelier/internal/termtext"
	"github.com/reelier/reelier/redact"
)

// maxStderrLine bounds the part of a downstream's stderr line held back
// waiting for its end; a longer line is written in pieces, each prefixed.
const maxStderrLine = 64 << 10

// launchers are programs that run the server named by a later argument,
// and the subcommand words they take before it (npx -y pkg, uv run x,
// docker run -i image, python -m module).
var launchers = map[string]bool{
	"npx": true, "npm": true, "pnpm": true, "yarn": true, "bunx": true, "bun": true,
	"node": true, "nodejs": true, "deno": true, "tsx": true, "ts-node": true,
	"uvx": true, "uv": true, "pipx": true, "python": true, "python3": true, "py": true,
	"go": true, "java": true, "ruby": true, "docker": true, "podman": true, "env": true,
	"exec": true, "run": true, "x": true, "dlx": true, "tool": true,
}

// ServerLabel is the short name a downstream's stderr lines are prefixed
// with when it was given none: the program the command runs, or, for a
// launcher (npx, uvx, node, python -m, docker run, …), the first argument
// that is not a flag or a subcommand — its last path element, without a
// @version and a script extension. "npx -y @acme/crm-mcp@1.2" is
// "crm-mcp". A remote server's URL is labelled with its host and port.
func ServerLabel(command string) string { return ParseServer(command).Label() }

// commandLabel is ServerLabel of a command line.
func commandLabel(command string) string {
	argv, err := shlex.Split(command)
	if err != nil || len(argv) == 0 {
		return strings.TrimSpace(command)
	}
	pick := argv[0]
	for i, a := range argv {
		base := path.Base(strings.ReplaceAll(a, `\`, "/"))
		switch {
		case strings.HasPrefix(a, "-"), strings.Contains(a, "=") && !strings.Contains(a, "/"):
			continue
		case launchers[strings.TrimSuffix(base, ".exe")] && i < len(argv)-1:
			continue
		}
		pick = a
		break
	}
	parts := strings.Split(strings.ReplaceAll(pick, `\`, "/"), "/")
	name := parts[len(parts)-1]
	if at := strings.LastIndex(name, "@"); at > 0 {
		name = name[:at]
	}
	for _, ext := range []string{".exe", ".js", ".mjs", ".cjs", ".ts", ".py"} {
		if n := strings.TrimSuffix(name, ext); n != "" {
			name = n
		}
	}
	// node weather/build/index.js is "weather".
	if genericFile[name] {
		for i := len(parts) - 2; i >= 0; i-- {
			if p := parts[i]; p != "" && p != "." && p != ".." && !genericDir[p] {
				name = p
				break
			}
		}
	}
	if name == "" || name == "." || name == ".." {
		return argv[0]
	}
	return name
}

// genericFile and genericDir are the file and folder names that say
// nothing about which server a script is.
var (
	genericFile = map[string]bool{"index": true, "main": true, "server": true, "cli": true, "app": true, "__main__": true}
	genericDir  = map[string]bool{"build": true, "dist": true, "src": true, "lib": true, "bin": true, "out": true}
)

// stderrLines gives each of the commands its stderr writer: every line it
// writes goes to opts.Stderr as "[label] line", whole lines only, under
// one lock shared with warn (which writes Reelier's own lines there). The
// label is opts.Names[k] when set, else ServerLabel; labels two commands
// share get "#<index>". With opts.Quiet, or no opts.Stderr, the servers'
// stderr is discarded (nil writers).
func stderrLines(commands []ServerSpec, opts Options) (servers []*lineWriter, warn io.Writer) {
	servers = make([]*lineWriter, len(commands))
	if opts.Stderr == nil {
		return servers, nil
	}
	mu := &sync.Mutex{}
	warn = &lockedWriter{mu: mu, out: opts.Stderr}
	if opts.Quiet {
		return servers, warn
	}
	red := opts.Redactor
	if red == nil {
		red = redact.RedactorFromEnv()
	}
	labels := make([]string, len(commands))
	count := map[string]int{}
	for k, c := range commands {
		labels[k] = c.Label()
		count[labels[k]]++
	}
	for k, l := range labels {
		if count[l] > 1 {
			l += "#" + strconv.Itoa(k)
		}
		servers[k] = &lineWriter{mu: mu, out: opts.Stderr, prefix: []byte("[" + l + "] "), redact: red}
	}
	return servers, warn
}

// lineWriter prefixes each line written to it and writes it, whole, to
// out. It never fails, so a broken stderr cannot stall the server
// writing to it.
type lineWriter struct {
	mu     *sync.Mutex
	out    io.Writer
	prefix []byte
	buf    []byte // the start of a line whose end has not come yet
	// redact blanks secrets in each line; the line is then escaped for
	// the terminal.
	redact *redact.Redactor
}

func (w *lineWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	n := len(p)
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		end := i
		if i < 0 {
			end = len(p)
		}
		if room := maxStderrLine - len(w.buf); end > room {
			w.buf = append(w.buf, p[:room]...)
			w.emit()
			p = p[room:]
			continue
		}
		w.buf = append(w.buf, p[:end]...)
		if i < 0 {
			break
		}
		w.emit()
		p = p[i+1:]
	}
	return n, nil
}

// flush writes a last line that had no line break.
func (w *lineWriter) flush() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.buf) > 0 {
		w.emit()
	}
}

// emit writes the held line with its prefix and a line break, in one
// write; the caller holds mu.
func (w *lineWriter) emit() {
	line := string(bytes.TrimSuffix(w.buf, []byte("\r")))
	if w.redact != nil {
		line = w.redact.String("", line)
	}
	line = termtext.Line(line)
	out := make([]byte, 0, len(w.prefix)+len(line)+1)
	out = append(append(append(out, w.prefix...), line...), '\n')
	w.out.Write(out)
	w.buf = w.buf[:0]
}

// lockedWriter writes to out under the lock the servers' lines share.
type lockedWriter struct {
	mu  *sync.Mutex
	out io.Writer
}

func (w *lockedWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.out.Write(p)
}
