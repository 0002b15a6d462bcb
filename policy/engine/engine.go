// Package engine is the seatbelt's policy engine: it parses policy files
// (YAML with node positions), type-checks every rule's `when` as a CEL
// expression (cel-go) and evaluates the rules for each call. It is the
// only package of the module that imports cel-go; the programs that link
// it are reelier-seatbelt and the tests, so that the reelier program's
// start-up does not initialise CEL (SPEC.md §13).
package engine

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/google/cel-go/cel"
	celast "github.com/google/cel-go/common/ast"
	"github.com/google/cel-go/common/types"
	"github.com/reelier/reelier/policy"
	"go.yaml.in/yaml/v3"
)

// costLimit bounds the work of evaluating one expression (CEL's cost
// units): a rule that would cost more stops and decides deny.
const costLimit = 100_000

// CEL is the engine, as policy.Engine.
type CEL struct{}

// Load implements policy.Engine: Load.
func (CEL) Load(root string, files ...string) (*policy.Policy, error) { return Load(root, files...) }

// Parse implements policy.Engine: Parse.
func (CEL) Parse(file string, data []byte) (*policy.Policy, error) {
	p, err := parse(file, data)
	if err != nil {
		return nil, err
	}
	return p.compiled(), nil
}

// Parse reads one policy file's bytes (policy.Engine's Parse).
func Parse(file string, data []byte) (*policy.Policy, error) { return CEL{}.Parse(file, data) }

// Load reads policy files, in order, and combines them: the rules of the
// first file, then those of the next; the default is the first a file
// sets. A file under the project folder root that is a symbolic link to
// somewhere outside root is refused; root "" checks nothing.
func Load(root string, files ...string) (*policy.Policy, error) {
	if len(files) == 0 {
		return nil, errors.New("policy: no file given")
	}
	out := &parsed{def: policy.Allow}
	var digests []string
	defaultSet := false
	for _, f := range files {
		data, err := policy.ReadFile(root, f)
		if err != nil {
			return nil, err
		}
		p, err := parse(f, data)
		if err != nil {
			return nil, err
		}
		out.files = append(out.files, f)
		out.rules = append(out.rules, p.rules...)
		digests = append(digests, p.digest)
		if p.defaultSet && !defaultSet {
			out.def, defaultSet = p.def, true
		}
	}
	if len(digests) == 1 {
		out.digest = digests[0]
	} else {
		out.digest = policy.DigestOf([]byte(strings.Join(digests, "\n") + "\n"))
	}
	return out.compiled(), nil
}

// rule is a policy rule with its compiled condition.
type rule struct {
	policy.Rule
	prg cel.Program
}

// parsed is one file, or files combined, before it is a policy.Policy.
type parsed struct {
	files      []string
	digest     string
	def        policy.Action
	defaultSet bool
	rules      []rule
}

// compiled is p as a policy.Policy whose Decider evaluates its rules.
func (p *parsed) compiled() *policy.Policy {
	out := &policy.Policy{Files: p.files, Digest: p.digest, Default: p.def}
	for _, r := range p.rules {
		out.Rules = append(out.Rules, r.Rule)
	}
	out.Decider = &decider{rules: p.rules, def: p.def, digest: p.digest}
	return out
}

var (
	envOnce sync.Once
	env     *cel.Env
	envErr  error
)

// Env is the CEL environment every rule is checked in: server
// (map of string to string: name, command, host), tool (string), args
// and annotations (maps of string to dyn) and effect (string).
func Env() (*cel.Env, error) {
	envOnce.Do(func() {
		env, envErr = cel.NewEnv(
			cel.Variable("server", cel.MapType(cel.StringType, cel.StringType)),
			cel.Variable("tool", cel.StringType),
			cel.Variable("args", cel.MapType(cel.StringType, cel.DynType)),
			cel.Variable("annotations", cel.MapType(cel.StringType, cel.DynType)),
			cel.Variable("effect", cel.StringType),
			cel.ParserExpressionSizeLimit(policy.MaxExpr),
			cel.ParserRecursionLimit(64),
			cel.CrossTypeNumericComparisons(true),
		)
	})
	return env, envErr
}

