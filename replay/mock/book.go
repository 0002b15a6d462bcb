package mock

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/reelier/reelier/internal/termtext"
	"github.com/reelier/reelier/internal/words"
	"github.com/reelier/reelier/tool/jsondata"
	"github.com/reelier/reelier/trace"
)

// PermissiveSchema is the input schema of a tool whose recording kept
// only its name: any object.
const PermissiveSchema = `{"type":"object"}`

// Recorded is one recorded call and its result.
type Recorded struct {
	// Path and Line place the call record.
	Path string
	Line int
	// Tool and Args are what the agent sent; args is Args parsed.
	Tool string
	Args json.RawMessage
	args any
	// Result is the call's result, nil when the trace has none (the
	// recording stopped before the tool answered); ResultLine places it.
	Result     *trace.Result
	ResultLine int
}

// Where names the call record: "PATH:LINE".
func (r *Recorded) Where() string { return fmt.Sprintf("%s:%d", r.Path, r.Line) }

// Tool is one tool the mock serves.
type Tool struct {
	// Name is the name the tool was exposed and recorded under.
	Name string
	// Def is the definition served in tools/list, exact JSON: the
	// recorded toolDef, or one made from the name (and the declared
	// annotations) when the recording kept no definition.
	Def json.RawMessage
	// Typed is Def decoded for the SDK.
	Typed *mcp.Tool
	// Permissive is set when the recording kept only the tool's name.
	Permissive bool
	// From is the trace the definition came from.
	From string
	// Calls are the tool's recorded calls, trace by trace in the order
	// the traces were given, each in recording order.
	Calls []*Recorded
}

// Book is what the mock answers from: the tools of one or more
// recordings and their calls.
type Book struct {
	// Tools are served in the order first met: each trace's meta (its
	// servers' tools in --wrap order, then toolAnnotations), then its
	// calls.
	Tools  []*Tool
	byName map[string]*Tool
	// Permissive names the traces that kept tool names only, and
	// Warnings says what else a user should know; the command prints
	// both once on stderr.
	Permissive []string
	Warnings   []string
	// calls are every recorded call, in recorded order (trace by trace).
	calls []*Recorded
}

// Calls returns every recorded call, in recorded order, trace by trace.
func (b *Book) Calls() []*Recorded { return b.calls }

// Tool returns the tool served under name.
func (b *Book) Tool(name string) (*Tool, bool) {
	t, ok := b.byName[name]
	return t, ok
}

// Names returns the served tools' names, in order.
func (b *Book) Names() []string {
	names := make([]string, len(b.Tools))
	for k, t := range b.Tools {
		names[k] = t.Name
	}
	return names
}

// Notices are the lines the command prints once on stderr before it
// serves: each warning, and how many tools are served with the permissive
// schema because their recordings kept names only. Text from the traces
// is escaped for a terminal.
func (b *Book) Notices() []string {
	var out []string
	for _, w := range b.Warnings {
		out = append(out, "reelier mock: warning: "+termtext.Line(w))
	}
	n := 0
	for _, t := range b.Tools {
		if t.Permissive {
			n++
		}
	}
	if n > 0 {
		out = append(out, fmt.Sprintf("reelier mock: %d of %d tools are served with a permissive input schema %s: %s kept their names only, not their definitions",
			n, len(b.Tools), PermissiveSchema, termtext.Line(strings.Join(b.Permissive, ", "))))
	}
	return out
}

// Load reads the traces at paths into one book. A trace that cannot be
// read is reported "PATH:LINE: reason" (trace.FileError); one that names
// no tool and has no call is an error naming it, since there is nothing
// to serve from it.
func Load(paths []string) (*Book, error) {
	if len(paths) == 0 {
		return nil, errors.New("no trace given: name at least one recording (a .jsonl file reelier mcp wrote)")
	}
	b := &Book{byName: map[string]*Tool{}}
	for _, path := range paths {
		if err := b.add(path); err != nil {
			return nil, err
		}
	}
	return b, nil
}

