package agentcfg

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/pelletier/go-toml/v2"
	"github.com/pelletier/go-toml/v2/unstable"
)

// The Codex CLI keeps its MCP servers in TOML: config.toml under
// $CODEX_HOME (~/.codex), or a project's .codex/config.toml, as
// [mcp_servers.<name>] tables of command, args, env, cwd and more, or a
// url for a streamable HTTP server. The rewrite below splices new bytes
// into the value ranges the go-toml parser reports, so comments, key
// order, quoting and unknown keys stay the file's own.

// isTOML reports whether a config is a TOML file (Codex's), by its name.
func isTOML(path string) bool { return strings.EqualFold(filepath.Ext(path), ".toml") }

// CodexCandidates returns where the Codex CLI keeps MCP configs, in
// detection order: the project's .codex/config.toml in dir, then
// config.toml under $CODEX_HOME, or under ~/.codex when CODEX_HOME is not
// set (skipped when neither is known).
func CodexCandidates(dir, home string, getenv func(string) string) []Config {
	out := []Config{{Path: filepath.Join(dir, ".codex", "config.toml"), Scope: ScopeProject, Agent: "codex"}}
	root := getenv("CODEX_HOME")
	if root == "" && home != "" {
		root = filepath.Join(home, ".codex")
	}
	if root != "" {
		user := filepath.Join(root, "config.toml")
		if filepath.Clean(user) != filepath.Clean(out[0].Path) {
			out = append(out, Config{Path: user, Scope: ScopeUser, Agent: "codex"})
		}
	}
	return out
}

// tomlLeaf is one key of the document that is not a table: its full path
// (table headers, dotted keys and inline tables resolved), its value and
// where its key-value pair is.
type tomlLeaf struct {
	path  []string
	kind  unstable.Kind
	value span   // the value's bytes
	pair  span   // the whole key = value
	key   span   // the key as written, up to its last part
	last  span   // the key's last part
	str   string // a String value's contents
	strs  []string
	ok    bool // kind is String, or an Array of Strings only
	// inline is set when the pair sits inside an inline table.
	inline bool
}

// tomlServer gathers the leaves of one [mcp_servers.<name>] server.
type tomlServer struct {
	name          string
	command, args *tomlLeaf
	url           bool
}

// planInstallTOML is PlanInstall for a Codex config.toml.
func planInstallTOML(cfg Config, reelier string) (*Plan, error) {
	data, err := os.ReadFile(cfg.Path)
	if err != nil {
		return nil, err
	}
	if err := checkTOML(cfg.Path, data); err != nil {
		return nil, err
	}
	leaves, err := tomlLeaves(data)
	if err != nil {
		return nil, &ParseError{Path: cfg.Path, Err: err}
	}
	p := &Plan{Config: cfg, Original: data}
	var edits []edit
	for _, s := range tomlServers(leaves) {
		ch := Change{Server: s.name}
		var es []edit
		ch.Action, ch.Reason, ch.Command, es = planTOMLServer(data, s, reelier)
		p.Changes = append(p.Changes, ch)
		edits = append(edits, es...)
	}
	p.Updated = apply(data, edits)
	if err := checkTOML(cfg.Path, p.Updated); err != nil {
		return nil, fmt.Errorf("internal error: the rewritten config is not valid TOML (%v); nothing was changed", err)
	}
	return p, nil
}

// checkTOML reports a config that is not a valid TOML document, at the
// line and column (in characters) of the first problem.
func checkTOML(path string, data []byte) error {
	var v map[string]any
	err := toml.Unmarshal(data, &v)
	if err == nil {
		return nil
	}
	pe := &ParseError{Path: path, Err: err}
	var de *toml.DecodeError
	if errors.As(err, &de) {
		row, col := de.Position()
		pe.Line, pe.Column = row, charColumn(data, row, col)
		pe.Err = errors.New(firstLine(de.Error()))
	}
	return pe
}

// charColumn turns a 1-based byte column on a 1-based row into a column
// counted in characters.
func charColumn(data []byte, row, col int) int {
	line := data
	for i := 1; i < row; i++ {
		nl := bytes.IndexByte(line, '\n')
		if nl < 0 {
			return col
		}
		line = line[nl+1:]
	}
	if col-1 > len(line) || col < 1 {
		return col
	}
	return utf8.RuneCount(line[:col-1]) + 1
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return strings.TrimPrefix(s, "toml: ")
}

