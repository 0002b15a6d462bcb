package mcpx

import (
	"fmt"
	"strconv"
)

// Collision is a downstream tool exposed under a prefixed name because an
// earlier downstream, or a control tool, already had its name.
type Collision struct {
	// Name is the tool's own name on its downstream.
	Name string
	// Index is the downstream's position in --wrap order, from 0.
	Index int
	// Downstream is the downstream's name (its --wrap command).
	Downstream string
	// Exposed is the name the tool is exposed and recorded under.
	Exposed string
}

// String returns the warning printed to stderr for the collision, worded
// as the proxy contract gives it.
func (c Collision) String() string {
	return fmt.Sprintf("[reelier] tool name collision: '%s' from downstream %d (%s) exposed as '%s'", c.Name, c.Index, c.Downstream, c.Exposed)
}

// ExposedNames applies the collision-prefixing rule, the single source of
// name resolution for recording and replay alike. names[k] lists the tool
// names of downstream k in the order it listed them; downstreams[k] is its
// name. Reserved names (the control tools) are taken before any
// downstream's.
//
// Downstreams are taken in --wrap order. A tool keeps its name unless it
// is already taken; then it is exposed as "<k>_<name>", k being its own
// downstream's index (prefixed again, should that be taken too). The first
// holder of a name always keeps it. The result parallels names; the
// collisions come in the order they were met.
func ExposedNames(names [][]string, downstreams []string, reserved []string) ([][]string, []Collision) {
	taken := make(map[string]bool, len(reserved))
	for _, r := range reserved {
		taken[r] = true
	}
	exposed := make([][]string, len(names))
	var collisions []Collision
	for k, list := range names {
		exposed[k] = make([]string, len(list))
		prefix := strconv.Itoa(k) + "_"
		for j, name := range list {
			e := name
			for taken[e] {
				e = prefix + e
			}
			if e != name {
				var ds string
				if k < len(downstreams) {
					ds = downstreams[k]
				}
				collisions = append(collisions, Collision{Name: name, Index: k, Downstream: ds, Exposed: e})
			}
			taken[e] = true
			exposed[k][j] = e
		}
	}
	return exposed, collisions
}