// add loads one trace.
func (b *Book) add(path string) error {
	tr, err := trace.Load(path)
	if err != nil {
		return trace.InFile(path, err)
	}
	before := len(b.Tools)
	permissive := false
	calls := 0
	for _, srv := range tr.Meta.Servers {
		defs := map[string]json.RawMessage{}
		for k, raw := range srv.ToolDefs {
			var head struct {
				Name string `json:"name"`
			}
			if json.Unmarshal(raw, &head) != nil || head.Name == "" {
				b.Warnings = append(b.Warnings, fmt.Sprintf("%s: server %q: toolDefs[%d] has no name; left out", path, srv.Name, k))
				continue
			}
			defs[head.Name] = raw
		}
		for _, name := range srv.Tools {
			if raw, ok := defs[name]; ok {
				if err := b.define(path, name, raw); err != nil {
					b.Warnings = append(b.Warnings, fmt.Sprintf("%s: server %q: tool %q: %v; served with a permissive input schema", path, srv.Name, name, err))
					permissive = b.permissive(path, name, tr.Meta) || permissive
				}
				delete(defs, name)
				continue
			}
			permissive = b.permissive(path, name, tr.Meta) || permissive
		}
		// A definition for a name the server's tool list lacks.
		for _, raw := range srv.ToolDefs {
			var head struct {
				Name string `json:"name"`
			}
			if json.Unmarshal(raw, &head) == nil && defs[head.Name] != nil {
				if err := b.define(path, head.Name, raw); err != nil {
					b.Warnings = append(b.Warnings, fmt.Sprintf("%s: server %q: tool %q: %v; served with a permissive input schema", path, srv.Name, head.Name, err))
					permissive = b.permissive(path, head.Name, tr.Meta) || permissive
				}
			}
		}
	}
	for _, name := range sortedKeys(tr.Meta.ToolAnnotations) {
		permissive = b.permissive(path, name, tr.Meta) || permissive
	}
	byIndex := map[int]*Recorded{}
	for k, rec := range tr.Records {
		switch rec := rec.(type) {
		case *trace.Call:
			calls++
			args := rec.Args
			parsed, err := jsondata.Parse(string(args))
			if err != nil {
				// The trace reader checked the line; this cannot happen
				// for a trace it accepted.
				return trace.InFile(path, &trace.LineError{Line: tr.Lines[k], Field: "args", Msg: err.Error()})
			}
			permissive = b.permissive(path, rec.Tool, tr.Meta) || permissive
			r := &Recorded{Path: path, Line: tr.Lines[k], Tool: rec.Tool, Args: args, args: parsed}
			byIndex[rec.I] = r
			t := b.byName[rec.Tool]
			t.Calls = append(t.Calls, r)
			b.calls = append(b.calls, r)
		case *trace.Result:
			if r := byIndex[rec.I]; r != nil {
				r.Result, r.ResultLine = rec, tr.Lines[k]
			}
		}
	}
	if len(b.Tools) == before && calls == 0 && !b.namesAny(tr.Meta) {
		return &trace.FileError{Path: path, Err: errors.New("no tools to serve: the meta record lists no servers' tools and no toolAnnotations, and the trace has no calls")}
	}
	if permissive {
		b.Permissive = append(b.Permissive, path)
	}
	return nil
}

// namesAny reports whether the meta names a tool at all.
func (b *Book) namesAny(m *trace.Meta) bool {
	if len(m.ToolAnnotations) > 0 {
		return true
	}
	for _, s := range m.Servers {
		if len(s.Tools) > 0 || len(s.ToolDefs) > 0 {
			return true
		}
	}
	return false
}

// define adds a tool from its recorded definition, unless a trace given
// earlier defined it already (the first definition wins; a different one
// is a warning).
func (b *Book) define(path, name string, raw json.RawMessage) error {
	var typed mcp.Tool
	if err := json.Unmarshal(raw, &typed); err != nil {
		return fmt.Errorf("its recorded definition cannot be read: %v", err)
	}
	if err := objectSchema(typed.InputSchema); err != nil {
		return err
	}
	if typed.OutputSchema != nil {
		if err := objectSchema(typed.OutputSchema); err != nil {
			typed.OutputSchema = nil
			b.Warnings = append(b.Warnings, fmt.Sprintf("%s: tool %q: output schema left out: %v", path, name, err))
		}
	}
	if old, ok := b.byName[name]; ok {
		if old.Permissive {
			old.Def, old.Typed, old.Permissive, old.From = raw, &typed, false, path
			return nil
		}
		if !sameJSON(old.Def, raw) {
			b.Warnings = append(b.Warnings, fmt.Sprintf("%s: tool %q is defined differently than in %s; serving the definition from %s", path, name, old.From, old.From))
		}
		return nil
	}
	t := &Tool{Name: name, Def: raw, Typed: &typed, From: path}
	b.Tools = append(b.Tools, t)
	b.byName[name] = t
	return nil
}

