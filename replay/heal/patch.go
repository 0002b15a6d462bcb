package heal

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/reelier/reelier/internal/words"
	"github.com/reelier/reelier/lang/ast"
	"github.com/reelier/reelier/lang/format"
	"github.com/reelier/reelier/lang/grammar"
	"github.com/reelier/reelier/replay"
	"github.com/reelier/reelier/replay/writeback"
)

// Bounds on what a patch may propose.
const (
	maxLines    = 32   // asserts, and binds, per patch
	maxLineLen  = 1000 // bytes per assert or bind line
	maxArgsText = 8000 // bytes of patched arguments
)

// proposal is the JSON object the model answers. A list left out keeps the
// step's own.
type proposal struct {
	Reason  *string         `json:"reason"`
	Asserts *[]string       `json:"asserts"`
	Binds   *[]string       `json:"binds"`
	Args    json.RawMessage `json:"args"`
}

// patch is a validated proposal: the step's complete new content.
type patch struct {
	reason  string
	asserts []ast.Assert
	binds   []ast.Bind
	// args is nil when the arguments do not change.
	args ast.Value
}

// parsePatch reads the model's reply and validates it for the level. Every
// error is a reason to refuse the patch. allowWeaker accepts a patch that
// drops value checks (--allow-weaker-heal).
func parsePatch(text string, level int, d *replay.Divergence, allowWeaker bool) (*patch, error) {
	var p proposal
	if err := decodeStrict(unfence(text), &p); err != nil {
		return nil, fmt.Errorf("the reply is not a JSON patch object (%v); it starts %q", err, words.Clip(text, 80))
	}
	out := &patch{asserts: stepAsserts(d.Step), binds: stepBinds(d.Step)}
	if p.Reason != nil {
		out.reason = writeback.OneLine(*p.Reason, writeback.MaxReason)
	}
	if out.reason == "" {
		return nil, errors.New(`the patch has no "reason"`)
	}
	var err error
	if p.Asserts != nil {
		if out.asserts, err = parseLines("assert", *p.Asserts, grammar.ParseAssert); err != nil {
			return nil, err
		}
	}
	if p.Binds != nil {
		if out.binds, err = parseLines("bind", *p.Binds, grammar.ParseBind); err != nil {
			return nil, err
		}
	}
	if len(p.Args) > 0 {
		if level < 2 {
			return nil, errors.New("a Level 1 patch may not change the action's arguments")
		}
		if out.args, err = parseArgs(p.Args, d); err != nil {
			return nil, err
		}
	}
	return out, keepsContract(out, d.Step, allowWeaker)
}

// unfence strips one Markdown code fence around the whole reply, the one
// liberty models commonly take with "JSON only".
func unfence(text string) string {
	t := strings.TrimSpace(text)
	if !strings.HasPrefix(t, "```") || !strings.HasSuffix(t, "```") || len(t) < 6 {
		return t
	}
	t = strings.TrimSuffix(t, "```")
	if nl := strings.IndexByte(t, '\n'); nl >= 0 {
		return strings.TrimSpace(t[nl+1:])
	}
	return t
}

// decodeStrict decodes exactly one JSON object with no unknown keys.
func decodeStrict(text string, v any) error {
	if !strings.HasPrefix(text, "{") {
		return errors.New("want one JSON object")
	}
	dec := json.NewDecoder(strings.NewReader(text))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if _, err := dec.Token(); err != io.EOF {
		return errors.New("text after the JSON object")
	}
	return nil
}

// parseLines parses each proposed line with the skill grammar.
func parseLines[T any](kind string, lines []string, parse func(string, ast.Pos) (T, *ast.Diagnostic)) ([]T, error) {
	if len(lines) > maxLines {
		return nil, fmt.Errorf("the patch proposes %d %ss; at most %d are accepted", len(lines), kind, maxLines)
	}
	out := make([]T, len(lines))
	for i, line := range lines {
		switch {
		case strings.ContainsAny(line, "\r\n"):
			return nil, fmt.Errorf("%s %d of the patch contains a line break: %q", kind, i+1, words.Clip(line, 120))
		case len(line) > maxLineLen:
			return nil, fmt.Errorf("%s %d of the patch is %d bytes long; at most %d are accepted", kind, i+1, len(line), maxLineLen)
		}
		v, diag := parse(strings.TrimSpace(line), ast.Pos{Line: 1, Column: 1})
		if diag != nil {
			return nil, fmt.Errorf("%s %d of the patch is not valid: %s", kind, i+1, diag.Message)
		}
		out[i] = v
	}
	return out, nil
}

// parseArgs parses patched arguments and checks every {{name}} they use is
// bound before the step.
func parseArgs(raw json.RawMessage, d *replay.Divergence) (ast.Value, error) {
	var compact bytes.Buffer
	if err := json.Compact(&compact, raw); err != nil {
		return nil, fmt.Errorf("the patched arguments are not valid JSON: %v", err)
	}
	if compact.Len() > maxArgsText {
		return nil, fmt.Errorf("the patched arguments are %d bytes long; at most %d are accepted", compact.Len(), maxArgsText)
	}
	args, diag := grammar.ParseArgs(compact.String(), ast.Pos{Line: 1, Column: 1})
	if diag != nil {
		return nil, fmt.Errorf("the patched arguments are not valid: %s", diag.Message)
	}
	for _, h := range ast.Holes(args) {
		if h.Kind == ast.HoleVar && !d.Bound(h.Name) {
			return nil, fmt.Errorf("the patched arguments use {{%s}}, which is not bound before this step (bound: %s)",
				h.Name, orNone(d.BoundNames()))
		}
	}
	if strings.ContainsAny(format.Value(args), "\r\n") {
		return nil, errors.New("the patched arguments would not print on one line")
	}
	return args, nil
}

// keepsContract refuses a patch that would weaken the step: one that leaves
// a checked step without asserts, stops binding a name the step bound
// (later steps may use it) or, unless allowWeaker, drops a value check
// (weaken.go).
func keepsContract(p *patch, st *ast.Step, allowWeaker bool) error {
	if len(st.Asserts) > 0 && len(p.asserts) == 0 {
		return fmt.Errorf("the patch removes all %d asserts; a checked step must stay checked", len(st.Asserts))
	}
	for _, b := range st.Binds {
		name := b.Expr.BoundName()
		kept := false
		for _, nb := range p.binds {
			kept = kept || nb.BoundName() == name
		}
		if !kept {
			return fmt.Errorf("the patch no longer binds %q, which the step binds for later steps", name)
		}
	}
	if lost := weakenings(stepAsserts(st), p.asserts); len(lost) > 0 && !allowWeaker {
		return weakeningError(lost)
	}
	return nil
}

func stepAsserts(st *ast.Step) []ast.Assert {
	out := make([]ast.Assert, len(st.Asserts))
	for i, a := range st.Asserts {
		out[i] = a.Expr
	}
	return out
}

func stepBinds(st *ast.Step) []ast.Bind {
	out := make([]ast.Bind, len(st.Binds))
	for i, b := range st.Binds {
		out[i] = b.Expr
	}
	return out
}

func orNone(names []string) string {
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}
