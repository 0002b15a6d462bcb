package compile

import (
	"encoding/json"
	"strings"
)

// Arguments whose value the tool's input schema fixes (#33, point 4): a
// member with an `enum` or a `const` takes one of the values the schema
// lists, chosen by the agent. A word of an earlier result that happens to
// be one of them ("Here are 3 resource links" and a `resourceType` enum)
// is no dataflow: bound, reworded prose would send a value the server
// rejects. Such an argument stays the literal the agent chose.

// fixedMembers returns the names of the tool's argument members, at any
// depth, whose schema holds an enum or a const; nil when the trace keeps
// no definition of the tool.
func (c *compiler) fixedMembers(tool string) map[string]bool {
	if m, ok := c.fixed[tool]; ok {
		return m
	}
	if c.fixed == nil {
		c.fixed = map[string]map[string]bool{}
	}
	var m map[string]bool
	for _, sv := range c.meta.Servers {
		if len(sv.ToolDefs) != len(sv.Tools) {
			continue
		}
		for i, name := range sv.Tools {
			if name != tool || m != nil {
				continue
			}
			var def struct {
				InputSchema json.RawMessage `json:"inputSchema"`
			}
			if json.Unmarshal(sv.ToolDefs[i], &def) == nil && len(def.InputSchema) > 0 {
				m = map[string]bool{}
				schemaFixed(def.InputSchema, m, 0)
			}
		}
	}
	c.fixed[tool] = m
	return m
}

// schemaFixed notes in out the properties of a schema, and of the schemas
// inside it (items, nested properties), that fix their value.
func schemaFixed(raw json.RawMessage, out map[string]bool, depth int) {
	if depth > 8 {
		return
	}
	var s struct {
		Properties map[string]json.RawMessage `json:"properties"`
		Items      json.RawMessage            `json:"items"`
	}
	if json.Unmarshal(raw, &s) != nil {
		return
	}
	for name, p := range s.Properties {
		var prop struct {
			Enum  []json.RawMessage `json:"enum"`
			Const json.RawMessage   `json:"const"`
			Items *struct {
				Enum []json.RawMessage `json:"enum"`
			} `json:"items"`
		}
		if json.Unmarshal(p, &prop) == nil && (len(prop.Enum) > 0 || len(prop.Const) > 0 || prop.Items != nil && len(prop.Items.Enum) > 0) {
			out[name] = true
		}
		schemaFixed(p, out, depth+1)
	}
	if len(s.Items) > 0 {
		schemaFixed(s.Items, out, depth+1)
	}
}

// typedCategory reports a value the agent typed itself rather than
// carried: a category word (`customer`, not a name with digits or
// capitals inside) sent under the same category key a result held it
// under (`entityType`). The agent chose the kind of thing it creates; an
// unrelated element of that kind in an earlier result is no source.
func typedCategory(l argLeaf, src *source) bool {
	if src.text || len(src.path) == 0 || l.num || l.member == "" {
		return false
	}
	last := src.path[len(src.path)-1]
	return last.index < 0 && isCategoryKey(last.key) && snake(last.key) == snake(l.member) && !isNameToken(l.raw)
}

// namedSetting reports a schema-listed value the agent carried rather
// than chose: an earlier result held it whole as a field outside any
// list (`SITE_CITY: "Chicago"`), and the step's own note names that field
// ("the site's city"). The agent read the setting and sent it; a world
// with another setting gets another value, so the value is bound.
func (c *compiler) namedSetting(st *step, l argLeaf, idx *valueIndex) bool {
	if l.key == "" || l.num || len(st.notes) == 0 {
		return false
	}
	s := idx.lookup(idx.slots(l), l.key)
	if s == nil || s.src.text || s.src.array || !s.src.bindable || len(s.src.path) == 0 {
		return false
	}
	key := s.src.path[len(s.src.path)-1].key
	notes := strings.ToLower(strings.Join(st.notes, "\n"))
	notes = strings.ReplaceAll(notes, "'s ", " ")
	return noteNames(notes, key)
}
