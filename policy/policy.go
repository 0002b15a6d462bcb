// Package policy is Reelier's seatbelt: a YAML file of ordered rules whose
// conditions are CEL expressions over one tool call (the server, the
// tool, its arguments, its MCP annotations and its effect), each deciding
// allow, deny, dry-run or ask. The recording proxy (reelier mcp) and the
// replay (reelier run) ask a Policy before a call goes to a server.
//
// This package is the part without CEL: the types every enforcement
// point holds (Call, Decision, Policy), finding and reading the files,
// and the Engine interface. The engine that parses the files and
// evaluates the conditions is policy/engine, the only importer of cel-go:
// the reelier program does not link it (its start-up stays as it was),
// and hands a process that needs it to the reelier-seatbelt program,
// which does (cli, SPEC.md §13).
//
// A file is read, every expression parsed and type-checked, when it is
// loaded: a mistake is an error at path:line:col of the YAML, and a
// policy that does not load must stop what would have run under it
// (fail closed).
package policy

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
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

// Valid says whether a is one of the four actions.
func (a Action) Valid() bool {
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

// Rule is one rule of a policy file.
type Rule struct {
	Name    string
	When    string
	Action  Action
	Message string
	// File, Line and Col say where the rule's `when` is written.
	File      string
	Line, Col int
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
	// Decider evaluates the rules' conditions: the engine that loaded the
	// policy sets it (policy/engine). Decide hands it every call of a
	// policy that has rules; with none set, such a call is denied.
	Decider Decider
}

// Decider decides calls: what a loaded policy's engine implements.
type Decider interface {
	Decide(Call) Decision
}

// Engine loads policy files into a Policy whose Decider evaluates them.
// policy/engine (CEL) is the implementation; a program without it (the
// reelier program) hands the process to one with it.
type Engine interface {
	// Load reads files, in order, and combines them: the rules of the
	// first file, then those of the next; the default is the first a
	// file sets. A file under the project folder root that is a symbolic
	// link to somewhere outside root is refused (ReadFile); root ""
	// checks nothing.
	Load(root string, files ...string) (*Policy, error)
	// Parse reads one policy file's bytes; file names it in errors,
	// which are Errors, every mistake found.
	Parse(file string, data []byte) (*Policy, error)
}

// Decide returns what p decides for c: the first rule whose condition
// holds decides; none holding, the default. A condition that fails to
// evaluate (a key the arguments lack, say: guard it with has()) or runs
// over its cost limit decides deny, naming the rule: a policy fails
// closed. A nil policy allows everything.
func (p *Policy) Decide(c Call) Decision {
	if p == nil {
		return Decision{Action: Allow}
	}
	if len(p.Rules) == 0 {
		return Decision{Action: p.Default, Digest: p.Digest}
	}
	if p.Decider == nil {
		return Decision{Action: Deny, Digest: p.Digest,
			Message: "no policy engine evaluates this policy's rules (reelier-seatbelt runs it)"}
	}
	return p.Decider.Decide(c)
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

// ReadFile reads one policy file, at most MaxFileSize bytes, refusing
// what is not a regular file; a file under the project folder root that
// is a symbolic link out of it is refused; root "" checks nothing.
func ReadFile(root, f string) ([]byte, error) {
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

// DigestOf is "sha256:" and the hex SHA-256 of b: a policy file's digest.
func DigestOf(b []byte) string {
	sum := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// Static is the part of a call that is the same for every call of one
// tool on one server — the server and the annotations as rules see them —
// made once per tool (NewStatic) and handed to Decide in Call.Static, so
// an engine converts them once (Prepared) rather than per call.
type Static struct {
	Server      Server
	Annotations map[string]any

	prepared atomic.Pointer[any]
}

// NewStatic makes the Static of a tool's calls.
func NewStatic(server Server, annotations map[string]any) *Static {
	return &Static{Server: server, Annotations: annotations}
}

// Prepared is what build makes of s, made on the first call and kept:
// the engine's own form of the server and the annotations. Calls racing
// on the first may each build; one value is kept and every caller gets
// it. A process has one engine, so one build function is ever handed in.
func (s *Static) Prepared(build func(*Static) any) any {
	if v := s.prepared.Load(); v != nil {
		return *v
	}
	v := build(s)
	s.prepared.CompareAndSwap(nil, &v)
	return *s.prepared.Load()
}