// tomlLeaves walks the document's expressions and returns every key that
// holds a value, with its full path.
func tomlLeaves(data []byte) ([]tomlLeaf, error) {
	var p unstable.Parser
	p.Reset(data)
	var table []string
	var out []tomlLeaf
	for p.NextExpression() {
		e := p.Expression()
		switch e.Kind {
		case unstable.Table, unstable.ArrayTable:
			table = keyParts(e.Key())
			if e.Kind == unstable.ArrayTable {
				table = append(table, "[]")
			}
		case unstable.KeyValue:
			out = keyValueLeaves(&p, e, table, false, out)
		}
	}
	if err := p.Error(); err != nil {
		return nil, err
	}
	return out, nil
}

// keyValueLeaves adds the leaves of one key = value, walking into an
// inline table.
func keyValueLeaves(p *unstable.Parser, kv *unstable.Node, prefix []string, inline bool, out []tomlLeaf) []tomlLeaf {
	it := kv.Key()
	var parts []string
	var first, lastKey *unstable.Node
	for it.Next() {
		n := it.Node()
		if first == nil {
			first = n
		}
		lastKey = n
		parts = append(parts, string(n.Data))
	}
	path := append(append([]string(nil), prefix...), parts...)
	v := kv.Value()
	if v.Kind == unstable.InlineTable {
		children := v.Children()
		for children.Next() {
			if c := children.Node(); c.Kind == unstable.KeyValue {
				out = keyValueLeaves(p, c, path, true, out)
			}
		}
		return out
	}
	pair := rangeSpan(kv.Raw)
	keyStart := rangeSpan(first.Raw).start
	l := tomlLeaf{
		path:   path,
		kind:   v.Kind,
		pair:   pair,
		key:    span{keyStart, rangeSpan(lastKey.Raw).end},
		last:   rangeSpan(lastKey.Raw),
		inline: inline,
	}
	// The value runs from after the '=' (and its blanks) to the pair's end.
	eq := bytes.IndexByte(p.Data()[l.last.end:pair.end], '=')
	if eq < 0 {
		return out
	}
	start := l.last.end + eq + 1
	for start < pair.end && (p.Data()[start] == ' ' || p.Data()[start] == '\t') {
		start++
	}
	l.value = span{start, pair.end}
	switch v.Kind {
	case unstable.String:
		l.str, l.ok = string(v.Data), true
	case unstable.Array:
		l.ok = true
		elems := v.Children()
		for elems.Next() {
			switch n := elems.Node(); n.Kind {
			case unstable.String:
				l.strs = append(l.strs, string(n.Data))
			case unstable.Comment:
			default:
				l.ok = false
			}
		}
	}
	return append(out, l)
}

// keyParts is the parts of a (dotted) key.
func keyParts(it unstable.Iterator) []string {
	var parts []string
	for it.Next() {
		parts = append(parts, string(it.Node().Data))
	}
	return parts
}

func rangeSpan(r unstable.Range) span {
	return span{int(r.Offset), int(r.Offset + r.Length)}
}

// tomlServers groups the leaves under mcp_servers by server, in the order
// the servers first appear.
func tomlServers(leaves []tomlLeaf) []*tomlServer {
	byName := map[string]*tomlServer{}
	var out []*tomlServer
	for i := range leaves {
		l := &leaves[i]
		if len(l.path) < 3 || l.path[0] != "mcp_servers" || l.path[1] == "[]" {
			continue
		}
		name := l.path[1]
		s := byName[name]
		if s == nil {
			s = &tomlServer{name: name}
			byName[name] = s
			out = append(out, s)
		}
		if len(l.path) != 3 {
			continue // env.X, tools.X.approval_mode, …
		}
		switch l.path[2] {
		case "command":
			s.command = l
		case "args":
			s.args = l
		case "url":
			s.url = true
		}
	}
	return out
}