// parse reads one policy file's bytes; file names it in errors. Every
// mistake found is returned, as policy.Errors.
func parse(file string, data []byte) (*parsed, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, yamlError(file, err)
	}
	p := &parsed{files: []string{file}, digest: policy.DigestOf(data), def: policy.Allow}
	var errs policy.Errors
	at := func(n *yaml.Node, format string, a ...any) {
		errs = append(errs, &policy.Error{File: file, Line: n.Line, Col: n.Column, Msg: fmt.Sprintf(format, a...)})
	}
	if len(doc.Content) == 0 {
		return nil, policy.Errors{{File: file, Line: 1, Col: 1, Msg: "empty policy: a policy has `rules:`"}}
	}
	top := doc.Content[0]
	if top.Kind != yaml.MappingNode {
		at(top, "a policy is a mapping with `rules:` (and optionally `version:` and `default:`)")
		return nil, errs
	}
	var rules *yaml.Node
	seen := map[string]bool{}
	for k := 0; k+1 < len(top.Content); k += 2 {
		key, val := top.Content[k], top.Content[k+1]
		if seen[key.Value] {
			at(key, "%q is given twice", key.Value)
			continue
		}
		seen[key.Value] = true
		switch key.Value {
		case "version":
			if val.Kind != yaml.ScalarNode || val.Value != "1" {
				at(val, "unknown version %q: this Reelier reads version 1", val.Value)
			}
		case "default":
			a := policy.Action(val.Value)
			if val.Kind != yaml.ScalarNode || !a.Valid() {
				at(val, "default: %q is not an action (allow, deny, dry-run or ask)", val.Value)
				continue
			}
			p.def, p.defaultSet = a, true
		case "rules":
			rules = val
		default:
			at(key, "unknown field %q (a policy has version, default and rules)", key.Value)
		}
	}
	if rules == nil {
		if len(errs) == 0 {
			at(top, "a policy has `rules:`, a list")
		}
		return nil, errs
	}
	if rules.Kind != yaml.SequenceNode {
		at(rules, "rules: is a list of rules")
		return nil, errs
	}
	lines := bytes.Split(data, []byte("\n"))
	names := map[string]bool{}
	e, err := Env()
	if err != nil {
		return nil, err
	}
	for _, rn := range rules.Content {
		if rn.Kind != yaml.MappingNode {
			at(rn, "a rule is a mapping with name, when, action and message")
			continue
		}
		r := rule{Rule: policy.Rule{File: file}}
		var when *yaml.Node
		rseen := map[string]bool{}
		for k := 0; k+1 < len(rn.Content); k += 2 {
			key, val := rn.Content[k], rn.Content[k+1]
			if rseen[key.Value] {
				at(key, "%q is given twice in this rule", key.Value)
				continue
			}
			rseen[key.Value] = true
			if val.Kind != yaml.ScalarNode {
				at(val, "%s: is a string", key.Value)
				continue
			}
			switch key.Value {
			case "name":
				r.Name = val.Value
			case "when":
				r.When, when = val.Value, val
			case "action":
				r.Action = policy.Action(val.Value)
				if !r.Action.Valid() {
					at(val, "action: %q is not an action (allow, deny, dry-run or ask)", val.Value)
				}
			case "message":
				r.Message = val.Value
			default:
				at(key, "unknown field %q in a rule (a rule has name, when, action and message)", key.Value)
			}
		}
		switch {
		case r.Name == "":
			at(rn, "a rule needs a name")
		case names[r.Name]:
			at(rn, "rule %q: the name is used twice", r.Name)
		}
		names[r.Name] = true
		if r.Action == "" {
			at(rn, "rule %q needs an action (allow, deny, dry-run or ask)", r.Name)
		}
		if when == nil {
			at(rn, "rule %q needs a `when:` condition (write `when: \"true\"` for every call)", r.Name)
			continue
		}
		r.Line, r.Col = when.Line, when.Column
		if len(r.When) > policy.MaxExpr {
			at(when, "rule %q: the condition is %d bytes, over the limit of %d", r.Name, len(r.When), policy.MaxExpr)
			continue
		}
		ast, iss := e.Compile(r.When)
		if iss != nil && iss.Err() != nil {
			for _, ce := range iss.Errors() {
				line, col := exprPlace(when, lines, ce.Location.Line(), ce.Location.Column())
				errs = append(errs, &policy.Error{File: file, Line: line, Col: col, Msg: fmt.Sprintf("rule %q: %s", r.Name, strings.TrimSuffix(ce.Message, " (in container '')"))})
			}
			continue
		}
		if !ast.OutputType().IsExactType(types.BoolType) {
			at(when, "rule %q: the condition is a %s, not a bool", r.Name, ast.OutputType())
			continue
		}
		// Without a comprehension (all, exists, map, filter…) an
		// expression's work is bounded by its size, so only those that
		// have one pay for cost tracking.
		opts := []cel.ProgramOption{cel.EvalOptions(cel.OptOptimize)}
		nav := celast.NavigateAST(ast.NativeRep())
		if len(celast.MatchDescendants(nav, celast.KindMatcher(celast.ComprehensionKind))) > 0 {
			opts = append(opts, cel.CostLimit(costLimit))
		}
		prg, err := e.Program(ast, opts...)
		if err != nil {
			at(when, "rule %q: %v", r.Name, err)
			continue
		}
		r.prg = prg
		p.rules = append(p.rules, r)
	}
	if len(errs) > 0 {
		slices.SortStableFunc(errs, func(a, b *policy.Error) int {
			if a.Line != b.Line {
				return a.Line - b.Line
			}
			return a.Col - b.Col
		})
		return nil, errs
	}
	return p, nil
}

