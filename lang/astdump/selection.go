package astdump

import (
	"encoding/json"

	"github.com/reelier/reelier/lang/ast"
	"github.com/reelier/reelier/lang/format"
)

// Selection is the typed form of one selection in `reelier parse --json`
// (SPEC.md §10): which assert or bind of the step holds it, and its parts
// as fields rather than text.
type Selection struct {
	// In is "assert" or "bind"; Index is the assert's or bind's place
	// among the step's asserts or binds, from 0.
	In    string `json:"in"`
	Index int    `json:"index"`
	// Name is the bound name of a bind.
	Name   string          `json:"name,omitempty"`
	Pick   string          `json:"pick"`
	Source SelectionSource `json:"source"`
	Where  []Condition     `json:"where,omitempty"`
	// By is the ordering key, As its ordering ("" for none).
	By *OrderKey `json:"by,omitempty"`
	// Sep is join's separator when written.
	Sep *string `json:"sep,omitempty"`
	// Field is the trailing path's segments.
	Field []string `json:"field,omitempty"`
	// Test is an assert's test of the selection's value.
	Test *SelectionTest `json:"test,omitempty"`
}

// SelectionSource is a selection's collection.
type SelectionSource struct {
	Kind    string   `json:"kind"` // "json" or "lines"
	Path    []string `json:"path,omitempty"`
	Pattern string   `json:"pattern,omitempty"`
}

// Condition is one `where` condition.
type Condition struct {
	Key     []string        `json:"key"`
	Op      string          `json:"op"`
	Value   json.RawMessage `json:"value,omitempty"`
	Pattern string          `json:"pattern,omitempty"`
}

// OrderKey is `by <key> [as <ordering>]`.
type OrderKey struct {
	Key []string `json:"key"`
	As  string   `json:"as,omitempty"`
}

// SelectionTest is what a selection assert checks: a comparison, a type
// or a regex.
type SelectionTest struct {
	Op      string          `json:"op,omitempty"`
	Value   json.RawMessage `json:"value,omitempty"`
	Is      string          `json:"is,omitempty"`
	Matches string          `json:"matches,omitempty"`
}

// Selections returns the typed selections of a step's asserts and binds,
// nil when it has none.
func Selections(st *ast.Step) []Selection {
	var out []Selection
	for i, a := range st.Asserts {
		sa, ok := a.Expr.(*ast.SelectionAssert)
		if !ok {
			continue
		}
		s := typed(sa.Sel)
		s.In, s.Index = "assert", i
		t := &SelectionTest{}
		switch sa.Kind {
		case ast.SelCompare:
			t.Op, t.Value = string(sa.Op), json.RawMessage(format.Value(sa.Value))
		case ast.SelIs:
			t.Is = string(sa.Type)
		case ast.SelMatches:
			t.Matches = sa.Pattern
		}
		s.Test = t
		out = append(out, s)
	}
	for i, b := range st.Binds {
		sb, ok := b.Expr.(*ast.SelectionBind)
		if !ok {
			continue
		}
		s := typed(sb.Sel)
		s.In, s.Index, s.Name = "bind", i, sb.Name
		out = append(out, s)
	}
	return out
}

func typed(sel *ast.Selection) Selection {
	s := Selection{Pick: string(sel.Pick), Field: names(sel.Field)}
	switch sel.Source.Kind {
	case ast.SourceJSON:
		s.Source = SelectionSource{Kind: "json", Path: names(sel.Source.Path)}
	case ast.SourceLines:
		s.Source = SelectionSource{Kind: "lines", Pattern: sel.Source.Pattern}
	}
	for _, c := range sel.Where {
		tc := Condition{Key: names(c.Key), Op: string(c.Op), Pattern: c.Pattern}
		if c.Value != nil {
			tc.Value = json.RawMessage(format.Value(c.Value))
		}
		s.Where = append(s.Where, tc)
	}
	if sel.HasBy {
		s.By = &OrderKey{Key: names(sel.By), As: string(sel.Order)}
	}
	if sel.HasSep {
		sep := sel.Sep
		s.Sep = &sep
	}
	return s
}

func names(p ast.Path) []string {
	if len(p.Elements) == 0 {
		return nil
	}
	out := make([]string, len(p.Elements))
	for i, e := range p.Elements {
		out[i] = e.Name
	}
	return out
}