// permissive adds a tool known by name only, with the annotations the
// meta declared for it, unless it is known already; it reports whether
// it added one.
func (b *Book) permissive(path, name string, m *trace.Meta) bool {
	if _, ok := b.byName[name]; ok {
		return false
	}
	def := map[string]any{
		"name":        name,
		"description": "A recorded tool served by reelier mock from " + path + " (the recording kept its name, not its definition).",
		"inputSchema": json.RawMessage(PermissiveSchema),
	}
	if a, ok := m.ToolAnnotations[name]; ok {
		def["annotations"] = a
	}
	raw, _ := json.Marshal(def)
	var typed mcp.Tool
	_ = json.Unmarshal(raw, &typed)
	t := &Tool{Name: name, Def: raw, Typed: &typed, Permissive: true, From: path}
	b.Tools = append(b.Tools, t)
	b.byName[name] = t
	return true
}

// loosen replaces the tool's definition with one the SDK takes: its
// name, description and annotations as recorded, the permissive input
// schema.
func (t *Tool) loosen() {
	var rec struct {
		Title       string          `json:"title"`
		Description string          `json:"description"`
		Annotations json.RawMessage `json:"annotations"`
	}
	_ = json.Unmarshal(t.Def, &rec)
	def := map[string]any{"name": t.Name, "inputSchema": json.RawMessage(PermissiveSchema)}
	if rec.Title != "" {
		def["title"] = rec.Title
	}
	if rec.Description != "" {
		def["description"] = rec.Description
	}
	if len(rec.Annotations) > 0 && rec.Annotations[0] == '{' {
		def["annotations"] = rec.Annotations
	}
	raw, _ := json.Marshal(def)
	var typed mcp.Tool
	_ = json.Unmarshal(raw, &typed)
	t.Def, t.Typed, t.Permissive = raw, &typed, true
}

// objectSchema checks what the SDK requires of a served tool's schema:
// a JSON object whose type is "object".
func objectSchema(schema any) error {
	raw, err := json.Marshal(schema)
	if err != nil || schema == nil {
		return errors.New("it has no input schema")
	}
	var m map[string]any
	if json.Unmarshal(raw, &m) != nil {
		return fmt.Errorf("its schema is not a JSON object: %s", words.ClipRunes(string(raw), 60))
	}
	if m["type"] != "object" {
		return fmt.Errorf(`its schema's type is %s, not "object"`, words.ClipRunes(fmt.Sprint(m["type"]), 40))
	}
	return nil
}

// sameJSON compares two JSON documents by value.
func sameJSON(a, b []byte) bool {
	x, errA := jsondata.Parse(string(a))
	y, errB := jsondata.Parse(string(b))
	if errA != nil || errB != nil {
		return string(a) == string(b)
	}
	return equalValues(x, y)
}

// equalValues compares parsed JSON values: objects by member (order
// ignored), arrays by element, scalars as the skill's == does.
func equalValues(a, b any) bool {
	switch a := a.(type) {
	case *jsondata.Object:
		bo, ok := b.(*jsondata.Object)
		if !ok || len(distinct(a)) != len(distinct(bo)) {
			return false
		}
		for _, k := range distinct(a) {
			va, _ := a.Get(k)
			vb, ok := bo.Get(k)
			if !ok || !equalValues(va, vb) {
				return false
			}
		}
		return true
	case []any:
		bl, ok := b.([]any)
		if !ok || len(a) != len(bl) {
			return false
		}
		for i := range a {
			if !equalValues(a[i], bl[i]) {
				return false
			}
		}
		return true
	}
	return jsondata.StrictEqual(a, b)
}

// distinct returns an object's keys once each.
func distinct(o *jsondata.Object) []string {
	seen := map[string]bool{}
	var out []string
	for _, m := range o.Members {
		if !seen[m.Key] {
			seen[m.Key] = true
			out = append(out, m.Key)
		}
	}
	return out
}

func sortedKeys[V any](m map[string]V) []string { return slices.Sorted(maps.Keys(m)) }