// exprPlace maps a place in a `when` expression (CEL's 1-based line,
// 0-based column) to the YAML file's line and column.
func exprPlace(n *yaml.Node, lines [][]byte, line, col int) (int, int) {
	if line < 1 {
		line = 1
	}
	if col < 0 {
		col = 0
	}
	switch n.Style {
	case yaml.LiteralStyle, yaml.FoldedStyle:
		// The text starts on the line after the indicator, every line
		// indented as its first.
		l := n.Line + line
		indent := 0
		if n.Line < len(lines) {
			s := lines[n.Line]
			for indent < len(s) && s[indent] == ' ' {
				indent++
			}
		}
		return l, indent + 1 + col
	case yaml.DoubleQuotedStyle, yaml.SingleQuotedStyle:
		if line == 1 {
			return n.Line, n.Column + 1 + col
		}
	default:
		if line == 1 {
			return n.Line, n.Column + col
		}
	}
	// A flow scalar over several lines: the line is right, the column
	// counts from its first non-blank character.
	l := n.Line + line - 1
	indent := 0
	if l-1 < len(lines) {
		s := lines[l-1]
		for indent < len(s) && (s[indent] == ' ' || s[indent] == '\t') {
			indent++
		}
	}
	return l, indent + 1 + col
}

func yamlError(file string, err error) error {
	// yaml.v3 says "yaml: line N: message".
	msg := err.Error()
	var line int
	if _, e := fmt.Sscanf(msg, "yaml: line %d:", &line); e == nil && line > 0 {
		rest := msg[strings.Index(msg, ":")+1:]
		rest = rest[strings.Index(rest, ":")+1:]
		return policy.Errors{{File: file, Line: line, Col: 1, Msg: "not YAML:" + rest}}
	}
	return policy.Errors{{File: file, Line: 1, Col: 1, Msg: "not YAML: " + strings.TrimPrefix(msg, "yaml: ")}}
}
