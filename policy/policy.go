// Package policy is Reelier's seatbelt: a YAML file of ordered rules whose
// conditions are CEL expressions over one tool call (the server, the
// tool, its arguments, its MCP annotations and its effect), each deciding
// allow, deny, dry-run or ask. The recording proxy (reelier mcp) and the
// replay (reelier run) ask a Policy before a call goes to a server.
//
// A file is read, every expression parsed and type-checked, when it is
// loaded: a mistake is an error at path:line:col of the YAML, and a
// policy that does not load must stop what would have run under it
// (fail closed). cel-go is touched only by Load and Parse, so a process
// that finds no policy file builds no CEL environment.
package policy

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/google/cel-go/cel"
	celast "github.com/google/cel-go/common/ast"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/interpreter"
	"go.yaml.in/yaml/v3"
)

// Action is what a rule decides for a call it matches.
type Action string

// The actions.
const (
	Allow  Action = "allow"
	Deny   Action = "deny"
	DryRun Action = "dry-run"
	Ask    Action = "ask"
)

func (a Action) valid() bool {
	switch a {
	case Allow, Deny, DryRun, Ask:
		return true
	}
	return false
}

// FileName is the project's policy file, under the project folder.
const FileName = ".reelier/policy.yaml"

// UserFileName is the user's policy file, under os.UserConfigDir().
const UserFileName = "reelier/policy.yaml"

// MaxFileSize bounds a policy file; a larger one is refused unread.
const MaxFileSize = 1 << 20

// MaxExpr bounds one rule's `when` expression, in bytes.
const MaxExpr = 4096

// costLimit bounds the work of evaluating one expression (CEL's cost
// units): a rule that would cost more stops and decides deny.
const costLimit = 100_000

// Rule is one rule of a policy file.
type Rule struct {
	Name    string
	When    string
	Action  Action
	Message string
	// File, Line and Col say where the rule's `when` is written.
	File      string
	Line, Col int

	prg cel.Program
}

// Policy is one or more policy files, their rules in order.
type Policy struct {
	// Files are the files read, in the order their rules apply.
	Files []string
	// Digest is "sha256:" and the hex SHA-256 of the files' bytes (for
	// more than one file, of each file's digest line in order).
	Digest string
	// Default is the action when no rule matches: allow unless a file
	// says otherwise (the first file that sets it wins).
	Default Action
	Rules   []Rule
}

// Server is the server a call goes to, as rules see it (`server.name`,
// `server.command`, `server.host`).
type Server struct {
	Name    string
	Command string // the command a stdio server was started with
	Host    string // the host of a server given by URL
}

// Call is one tool call, as rules see it.
type Call struct {
	Server Server
	Tool   string
	// Args are the call's arguments, a JSON object decoded with
	// encoding/json (nil is an empty map).
	Args map[string]any
	// Annotations are the tool's MCP annotations (readOnlyHint,
	// destructiveHint, idempotentHint, openWorldHint, title…).
	Annotations map[string]any
	// Effect is "read", "idempotent-write" or "destructive": the step's
	// effect in a replay, else the tool's (LiveEffect).
	Effect string
	// Static, when set, stands for Server and Annotations (NewStatic):
	// the caller made it once for the tool.
	Static *Static
}

// Decision is what a policy decided for one call.
type Decision struct {
	Action Action `json:"action"`
	// Rule is the deciding rule's name; empty when the default decided.
	Rule string `json:"rule,omitempty"`
	// Message is the rule's message (for deny, what the agent is told).
	Message string `json:"message,omitempty"`
	// Digest is the policy's digest.
	Digest string `json:"digest"`
}

// Error is a mistake in a policy file, at its place.
type Error struct {
	File      string
	Line, Col int
	Msg       string
}

func (e *Error) Error() string {
	if e.Line == 0 {
		return e.File + ": " + e.Msg
	}
	return fmt.Sprintf("%s:%d:%d: %s", e.File, e.Line, e.Col, e.Msg)
}

// Errors are every mistake found in a file, in file order.
type Errors []*Error

func (es Errors) Error() string {
	var b strings.Builder
	for k, e := range es {
		if k > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(e.Error())
	}
	return b.String()
}

// Find returns the policy files that apply in project folder dir: the
// project's .reelier/policy.yaml, then the user's (in os.UserConfigDir),
// each only if it exists. It does not read them and touches no CEL.
func Find(dir string) []string {
	var out []string
	if p := filepath.Join(dir, FileName); exists(p) {
		out = append(out, p)
	}
	if cfg, err := os.UserConfigDir(); err == nil && cfg != "" {
		if p := filepath.Join(cfg, UserFileName); exists(p) {
			out = append(out, p)
		}
	}
	return out
}

func exists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}

// LoadProject is Find and Load: nil, nil when no file exists.
func LoadProject(dir string) (*Policy, error) {
	files := Find(dir)
	if len(files) == 0 {
		return nil, nil
	}
	return Load(dir, files...)
}

// Load reads policy files, in order, and combines them: the rules of the
// first file, then those of the next; the default is the first a file
// sets. A file under the project folder root that is a symbolic link to
// somewhere outside root is refused; root "" checks nothing.
func Load(root string, files ...string) (*Policy, error) {
	if len(files) == 0 {
		return nil, errors.New("policy: no file given")
	}
	out := &Policy{Default: Allow}
	var digests []string
	defaultSet := false
	for _, f := range files {
		data, err := readFile(root, f)
		if err != nil {
			return nil, err
		}
		p, err := Parse(f, data)
		if err != nil {
			return nil, err
		}
		out.Files = append(out.Files, f)
		out.Rules = append(out.Rules, p.Rules...)
		digests = append(digests, p.Digest)
		if p.defaultSet && !defaultSet {
			out.Default, defaultSet = p.Default, true
		}
	}
	if len(digests) == 1 {
		out.Digest = digests[0]
	} else {
		out.Digest = digestOf([]byte(strings.Join(digests, "\n") + "\n"))
	}
	return out, nil
}

