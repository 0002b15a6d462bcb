package record

import (
	"encoding/json"
	"net/url"
	"path"
	"strconv"
	"strings"

	"github.com/google/shlex"
	"github.com/reelier/reelier/mcpx"
	"github.com/reelier/reelier/record/agentcfg"
	"github.com/reelier/reelier/redact"
	"github.com/reelier/reelier/trace"
)

// servers describes every downstream for the trace's meta record, in
// --wrap order: a unique name, its command with secrets blanked, and the
// names its tools were exposed under (those the agent could call).
func (p *Proxy) servers() []trace.Server {
	r := p.opts.Redactor
	if r == nil {
		r = &redact.Redactor{}
	}
	ds := p.router.Downstreams()
	out := make([]trace.Server, len(ds))
	taken := map[string]bool{}
	for k, d := range ds {
		// The names come from the server and its command, so they are
		// redacted too: a key passed as an argument can come back as
		// the server's name.
		out[k] = trace.Server{
			Name:    uniqueName(serverName(r.String("", d.ServerName()), redactCommand(r, d.Name), k), taken),
			Command: redactCommand(r, d.Name),
			Tools:   []string{},
		}
		for _, h := range d.Headers() {
			out[k].Headers = append(out[k].Headers, mcpx.SkillHeader(r, h))
		}
	}
	for _, route := range p.router.Routes() {
		if !p.hidden[route.Exposed] {
			k := route.Downstream.Index
			out[k].Tools = append(out[k].Tools, route.Exposed)
			if def := toolDef(route); def != nil {
				out[k].ToolDefs = append(out[k].ToolDefs, def)
			}
		}
	}
	for k := range out {
		if len(out[k].ToolDefs) != len(out[k].Tools) {
			out[k].ToolDefs = nil // parallel to Tools, or absent
		}
	}
	return out
}

// toolDef is a tool's definition as the trace keeps it: the members a
// replay's drift check and a mock need — name as exposed, title,
// description, inputSchema, outputSchema, annotations — taken from what
// the server sent (from the SDK's reading when the exact bytes were not
// seen). The trace writer redacts it. Nil when it cannot be read.
func toolDef(route *mcpx.Route) json.RawMessage {
	raw := route.Raw
	if raw == nil {
		b, err := json.Marshal(route.Tool)
		if err != nil {
			return nil
		}
		raw = b
	}
	var def struct {
		Name         string          `json:"name"`
		Title        json.RawMessage `json:"title,omitempty"`
		Description  json.RawMessage `json:"description,omitempty"`
		InputSchema  json.RawMessage `json:"inputSchema,omitempty"`
		OutputSchema json.RawMessage `json:"outputSchema,omitempty"`
		Annotations  json.RawMessage `json:"annotations,omitempty"`
	}
	if json.Unmarshal(raw, &def) != nil {
		return nil
	}
	def.Name = route.Exposed
	b, err := json.Marshal(def)
	if err != nil {
		return nil
	}
	return b
}

// wrapped returns the --wrap commands as the meta record's "wrapped"
// field keeps them: redacted the same way as the servers' commands.
func (p *Proxy) wrapped() []string {
	names := p.router.Names()
	out := make([]string, len(names))
	for k, n := range names {
		out[k] = redactCommand(p.opts.Redactor, n)
	}
	return out
}

// maxServerName bounds a server's name, in bytes.
const maxServerName = 64

// serverName picks the label of downstream k: the last path segment of
// the name the server gave itself, made of letters, digits, '.', '_' and
// '-' only; failing that one taken from its command; failing that
// "server-<k+1>".
func serverName(info, command string, k int) string {
	if i := strings.LastIndexByte(info, '/'); i >= 0 {
		info = info[i+1:]
	}
	if n := safeName(info); n != "" {
		return n
	}
	if n := safeName(commandName(command)); n != "" {
		return n
	}
	return "server-" + strconv.Itoa(k+1)
}

// launchers run another program named by a later word; a server's name is
// better taken from that word.
var launchers = map[string]bool{
	"npx": true, "pnpx": true, "bunx": true, "uvx": true, "pipx": true, "node": true, "deno": true, "bun": true,
	"python": true, "python3": true, "uv": true, "docker": true, "podman": true, "sh": true, "bash": true, "go": true,
}

// commandName returns the word of a command that best names the server:
// the program, or, for a launcher (npx, docker, python…), the first later
// word that is not a flag, a sub-command such as "run", or an assignment.
func commandName(command string) string {
	if mcpx.IsURL(command) {
		if u, err := url.Parse(strings.TrimSpace(command)); err == nil {
			return u.Host
		}
	}
	argv, err := shlex.Split(command)
	if err != nil {
		return ""
	}
	i := 0
	for i < len(argv) && (isAssignment(argv[i]) || path.Base(argv[i]) == "env") {
		i++
	}
	if i >= len(argv) {
		return ""
	}
	prog := path.Base(argv[i])
	if !launchers[prog] {
		return prog
	}
	for _, w := range argv[i+1:] {
		if strings.HasPrefix(w, "-") || isAssignment(w) || w == "run" || w == "exec" || w == "x" || w == "tool" {
			continue
		}
		w = strings.TrimRight(w, "/")
		if j := strings.LastIndexByte(w, '/'); j >= 0 {
			w = w[j+1:]
		}
		if j := strings.LastIndexAny(w, "@:"); j > 0 {
			w = w[:j] // a version or a tag
		}
		return strings.TrimSuffix(strings.TrimSuffix(w, ".js"), ".py")
	}
	return prog
}

