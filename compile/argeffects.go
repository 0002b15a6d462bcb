package compile

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/reelier/reelier/lang/ast"
	"github.com/reelier/reelier/lang/verbs"
	"github.com/reelier/reelier/tool/jsondata"
	"github.com/reelier/reelier/trace"
)

// A call's arguments can say more about what it does than its tool's
// name: `edit_tasks {"mode": "delete"}` deletes and `git_commit {"amend":
// true}` rewrites history, though edit and commit are plain writes. The
// first walk reads each call's top-level arguments (lang/verbs,
// SPEC.md §3 "Effect arguments"):
//
//   - a string argument whose name is a mode (mode, action, operation, op,
//     command, method) or whose schema in the trace's meta.servers is an
//     enum of verbs, read through the verb table like a tool name;
//   - a boolean flag set to true (force, amend, hard, overwrite, delete,
//     purge, …), which makes the call destructive.
//
// What the arguments say can only make a step more careful than its name
// and hints do. Each step keeps its own call's reading, so a tool called
// once to list and once to delete has a read-or-write step and a
// destructive one.

// argReading is what one call's arguments say about its effect.
type argReading struct {
	// class is the most severe reading, verbs.Destructive for a flag;
	// what names the argument that gave it (`the argument mode "delete"`,
	// `the flag amend: true`).
	class verbs.Class
	verb  string
	what  string
	// reach names a widening flag set beside a destructive reading
	// (`recursive: true`), or "".
	reach string
	// cl is the step's classification, made once from the tool's and
	// this reading.
	cl *Classification
}

// argSchemas holds, per tool, the names of the string arguments whose
// input schema is an enum of verbs.
type argSchemas map[string]map[string]bool

// readSchemas files the verb enums of every tool definition the meta
// record keeps. A definition that does not read is skipped.
func readSchemas(meta *trace.Meta) argSchemas {
	out := argSchemas{}
	for _, sv := range meta.Servers {
		for _, raw := range sv.ToolDefs {
			var def struct {
				Name        string `json:"name"`
				InputSchema struct {
					Properties map[string]struct {
						Enum []any `json:"enum"`
					} `json:"properties"`
				} `json:"inputSchema"`
			}
			if json.Unmarshal(raw, &def) != nil || def.Name == "" {
				continue
			}
			for key, p := range def.InputSchema.Properties {
				var values []string
				for _, v := range p.Enum {
					if s, ok := v.(string); ok {
						values = append(values, s)
					}
				}
				if verbs.VerbEnum(values) {
					if out[def.Name] == nil {
						out[def.Name] = map[string]bool{}
					}
					out[def.Name][key] = true
				}
			}
		}
	}
	return out
}

// readArgs reads one call's arguments; ok is false when they say nothing
// that could make a step more careful than a read. It walks the members
// of the arguments itself, and turns a name into a string only for a
// member that may count: every call's arguments pass through here.
func readArgs(args []byte, enums map[string]bool) (r argReading, ok bool) {
	var reachKey string
	i := jsondata.SpaceEnd(args, 0)
	if i >= len(args) || args[i] != '{' {
		return r, false
	}
	for j := jsondata.SpaceEnd(args, i+1); j < len(args) && args[j] == '"'; {
		kEnd := jsondata.StringEnd(args, j)
		if kEnd-1 <= j {
			break
		}
		rawKey := args[j+1 : kEnd-1]
		j = jsondata.SpaceEnd(args, jsondata.SpaceEnd(args, kEnd)+1) // past the colon
		end := jsondata.ValueEnd(args, j)
		value := args[j:end]
		j = jsondata.SpaceEnd(args, end)
		if j < len(args) && args[j] == ',' {
			j = jsondata.SpaceEnd(args, j+1)
		}
		switch {
		case string(value) == "true":
			key := memberName(rawKey)
			if w := verbs.FlagWord(key); w != "" {
				if r.class < verbs.Destructive {
					r = argReading{class: verbs.Destructive, verb: w, what: fmt.Sprintf("the flag %s: true", quoteKey(key))}
				}
			} else if reachKey == "" && verbs.ReachWord(key) != "" {
				reachKey = key
			}
		case len(value) > 0 && value[0] == '"':
			if !enums[string(rawKey)] && !verbs.IsModeKey(string(rawKey)) {
				continue
			}
			m, text := readMode(value)
			if m.Class == verbs.None || m.Class == verbs.Read || m.Class <= r.class {
				continue
			}
			r = argReading{class: m.Class, verb: m.Verb, what: fmt.Sprintf("the argument %s %s", quoteKey(memberName(rawKey)), quoteText(text))}
		}
	}
	if r.class == verbs.None {
		return r, false
	}
	if reachKey != "" && r.class == verbs.Destructive {
		r.reach = reachKey + ": true"
	}
	return r, true
}