// planTOMLServer decides what to do with one Codex server and returns the
// edits that wrap it.
func planTOMLServer(data []byte, s *tomlServer, reelier string) (action, reason, command string, edits []edit) {
	switch {
	case s.url:
		return ActionSkip, ReasonRemote, "", nil
	case s.command == nil:
		return ActionSkip, ReasonNoCommand, "", nil
	case s.command.kind != unstable.String:
		return ActionSkip, ReasonBadCommand, "", nil
	case s.args != nil && (s.args.kind != unstable.Array || !s.args.ok):
		return ActionSkip, ReasonBadArgs, "", nil
	}
	var argv []string
	if s.args != nil {
		argv = s.args.strs
	}
	program := s.command.str
	command = ShellJoin(append([]string{program}, argv...))
	if IsWrapped(program, argv) {
		return ActionKeep, ReasonWrapped, command, nil
	}
	newArgs := []string{"mcp", "--wrap", command}
	edits = []edit{{s.command.value, tomlString(reelier)}}
	if s.args != nil {
		return ActionWrap, "", command, append(edits, edit{s.args.value, tomlArrayLike(data[s.args.value.start:s.args.value.end], newArgs)})
	}
	return ActionWrap, "", command, append(edits, addArgs(data, s.command, newArgs))
}

// addArgs inserts args = [...] beside a command that has none: after it
// in an inline table, on the next line (indented like it, its key
// written the same way) otherwise.
func addArgs(data []byte, cmd *tomlLeaf, args []string) edit {
	sep := string(data[cmd.last.end:cmd.value.start]) // " = "
	key := string(data[cmd.key.start:cmd.last.start]) + "args"
	pair := key + sep + tomlArrayLike(nil, args)
	if cmd.inline {
		return edit{span{cmd.value.end, cmd.value.end}, ", " + pair}
	}
	lineStart := bytes.LastIndexByte(data[:cmd.pair.start], '\n') + 1
	indent := data[lineStart:cmd.pair.start]
	if len(bytes.Trim(indent, " \t")) != 0 {
		indent = nil
	}
	nl := "\n"
	if bytes.Contains(data, []byte("\r\n")) {
		nl = "\r\n"
	}
	end := bytes.IndexByte(data[cmd.pair.end:], '\n')
	if end < 0 { // the last line, with no newline
		return edit{span{len(data), len(data)}, nl + string(indent) + pair}
	}
	at := cmd.pair.end + end + 1
	return edit{span{at, at}, string(indent) + pair + nl}
}

// tomlArrayLike renders items as a TOML array of basic strings laid out
// like old: one item a line, with old's indentation, when old spans lines;
// on one line otherwise, with ", " between items, or "," when old has no
// space after its commas.
func tomlArrayLike(old []byte, items []string) string {
	quoted := make([]string, len(items))
	for i, it := range items {
		quoted[i] = tomlString(it)
	}
	inner := bytes.TrimSpace(bytes.TrimSuffix(bytes.TrimPrefix(old, []byte("[")), []byte("]")))
	if bytes.IndexByte(old, '\n') >= 0 && len(inner) > 0 && !bytes.Contains(old, []byte("#")) {
		body := old[1 : len(old)-1]
		itemLead := string(body[:len(body)-len(bytes.TrimLeft(body, " \t\r\n"))])
		closeLead := string(body[len(bytes.TrimRight(body, " \t\r\n")):])
		trailing := ""
		if bytes.HasSuffix(inner, []byte(",")) {
			trailing = ","
		}
		return "[" + itemLead + strings.Join(quoted, ","+itemLead) + trailing + closeLead + "]"
	}
	sep := ", "
	if bytes.Contains(inner, []byte(",")) && !bytes.Contains(inner, []byte(", ")) {
		sep = ","
	}
	return "[" + strings.Join(quoted, sep) + "]"
}

// tomlString quotes s as a TOML basic string: backslash and quote
// escaped, control characters as \uXXXX (or their short escapes).
func tomlString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"':
			b.WriteString(`\"`)
		case r == '\\':
			b.WriteString(`\\`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\r':
			b.WriteString(`\r`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\u%04X`, r)
		case r == utf8.RuneError:
			b.WriteString(`\uFFFD`)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}
