package tooldef

import (
	"encoding/json"
	"fmt"
	"strings"
)

// ChangeKind names what changed in a tool.
type ChangeKind string

// The kinds of change Compare reports.
const (
	// Added: an input field the old definition did not have.
	Added ChangeKind = "added"
	// Removed: an input field the new definition does not have.
	Removed ChangeKind = "removed"
	// Retyped: an input field whose type changed.
	Retyped ChangeKind = "retyped"
	// Required: an input field that became required or optional.
	Required ChangeKind = "required"
	// Constraints: the input schema changed but no field's name, type or
	// requiredness did (an enum, a format, a default, a bound…).
	Constraints ChangeKind = "constraints"
	// Output: the output schema was added, removed or changed.
	Output ChangeKind = "output"
	// Annotation: an annotation hint changed.
	Annotation ChangeKind = "annotation"
)

// Change is one difference between two definitions of a tool.
type Change struct {
	Kind ChangeKind
	// Path names the input field (`entities[].name`: a member of the
	// objects of the array argument entities) or, for Annotation, the
	// hint's MCP name; "" otherwise.
	Path string
	// Old and New are the field's types (for Added, Old is "required" or
	// "optional"), "required"/"optional" for Required, the hint's values
	// ("true", "false", "unset"), or the schema's short digests ("" for
	// an absent output schema).
	Old, New string
}

// String says what changed in one sentence.
func (c Change) String() string {
	switch c.Kind {
	case Added:
		return fmt.Sprintf("input field %s added (%s, %s)", c.Path, c.New, c.Old)
	case Removed:
		return fmt.Sprintf("input field %s removed (it was %s)", c.Path, c.Old)
	case Retyped:
		return fmt.Sprintf("input field %s retyped: %s → %s", c.Path, c.Old, c.New)
	case Required:
		if c.New == "required" {
			return fmt.Sprintf("input field %s is now required", c.Path)
		}
		return fmt.Sprintf("input field %s is no longer required", c.Path)
	case Constraints:
		return fmt.Sprintf("inputSchema changed beyond field names, types and requiredness (an enum, format, default or bound; digest %s → %s)", c.Old, c.New)
	case Output:
		switch {
		case c.Old == "":
			return "outputSchema added"
		case c.New == "":
			return "outputSchema removed"
		}
		return fmt.Sprintf("outputSchema changed (digest %s → %s)", c.Old, c.New)
	case Annotation:
		return fmt.Sprintf("annotation %s: %s → %s", c.Path, c.Old, c.New)
	}
	return string(c.Kind)
}

// Compare says what changed from old to new: input fields added, removed,
// retyped or made required or optional (nested, down to what both
// signatures spell out), other changes of the input schema, the output
// schema, and each annotation hint. No change is nil. Names are not
// compared.
func Compare(old, new Tool) []Change {
	var cs []Change
	compareFields("", old.Params, new.Params, &cs)
	if len(cs) == 0 && old.Input != new.Input {
		cs = append(cs, Change{Kind: Constraints, Old: old.Input, New: new.Input})
	}
	if old.Output != new.Output {
		cs = append(cs, Change{Kind: Output, Old: old.Output, New: new.Output})
	}
	for i, h := range hintNames {
		a, b := *old.Hints.at(i), *new.Hints.at(i)
		if hintText(a) != hintText(b) {
			cs = append(cs, Change{Kind: Annotation, Path: h.mcp, Old: hintText(a), New: hintText(b)})
		}
	}
	return cs
}

// CompareDefs compares two tool definitions (tools/list entries).
func CompareDefs(old, new json.RawMessage) ([]Change, error) {
	a, err := Read(old)
	if err != nil {
		return nil, err
	}
	b, err := Read(new)
	if err != nil {
		return nil, err
	}
	return Compare(a, b), nil
}

func hintText(b *bool) string {
	switch {
	case b == nil:
		return "unset"
	case *b:
		return "true"
	}
	return "false"
}

func requiredness(f Field) string {
	if f.Required {
		return "required"
	}
	return "optional"
}

// compareFields compares two field lists, both sorted by name, in name
// order.
func compareFields(prefix string, a, b []Field, cs *[]Change) {
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		switch {
		case j == len(b) || i < len(a) && a[i].Name < b[j].Name:
			*cs = append(*cs, Change{Kind: Removed, Path: prefix + pathName(a[i].Name), Old: a[i].Type.String()})
			i++
		case i == len(a) || b[j].Name < a[i].Name:
			*cs = append(*cs, Change{Kind: Added, Path: prefix + pathName(b[j].Name), New: b[j].Type.String(), Old: requiredness(b[j])})
			j++
		default:
			path := prefix + pathName(a[i].Name)
			if a[i].Required != b[j].Required {
				*cs = append(*cs, Change{Kind: Required, Path: path, Old: requiredness(a[i]), New: requiredness(b[j])})
			}
			compareTypes(path, a[i].Type, b[j].Type, cs)
			i++
			j++
		}
	}
}

// compareTypes compares two types at a path: objects member by member,
// arrays by their elements, anything else by how it is written.
func compareTypes(path string, x, y Type, cs *[]Change) {
	switch {
	case x.Object && y.Object:
		compareFields(path+".", x.Fields, y.Fields, cs)
	case x.Elem != nil && y.Elem != nil:
		compareTypes(path+"[]", *x.Elem, *y.Elem, cs)
	default:
		if xs, ys := x.String(), y.String(); xs != ys {
			*cs = append(*cs, Change{Kind: Retyped, Path: path, Old: xs, New: ys})
		}
	}
}

// pathName writes a field name in a path: bare, or quoted when it is not
// a bare name or holds a dot.
func pathName(s string) string {
	if strings.Contains(s, ".") {
		b, _ := json.Marshal(s)
		return string(b)
	}
	return quoteName(s)
}
