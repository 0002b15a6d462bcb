package agentcfg

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path"
	"sort"
	"strings"

	"github.com/reelier/reelier/tool/jsondata"
)

// What install does with one configured server.
const (
	ActionWrap = "wrap" // fronted with reelier mcp --wrap
	ActionKeep = "keep" // already fronted; left alone
	ActionSkip = "skip" // not a local stdio server; left alone
)

// Reasons a server is kept or skipped.
const (
	ReasonWrapped    = "already fronted by reelier mcp --wrap"
	ReasonRemote     = "a remote server (url): only a local command can be fronted by reelier mcp --wrap"
	ReasonNoCommand  = "no command to wrap"
	ReasonBadShape   = "not a server definition (not a JSON object)"
	ReasonBadCommand = "its command is not a string"
	ReasonBadArgs    = "its args are not a list of strings"
)

// Change is what install does, or would do, with one server.
type Change struct {
	// Server is the server's name; Project is set for a server of one
	// project in ~/.claude.json (its "projects" key).
	Server  string `json:"server"`
	Project string `json:"project,omitempty"`
	Action  string `json:"action"`
	// Reason says why a server is kept or skipped.
	Reason string `json:"reason,omitempty"`
	// Command is the server's command line as it was, shell-quoted (the
	// argument --wrap gets); "" when it has none.
	Command string `json:"command,omitempty"`
}

// Plan is the rewrite of one config that install makes.
type Plan struct {
	Config Config
	// Original is the config's bytes as read; Updated is the same bytes
	// with every wrapped server's command and args replaced, and nothing
	// else touched (member order, unknown fields, spacing).
	Original, Updated []byte
	Changes           []Change
}

// Wraps is the number of servers the plan wraps.
func (p *Plan) Wraps() int {
	n := 0
	for _, c := range p.Changes {
		if c.Action == ActionWrap {
			n++
		}
	}
	return n
}

// bom is the UTF-8 byte order mark an editor may put first; it is kept.
var bom = []byte("\xef\xbb\xbf")

// edit replaces the bytes of a span.
type edit struct {
	span
	text string
}

// PlanInstall reads cfg and plans fronting every local stdio server in it
// with `<reelier> mcp --wrap "<its command line>"`, keeping its name, env
// and every other field. reelier is the absolute path of the reelier
// binary. Servers already fronted are kept, remote ones skipped. A config
// that is not a JSON object gives a *ParseError. A .toml config is the
// Codex CLI's, rewritten the same way (toml.go).
func PlanInstall(cfg Config, reelier string) (*Plan, error) {
	if isTOML(cfg.Path) {
		return planInstallTOML(cfg, reelier) // Codex's config.toml
	}
	data, err := os.ReadFile(cfg.Path)
	if err != nil {
		return nil, err
	}
	if plan := agentOf(cfg).Plan; plan != nil {
		return plan(cfg, data, reelier)
	}
	return planBytes(cfg, data, reelier)
}

// planBytes plans the rewrite of data, cfg's content.
func planBytes(cfg Config, data []byte, reelier string) (*Plan, error) {
	body := len(bom)
	if !bytes.HasPrefix(data, bom) {
		body = 0
	}
	agent := agentOf(cfg)
	// parse is what is parsed: data itself, or for an agent that allows
	// comments data with them blanked out, every offset the same, so the
	// edits found in parse apply to data and the comments stay.
	parse := data
	if agent.JSONC {
		parse = blankComments(data)
	}
	if err := checkObject(cfg.Path, parse[body:], data[body:]); err != nil {
		return nil, err
	}
	p := &Plan{Config: cfg, Original: data}
	var edits []edit
	top, err := members(parse, span{body, len(parse)})
	if err != nil {
		return nil, &ParseError{Path: cfg.Path, Err: err}
	}
	if m := find(top, "mcpServers"); m != nil {
		edits = append(edits, p.servers(parse, m.value, "", reelier)...)
	}
	if m := find(top, "projects"); m != nil && agent.Projects && cfg.Scope == ScopeUser && parse[m.value.start] == '{' {
		projects, err := members(parse, m.value)
		if err != nil {
			return nil, &ParseError{Path: cfg.Path, Err: err}
		}
		for _, proj := range projects {
			if parse[proj.value.start] != '{' {
				continue
			}
			ms, err := members(parse, proj.value)
			if err != nil {
				return nil, &ParseError{Path: cfg.Path, Err: err}
			}
			if m := find(ms, "mcpServers"); m != nil {
				edits = append(edits, p.servers(parse, m.value, proj.key, reelier)...)
			}
		}
	}
	p.Updated = apply(data, edits)
	check := p.Updated
	if agent.JSONC {
		check = blankComments(check)
	}
	if !json.Valid(check[body:]) {
		return nil, errors.New("internal error: the rewritten config is not valid JSON; nothing was changed")
	}
	return p, nil
}

// servers plans the servers of one mcpServers object.
func (p *Plan) servers(data []byte, s span, project, reelier string) []edit {
	if data[s.start] != '{' {
		return nil
	}
	entries, err := members(data, s)
	if err != nil {
		return nil
	}
	var edits []edit
	for _, e := range entries {
		ch := Change{Server: e.key, Project: project}
		var es []edit
		ch.Action, ch.Reason, ch.Command, es = planServer(data, e.value, reelier)
		p.Changes = append(p.Changes, ch)
		edits = append(edits, es...)
	}
	return edits
}