func readFile(root, f string) ([]byte, error) {
	if root != "" {
		if err := inside(root, f); err != nil {
			return nil, err
		}
	}
	fh, err := os.Open(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", f, err)
	}
	defer fh.Close()
	st, err := fh.Stat()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", f, err)
	}
	if !st.Mode().IsRegular() {
		return nil, &Error{File: f, Msg: "not a regular file"}
	}
	if st.Size() > MaxFileSize {
		return nil, &Error{File: f, Msg: fmt.Sprintf("%d bytes, over the %d-byte limit of a policy file", st.Size(), MaxFileSize)}
	}
	var b bytes.Buffer
	if _, err := b.ReadFrom(&limited{fh, MaxFileSize + 1}); err != nil {
		return nil, fmt.Errorf("%s: %w", f, err)
	}
	if b.Len() > MaxFileSize {
		return nil, &Error{File: f, Msg: fmt.Sprintf("over the %d-byte limit of a policy file", MaxFileSize)}
	}
	return b.Bytes(), nil
}

type limited struct {
	f interface{ Read([]byte) (int, error) }
	n int
}

func (l *limited) Read(p []byte) (int, error) {
	if l.n <= 0 {
		return 0, errors.New("policy file grew while it was read")
	}
	if len(p) > l.n {
		p = p[:l.n]
	}
	n, err := l.f.Read(p)
	l.n -= n
	return n, err
}

// inside refuses a file in the project folder whose real path is outside
// it (a symbolic link out of the project). Files outside root (the
// user's) are not checked.
func inside(root, f string) error {
	absRoot, err := filepath.Abs(root)
	if err != nil {
		return err
	}
	absF, err := filepath.Abs(f)
	if err != nil {
		return err
	}
	if !within(absRoot, absF) {
		return nil
	}
	realRoot, err := filepath.EvalSymlinks(absRoot)
	if err != nil {
		return fmt.Errorf("%s: %w", root, err)
	}
	realF, err := filepath.EvalSymlinks(absF)
	if err != nil {
		return fmt.Errorf("%s: %w", f, err)
	}
	if !within(realRoot, realF) {
		return &Error{File: f, Msg: fmt.Sprintf("a symbolic link out of the project (to %s); a project's policy must live in the project", realF)}
	}
	return nil
}

func within(root, p string) bool {
	rel, err := filepath.Rel(root, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

func digestOf(b []byte) string {
	sum := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// parsed is Parse's result before files are combined.
type parsed struct {
	Policy
	defaultSet bool
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
			cel.ParserExpressionSizeLimit(MaxExpr),
			cel.ParserRecursionLimit(64),
			cel.CrossTypeNumericComparisons(true),
		)
	})
	return env, envErr
}

// Parse reads one policy file's bytes; file names it in errors. Every
// mistake found is returned, as Errors.
func Parse(file string, data []byte) (*parsed, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, yamlError(file, err)
	}
	p := &parsed{Policy: Policy{Files: []string{file}, Digest: digestOf(data), Default: Allow}}
	var errs Errors
	at := func(n *yaml.Node, format string, a ...any) {
		errs = append(errs, &Error{File: file, Line: n.Line, Col: n.Column, Msg: fmt.Sprintf(format, a...)})
	}
	if len(doc.Content) == 0 {
		return nil, Errors{{File: file, Line: 1, Col: 1, Msg: "empty policy: a policy has `rules:`"}}
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
			a := Action(val.Value)
			if val.Kind != yaml.ScalarNode || !a.valid() {
				at(val, "default: %q is not an action (allow, deny, dry-run or ask)", val.Value)
				continue
			}
			p.Default, p.defaultSet = a, true
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
		r := Rule{File: file}
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
				r.Action = Action(val.Value)
				if !r.Action.valid() {
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
		if len(r.When) > MaxExpr {
			at(when, "rule %q: the condition is %d bytes, over the limit of %d", r.Name, len(r.When), MaxExpr)
			continue
		}
		ast, iss := e.Compile(r.When)
		if iss != nil && iss.Err() != nil {
			for _, ce := range iss.Errors() {
				line, col := exprPlace(when, lines, ce.Location.Line(), ce.Location.Column())
				errs = append(errs, &Error{File: file, Line: line, Col: col, Msg: fmt.Sprintf("rule %q: %s", r.Name, strings.TrimSuffix(ce.Message, " (in container '')"))})
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
		p.Rules = append(p.Rules, r)
	}
	if len(errs) > 0 {
		slices.SortStableFunc(errs, func(a, b *Error) int {
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
		return Errors{{File: file, Line: line, Col: 1, Msg: "not YAML:" + rest}}
	}
	return Errors{{File: file, Line: 1, Col: 1, Msg: "not YAML: " + strings.TrimPrefix(msg, "yaml: ")}}
}

// activation hands the call's variables to CEL without a map.
type activation struct {
	server, tool, args, annotations, effect ref.Val
}

func (a *activation) ResolveName(name string) (any, bool) {
	switch name {
	case "server":
		return a.server, true
	case "tool":
		return a.tool, true
	case "args":
		return a.args, true
	case "annotations":
		return a.annotations, true
	case "effect":
		return a.effect, true
	}
	return nil, false
}

func (a *activation) Parent() interpreter.Activation { return nil }
