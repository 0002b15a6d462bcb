package replay

import (
	"encoding/json"
	"fmt"

	"github.com/reelier/reelier/lang/ast"
	"github.com/reelier/reelier/lang/tooldef"
	"github.com/reelier/reelier/redact"
	"github.com/reelier/reelier/replay/runlog"
	"github.com/reelier/reelier/tool"
)

// Definer is a tool that can show its server's definition of it: an MCP
// tool (mcpx.Tool). Builtins are not Definers.
type Definer interface {
	// Definition returns the name of the server that serves the tool and
	// the tool's definition as the server listed it, under the name the
	// skill calls it by; nil when the listing was not seen.
	Definition() (server string, def json.RawMessage)
}

// SkipToolDrift is the skip reason of every step of a run that the drift
// check stopped before step 1.
const SkipToolDrift = "tool drift"

// NoLongerOffered is the change reported for a tool the skill calls that
// the live servers no longer offer.
const NoLongerOffered = "no longer offered by the server"

// SkillTools checks the skill's reelier-tools metadata: an error naming
// each line that does not read (line:col: message), nil when it reads or
// the skill has none.
func SkillTools(skill *ast.Skill) error {
	_, _, problems := tooldef.FromSkill(skill)
	if len(problems) == 0 {
		return nil
	}
	errs := make(limitErrors, len(problems))
	for i, p := range problems {
		errs[i] = fmt.Errorf("%d:%d: metadata %s: %s", p.Pos.Line, p.Pos.Column, tooldef.MetadataKey, p.Msg)
	}
	return errs
}

// CheckTools compares the tools the skill's reelier-tools metadata keeps
// with the tools the registry serves now, before anything runs: each
// listed tool that an MCP server serves is read from that server's
// listing (redacted as a recording redacts it, so the two read alike) and
// compared with tooldef.Compare; a listed tool that no server offers any
// more is drift too. It returns nil when nothing drifted, when the skill
// keeps no signatures (a hand-written or older skill), and when no MCP
// server was started (there is nothing to compare with; the steps then
// fail on their unknown tools as before).
func CheckTools(skill *ast.Skill, reg tool.Registry, red *redact.Redactor) *runlog.ToolDrift {
	_, tools, _ := tooldef.FromSkill(skill)
	if len(tools) == 0 || !servesMCP(reg) {
		return nil
	}
	if red == nil {
		red = redact.RedactorFromEnv()
	}
	var drifted []runlog.DriftedTool
	for _, want := range tools {
		d := runlog.DriftedTool{Tool: want.Name}
		if sv := skill.ServerOf(want.Name); sv != nil {
			d.Server = sv.Name
		}
		tool, ok := reg[want.Name]
		if !ok {
			d.Changes = []string{NoLongerOffered}
			drifted = append(drifted, d)
			continue
		}
		definer, ok := tool.(Definer)
		if !ok {
			continue // a builtin: nothing to compare
		}
		server, def := definer.Definition()
		if d.Server == "" {
			d.Server = server
		}
		if def == nil {
			continue
		}
		if r, err := red.JSON(def); err == nil {
			def = r
		}
		live, err := tooldef.Read(def)
		if err != nil {
			d.Changes = []string{"its definition does not read: " + err.Error()}
			drifted = append(drifted, d)
			continue
		}
		for _, c := range tooldef.Compare(want, live) {
			d.Changes = append(d.Changes, c.String())
		}
		if len(d.Changes) > 0 {
			drifted = append(drifted, d)
		}
	}
	if len(drifted) == 0 {
		return nil
	}
	return &runlog.ToolDrift{Tools: drifted}
}

// servesMCP reports whether any tool of the registry is an MCP tool.
func servesMCP(reg tool.Registry) bool {
	for _, t := range reg {
		if _, ok := t.(Definer); ok {
			return true
		}
	}
	return false
}

// DriftLines are the drift report's lines: "server: tool: change" each,
// the server left out when it is not known.
func DriftLines(d *runlog.ToolDrift) []string {
	if d == nil {
		return nil
	}
	var out []string
	for _, t := range d.Tools {
		head := t.Tool + ": "
		if t.Server != "" {
			head = t.Server + ": " + head
		}
		for _, c := range t.Changes {
			out = append(out, head+c)
		}
	}
	return out
}
