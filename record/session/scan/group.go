package scan

import (
	"sort"
	"strings"
)

// Group is a workflow done in more than one session, or in one: the
// replayable sessions whose calls used the same tools in the same order
// (their arguments may differ).
type Group struct {
	// Workflow is the tools, in call order.
	Workflow []string `json:"workflow"`
	// Count is how many sessions did it ("you did this N times").
	Count int `json:"count"`
	// Sessions are indexes into Result.Replayable, newest first; the
	// first is the one a chosen group compiles.
	Sessions []int `json:"sessions"`
}

// group groups the replayable sessions (newest first) by workflow: the
// most repeated first, then the one done most recently.
func group(entries []*Entry) []Group {
	out := []Group{}
	at := map[string]int{}
	for i, e := range entries {
		key := strings.Join(e.Workflow, "\x00")
		g, ok := at[key]
		if !ok {
			g = len(out)
			at[key] = g
			out = append(out, Group{Workflow: e.Workflow})
		}
		out[g].Count++
		out[g].Sessions = append(out[g].Sessions, i)
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Count != out[j].Count {
			return out[i].Count > out[j].Count
		}
		return out[i].Sessions[0] < out[j].Sessions[0]
	})
	return out
}