// safeName keeps letters, digits, '.', '_' and '-', turning every other
// run of characters into one '-', and trims separators from both ends.
func safeName(s string) string {
	var b strings.Builder
	dash := false
	for _, c := range s {
		switch {
		case c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-':
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			dash = false
			b.WriteRune(c)
		default:
			dash = true
		}
		if b.Len() >= maxServerName {
			break
		}
	}
	return strings.Trim(b.String(), ".-_")
}

// uniqueName returns name, or name-2, name-3… when it is taken, and takes
// the result.
func uniqueName(name string, taken map[string]bool) string {
	n := name
	for i := 2; taken[n]; i++ {
		n = name + "-" + strconv.Itoa(i)
	}
	taken[n] = true
	return n
}

// redactCommand returns a --wrap command as a trace keeps it. Secrets are
// recognised word by word, the way the command is split to start it:
//
//   - the value of an environment assignment (NAME=value before the
//     program, after `env`, after `-e`/`--env`, or any word whose NAME is
//     an upper-case variable name) is always blanked, whatever it holds;
//   - the value of a flag is checked as the value of a member named like
//     the flag, so `--api-key X` and `--token=X` lose X;
//   - every other word is checked as free text.
//
// Each check is the trace redactor's, which blanks what it recognises;
// the environment rule only decides that a whole value is a secret. When
// nothing is blanked the command is returned exactly as given; otherwise
// its words are joined again, quoted so that they split back the same way.
func redactCommand(r *redact.Redactor, command string) string {
	if r == nil {
		r = &redact.Redactor{}
	}
	if mcpx.IsURL(command) {
		return mcpx.RedactURL(r, command)
	}
	argv, err := shlex.Split(command)
	if err != nil {
		// Not a command that could have started: redact it as text.
		return r.String("", command)
	}
	out := make([]string, len(argv))
	changed := false
	prefix := true // still in the assignments before the program
	inEnv := false // after `env`, before the program it runs
	flag := ""     // the flag the previous word was, waiting for a value
	for i, w := range argv {
		red := w
		name, value, isAssign := cutAssignment(w)
		isFlag := len(w) > 1 && w[0] == '-'
		switch {
		case isAssign && (prefix || inEnv || isEnvFlag(flag) || isEnvName(name)):
			if value != "" {
				red = name + "=" + redact.Redacted
			}
		case isFlag:
			f, v, hasValue := strings.Cut(strings.TrimLeft(w, "-"), "=")
			lead := w[:len(w)-len(v)]
			if n, val, ok := cutAssignment(v); hasValue && ok && val != "" && (isEnvFlag("-"+f) || isEnvFlag("--"+f)) {
				red = lead + n + "=" + redact.Redacted
			} else if hasValue {
				red = lead + r.String(f, v)
			}
		case flag != "":
			red = r.String(strings.TrimLeft(flag, "-"), w)
		default:
			red = r.String("", w)
		}
		flag = ""
		switch {
		case isFlag:
			prefix = false
			if !strings.Contains(w, "=") {
				flag = w
			}
		case !isAssign:
			prefix = false
			if inEnv {
				inEnv = false // the program env runs
			} else {
				inEnv = path.Base(w) == "env"
			}
		}
		changed = changed || red != w
		out[i] = red
	}
	if !changed {
		return command
	}
	return agentcfg.ShellJoin(out)
}

// cutAssignment splits NAME=value, NAME being an environment variable
// name (a letter or '_' then letters, digits or '_').
func cutAssignment(w string) (name, value string, ok bool) {
	name, value, ok = strings.Cut(w, "=")
	if !ok || name == "" {
		return "", "", false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9') {
			return "", "", false
		}
	}
	return name, value, true
}

func isAssignment(w string) bool {
	_, _, ok := cutAssignment(w)
	return ok
}

// isEnvName reports whether name is written the way environment variables
// are: upper-case letters, digits and '_', with a letter in it.
func isEnvName(name string) bool {
	letter := false
	for i := 0; i < len(name); i++ {
		c := name[i]
		switch {
		case c >= 'A' && c <= 'Z':
			letter = true
		case c == '_' || c >= '0' && c <= '9':
		default:
			return false
		}
	}
	return letter
}

// isEnvFlag reports whether a flag sets an environment variable of the
// program it starts (docker, podman and similar: -e NAME=value).
func isEnvFlag(flag string) bool {
	switch flag {
	case "-e", "--env", "--environment", "--set-env", "--setenv":
		return true
	}
	return false
}