// memberName decodes a member name as written between its quotes.
func memberName(raw []byte) string {
	var key string
	if bytes.IndexByte(raw, '\\') < 0 || json.Unmarshal(append(append([]byte{'"'}, raw...), '"'), &key) != nil {
		return string(raw)
	}
	return key
}

// readMode reads a mode argument's JSON string value through the verb
// table.
func readMode(value []byte) (verbs.Match, string) {
	var s string
	if json.Unmarshal(value, &s) != nil {
		return verbs.Match{}, ""
	}
	return verbs.Mode(s), s
}

// pairReadingArguments is the first walk (pair) with each call's
// arguments read on the way, while the walk holds them: the compiler
// keeps no call's arguments, only what they say about its effect. The
// k-th call is step k, as pair makes them.
func (c *compiler) pairReadingArguments() ([]string, error) {
	walk := c.src.walk
	defer func() { c.src.walk = walk }()
	var schemas argSchemas
	calls := 0
	c.src.walk = func(fn func(trace.Record, trace.Place) error) error {
		return walk(func(rec trace.Record, at trace.Place) error {
			switch rec := rec.(type) {
			case *trace.Meta:
				schemas = readSchemas(rec)
			case *trace.Call:
				calls++
				if r, ok := readArgs(rec.Args, schemas[rec.Tool]); ok {
					if c.argReadings == nil {
						c.argReadings = map[int]*argReading{}
					}
					p := new(argReading)
					*p = r
					c.argReadings[calls] = p
				}
			}
			return fn(rec, at)
		})
	}
	return c.pair()
}

// stepClass is a step's classification: its tool's (classify), made more
// careful by what its own call's arguments say.
func (c *compiler) stepClass(st *step) *Classification {
	base := c.classes[st.tool]
	if base == nil {
		base = c.classify(st.tool, c.annotations(st.tool))
	}
	r := c.argReadings[st.n]
	if r == nil {
		return base
	}
	if r.cl == nil {
		r.cl = raise(base, r, c.annotations(st.tool))
	}
	return r.cl
}

// raise returns base, or a classification more careful than base when
// the arguments ask for it.
func raise(base *Classification, r *argReading, ann *trace.Annotations) *Classification {
	var a trace.Annotations
	if ann != nil {
		a = *ann
	}
	effect := ast.EffectDestructive
	if r.class != verbs.Destructive {
		effect = classifyVerb(verbs.Match{Class: r.class, Verb: r.verb}, a).Effect
	}
	switch {
	case effectRank(effect) > effectRank(base.Effect):
	case base.Unclassified && effect == ast.EffectDestructive:
		// The name said nothing, and the arguments say what the step
		// does: it is destructive for a reason, not to be safe.
	default:
		return base
	}
	reason := r.what
	if r.reach != "" {
		reason += ", with " + r.reach
	}
	cl := &Classification{Effect: effect, Conflict: base.Conflict, Arguments: reason,
		Reason: fmt.Sprintf("%s, raised from %s (%s)", reason, base.Effect, base.Reason)}
	if base.Unclassified {
		cl.Reason = reason
	}
	return cl
}

// argumentQuestion says why a step is more careful than its tool's name.
func (c *compiler) argumentQuestion(st *step) {
	cl := st.class
	if cl.Arguments == "" {
		return
	}
	if c.toolCalls == nil {
		c.toolCalls = map[string]int{}
		for _, o := range c.steps {
			c.toolCalls[o.tool]++
		}
	}
	base := c.classify(st.tool, c.annotations(st.tool))
	gate := "--yes"
	if cl.Effect == ast.EffectIdempotentWrite {
		gate = "--allow-writes or --yes"
	}
	was := fmt.Sprintf("rather than %s as its tool alone gives (%s)", base.Effect, base.Reason)
	if base.Unclassified {
		was = "though the tool's name says nothing about what it does"
	}
	others := ""
	if c.toolCalls[st.tool] > 1 {
		others = " The tool's other calls keep the effect their own arguments give."
	}
	c.q.add(st.n, KindArgumentEffect, "%s: %s changes what the call does, so the step is %s %s; replay runs it only with %s.%s", ref(st), cl.Arguments, cl.Effect, was, gate, others)
}
