package diff

import (
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/reelier/reelier/internal/words"
	"github.com/reelier/reelier/tool/jsondata"
)

// Change is one difference between the two sides at a path.
type Change struct {
	// Path names what differs: a JSON path under its root (`json.items.0.status`,
	// `args.id`, `binds.item_id`) or a field (`status`, `body`, `tool`,
	// `outcome`, `observation`, `result`, `step`).
	Path string `json:"path"`
	// From and To are the two values as compact JSON (cut when long), or
	// a short description; empty when absent on that side.
	From string `json:"from,omitempty"`
	To   string `json:"to,omitempty"`
	// Kind is "changed", "added" (only on the second side), "removed"
	// (only on the first) or "type" (the JSON type changed).
	Kind string `json:"kind"`
	// Note explains a change that needs it.
	Note string `json:"note,omitempty"`
	// Lines is the line diff of two text bodies: "-" and "+" lines, " "
	// for a line of context, "…" between runs apart.
	Lines []string `json:"lines,omitempty"`
	// Volatile names the kind of value both sides are when it changes on
	// every run ("a timestamp", "a duration", "an id"); such a change is
	// listed under the step's volatile changes, not its changes.
	Volatile string `json:"volatile,omitempty"`
}

// The kinds of change.
const (
	Changed = "changed"
	Added   = "added"
	Removed = "removed"
	Type    = "type"
)

// maxValue bounds a value as a change shows it, in characters.
const maxValue = 80

// Values compares two parsed JSON values (tool/jsondata's model) and
// returns what differs, path by path, under root ("json", "args" …):
//
//   - a value whose JSON type changed is one change, whatever it holds;
//   - objects are compared member by member (a key on one side only is
//     added or removed), in the first side's order, then the second's;
//   - arrays are compared index by index; elements past the shorter one
//     are added or removed;
//   - scalars are compared the way the skill's `==` compares them
//     (numbers by value, so 1.50 equals 1.5).
//
// typeOnly, when not nil, names paths (the segments after root, joined
// with ".") whose scalar value is not compared, only its type: a value
// change there goes to ignored instead. Containers at such a path are
// still walked. Paths are written the way skills write them; a key that
// is empty or holds a dot or a blank is quoted.
func Values(root string, a, b any, typeOnly func(path string) bool) (changes, ignored []Change) {
	return values(root, a, b, typeOnly, nil)
}

// values is Values with echoes: the values type-only binds took on each
// side. A scalar that is what one such bind took on the first side, and
// what the same bind took on the second, is that value passed on (an id
// sent back in a later call or result), not a change.
func values(root string, a, b any, typeOnly func(path string) bool, echoes *bindings) (changes, ignored []Change) {
	return shaped(root, a, b, typeOnly, nil, echoes)
}

// shaped is values with misfit, which names the `matches` pattern a value
// at a type-only path no longer matches: that is a change.
func shaped(root string, a, b any, typeOnly func(path string) bool, misfit func(path string, v any) (string, bool), echoes *bindings) (changes, ignored []Change) {
	w := &walker{root: root, typeOnly: typeOnly, misfit: misfit, echoes: echoes}
	w.walk(nil, a, b)
	return w.changes, w.ignored
}

type walker struct {
	root     string
	typeOnly func(string) bool
	misfit   func(string, any) (string, bool)
	echoes   *bindings
	changes  []Change
	ignored  []Change
}

// bindings are the values type-only binds took, by name, on each side.
type bindings struct {
	a, b map[string]any
}

// set records what name took on each side; a side that has no value
// forgets the name.
func (bs *bindings) set(name string, a, b any, okA, okB bool) {
	if bs.a == nil {
		bs.a, bs.b = map[string]any{}, map[string]any{}
	}
	delete(bs.a, name)
	delete(bs.b, name)
	if okA && okB {
		bs.a[name], bs.b[name] = a, b
	}
}

// echo returns the bind whose values a and b are, if any.
func (bs *bindings) echo(a, b any) (string, bool) {
	if bs == nil {
		return "", false
	}
	for _, name := range slices.Sorted(maps.Keys(bs.a)) {
		if jsondata.StrictEqual(bs.a[name], a) && jsondata.StrictEqual(bs.b[name], b) {
			return name, true
		}
	}
	return "", false
}

