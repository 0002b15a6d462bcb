package compile

import (
	"encoding/json"

	"github.com/reelier/reelier/lang/ast"
	"github.com/reelier/reelier/lang/tooldef"
)

// toolsMetadata is the reelier-tools value: one signature line per tool
// the steps call, in the order first called, for each tool whose
// definition the trace's meta.servers keeps; "" when there is none (an
// older trace, or only http.* steps). A definition that does not read is
// left out: the replay then checks that tool by name only.
func (c *compiler) toolsMetadata() string {
	if c.meta == nil {
		return ""
	}
	defs := map[string]json.RawMessage{}
	for _, sv := range c.meta.Servers {
		if len(sv.ToolDefs) != len(sv.Tools) {
			continue
		}
		for i, name := range sv.Tools {
			if _, ok := defs[name]; !ok {
				defs[name] = sv.ToolDefs[i]
			}
		}
	}
	if len(defs) == 0 {
		return ""
	}
	seen := map[string]bool{}
	var tools []tooldef.Tool
	for _, st := range c.steps {
		if seen[st.tool] {
			continue
		}
		seen[st.tool] = true
		def, ok := defs[st.tool]
		if !ok {
			continue
		}
		t, err := tooldef.Read(def)
		if err != nil || t.Name != st.tool {
			continue
		}
		tools = append(tools, t)
	}
	return tooldef.List(tools)
}

// metadata is the frontmatter's metadata map, or nil when there is
// nothing to keep in it.
func (c *compiler) metadata() *ast.FrontmatterEntry {
	tools := c.toolsMetadata()
	if tools == "" {
		return nil
	}
	return &ast.FrontmatterEntry{Key: "metadata", Kind: ast.MapValue, Items: []*ast.FrontmatterEntry{
		{Key: tooldef.MetadataKey, Value: tools, KeyType: "str", Type: "str"},
	}}
}