// planServer decides what to do with one server definition and returns
// the edits that wrap it.
func planServer(data []byte, s span, reelier string) (action, reason, command string, edits []edit) {
	if data[s.start] != '{' {
		return ActionSkip, ReasonBadShape, "", nil
	}
	ms, err := members(data, s)
	if err != nil {
		return ActionSkip, ReasonBadShape, "", nil
	}
	cmd, args, typ := find(ms, "command"), find(ms, "args"), find(ms, "type")
	var kind string
	if typ != nil {
		_ = json.Unmarshal(data[typ.value.start:typ.value.end], &kind)
	}
	switch {
	case find(ms, "url") != nil || find(ms, "httpUrl") != nil || find(ms, "tcp") != nil || kind == "http" || kind == "sse":
		return ActionSkip, ReasonRemote, "", nil
	case cmd == nil:
		return ActionSkip, ReasonNoCommand, "", nil
	}
	var program string
	if json.Unmarshal(data[cmd.value.start:cmd.value.end], &program) != nil {
		return ActionSkip, ReasonBadCommand, "", nil
	}
	var argv []string
	if args != nil && json.Unmarshal(data[args.value.start:args.value.end], &argv) != nil {
		return ActionSkip, ReasonBadArgs, "", nil
	}
	command = ShellJoin(append([]string{program}, argv...))
	if IsWrapped(program, argv) {
		return ActionKeep, ReasonWrapped, command, nil
	}
	newArgs := []string{"mcp", "--wrap", command}
	edits = []edit{{cmd.value, jsondata.StdString(reelier)}}
	if args != nil {
		return ActionWrap, "", command, append(edits, edit{args.value, arrayLike(data[args.value.start:args.value.end], newArgs, cmd.colon == ":")})
	}
	// No args yet: add them after the command, spaced like the command.
	lead := cmd.lead
	if lead == "" && cmd.colon != ":" {
		lead = " "
	}
	at := span{cmd.value.end, cmd.value.end}
	return ActionWrap, "", command, append(edits, edit{at, "," + lead + `"args"` + cmd.colon + arrayLike(nil, newArgs, cmd.colon == ":")})
}

// arrayLike renders items as a JSON array laid out like old: one item a
// line with old's indentation when old spans lines, on one line
// otherwise, with ", " or "," between items as old has it (or, when old
// does not show, "," in a compact file).
func arrayLike(old []byte, items []string, compact bool) string {
	quoted := make([]string, len(items))
	for i, it := range items {
		quoted[i] = jsondata.StdString(it)
	}
	inner := bytes.TrimSpace(bytes.TrimSuffix(bytes.TrimPrefix(old, []byte("[")), []byte("]")))
	if bytes.IndexByte(old, '\n') >= 0 && len(inner) > 0 {
		body := old[1 : len(old)-1]
		itemLead := string(body[:len(body)-len(bytes.TrimLeft(body, " \t\r\n"))])
		closeLead := string(body[len(bytes.TrimRight(body, " \t\r\n")):])
		return "[" + itemLead + strings.Join(quoted, ","+itemLead) + closeLead + "]"
	}
	sep := ", "
	switch {
	case bytes.Contains(inner, []byte(", ")):
	case bytes.Contains(inner, []byte(",")), compact:
		sep = ","
	}
	return "[" + strings.Join(quoted, sep) + "]"
}

// apply makes the edits, which do not overlap, on a copy of data.
func apply(data []byte, edits []edit) []byte {
	sort.Slice(edits, func(i, j int) bool { return edits[i].start < edits[j].start })
	var b bytes.Buffer
	at := 0
	for _, e := range edits {
		b.Write(data[at:e.start])
		b.WriteString(e.text)
		at = e.end
	}
	b.Write(data[at:])
	return b.Bytes()
}

// IsWrapped reports whether a server's command line already runs the
// recorder: `reelier mcp --wrap …`, by path or through a package runner
// (`npx -y reelier mcp --wrap …`, or the original's @seldonframe/reelier).
func IsWrapped(program string, args []string) bool {
	argv := append([]string{program}, args...)
	var reelier, mcp, wrap bool
	for _, a := range argv {
		switch {
		case a == "mcp":
			mcp = reelier
		case a == "--wrap":
			wrap = mcp
		case isReelier(a):
			reelier = true
		}
	}
	return reelier && mcp && wrap
}

// isReelier reports whether a word names the reelier program or package.
func isReelier(word string) bool {
	word = strings.TrimPrefix(word, "@seldonframe/")
	if i := strings.LastIndexByte(word, '@'); i > 0 {
		word = word[:i]
	}
	base := path.Base(strings.ReplaceAll(word, `\`, "/"))
	return base == "reelier" || base == "reelier.exe"
}

// Describe renders a change as one line of install's report.
func (c Change) Describe() string {
	name := c.Server
	if c.Project != "" {
		name = fmt.Sprintf("%s (project %s)", c.Server, c.Project)
	}
	switch c.Action {
	case ActionWrap:
		return fmt.Sprintf("wrap  %s: %s", name, c.Command)
	case ActionKeep:
		return fmt.Sprintf("keep  %s: %s", name, c.Reason)
	}
	return fmt.Sprintf("skip  %s: %s", name, c.Reason)
}