func (w *walker) walk(path []string, a, b any) {
	ta, tb := jsondata.TypeName(a), jsondata.TypeName(b)
	if ta != tb {
		w.changes = append(w.changes, Change{Path: w.name(path), From: Render(a), To: Render(b), Kind: Type,
			Note: ta + " → " + tb})
		return
	}
	switch a := a.(type) {
	case *jsondata.Object:
		bo := b.(*jsondata.Object)
		for _, k := range keys(a) {
			va, _ := a.Get(k)
			vb, ok := bo.Get(k)
			if !ok {
				w.changes = append(w.changes, Change{Path: w.name(append(path, k)), From: Render(va), Kind: Removed})
				continue
			}
			w.walk(append(path, k), va, vb)
		}
		for _, k := range keys(bo) {
			if _, ok := a.Get(k); !ok {
				vb, _ := bo.Get(k)
				w.changes = append(w.changes, Change{Path: w.name(append(path, k)), To: Render(vb), Kind: Added})
			}
		}
	case []any:
		bl := b.([]any)
		for i := range max(len(a), len(bl)) {
			p := append(path, strconv.Itoa(i))
			switch {
			case i >= len(bl):
				w.changes = append(w.changes, Change{Path: w.name(p), From: Render(a[i]), Kind: Removed})
			case i >= len(a):
				w.changes = append(w.changes, Change{Path: w.name(p), To: Render(bl[i]), Kind: Added})
			default:
				w.walk(p, a[i], bl[i])
			}
		}
	default:
		if jsondata.StrictEqual(a, b) {
			return
		}
		c := Change{Path: w.name(path), From: Render(a), To: Render(b), Kind: Changed}
		if sa, ok := a.(string); ok {
			// Text in a JSON string (a listing, a file's details) is
			// shown as lines, as a text body is.
			if sb := b.(string); strings.Contains(sa, "\n") || strings.Contains(sb, "\n") {
				c.Lines = lineDiff(strings.Split(sa, "\n"), strings.Split(sb, "\n"))
			}
		}
		if key := strings.Join(path, "."); w.typeOnly != nil && w.typeOnly(key) {
			if w.misfit != nil {
				if p, bad := w.misfit(key, b); bad {
					c.Note = "no longer matches /" + p + "/"
					w.changes = append(w.changes, c)
					return
				}
			}
			c.Note = "the skill checks only its type"
			w.ignored = append(w.ignored, c)
			return
		}
		if name, ok := w.echoes.echo(a, b); ok {
			c.Note = "the value {{" + name + "}} took"
			w.ignored = append(w.ignored, c)
			return
		}
		w.changes = append(w.changes, c)
	}
}

// name renders root plus path.
func (w *walker) name(path []string) string {
	var b strings.Builder
	b.WriteString(w.root)
	for _, seg := range path {
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		if seg == "" || strings.ContainsAny(seg, ". \t\n\"") {
			b.WriteString(strconv.Quote(seg))
		} else {
			b.WriteString(seg)
		}
	}
	return b.String()
}

// keys returns an object's keys once each, in document order.
func keys(o *jsondata.Object) []string {
	seen := make(map[string]bool, len(o.Members))
	out := make([]string, 0, len(o.Members))
	for _, m := range o.Members {
		if !seen[m.Key] {
			seen[m.Key] = true
			out = append(out, m.Key)
		}
	}
	return out
}

// Render shows a parsed JSON value as compact JSON, cut after maxValue
// characters with "…".
func Render(v any) string { return cut(jsondata.String(v)) }

// cut shortens s to maxValue characters.
func cut(s string) string { return words.ClipRunes(s, maxValue) }

// lookup resolves a skill's json path in a parsed document: a segment
// names an object's member, or an array's index written without leading
// zeros.
func lookup(v any, segs []string) (any, bool) {
	for _, seg := range segs {
		switch c := v.(type) {
		case *jsondata.Object:
			var ok bool
			if v, ok = c.Get(seg); !ok {
				return nil, false
			}
		case []any:
			i, err := strconv.Atoi(seg)
			if err != nil || i < 0 || i >= len(c) || strconv.Itoa(i) != seg {
				return nil, false
			}
			v = c[i]
		default:
			return nil, false
		}
	}
	return v, true
}
