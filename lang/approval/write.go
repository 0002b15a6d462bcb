package approval

import (
	"errors"
	"fmt"
	"slices"

	"github.com/reelier/reelier/lang/ast"
	"github.com/reelier/reelier/lang/format"
	"github.com/reelier/reelier/lang/grammar"
	"github.com/reelier/reelier/lang/skillfile"
)

// Approve writes approvals for steps of the skill file at path into its
// metadata, through skillfile.Update (under the file's lock, computed
// from the file as it is then, written atomically). With no steps named,
// every write step (idempotent-write, destructive) is approved. The
// approvals of other steps the file keeps stay as they are, except those
// of steps it no longer has, which are dropped. It returns the steps
// approved and whether the file changed.
func Approve(path string, steps []int) ([]int, bool, error) {
	var approved []int
	wrote, err := skillfile.Update(path, func(src []byte) ([]byte, error) {
		approved = nil
		skill, diags := grammar.Parse(path, src)
		if diags.HasErrors() {
			for _, d := range diags {
				if d.Severity == ast.SeverityError {
					return nil, errors.New(d.String())
				}
			}
		}
		var pick []*ast.Step
		if len(steps) == 0 {
			for _, st := range skill.Steps {
				if IsWrite(st.EffectValue()) {
					pick = append(pick, st)
				}
			}
			if len(pick) == 0 {
				return nil, fmt.Errorf("%s has no write step (idempotent-write or destructive) to approve; name a step with --step N", path)
			}
		} else {
			for _, n := range steps {
				st := stepOf(skill, n)
				if st == nil {
					return nil, fmt.Errorf("%s has no step %d (it has %d)", path, n, len(skill.Steps))
				}
				if !slices.Contains(pick, st) {
					pick = append(pick, st)
				}
			}
		}
		keep := map[int]Approval{}
		if e := skill.Frontmatter.Metadata(MetadataKey); e != nil && e.Kind == ast.ScalarValue {
			// The lines that read are kept for the steps not approved
			// now; a file whose approvals do not read is rewritten whole.
			as, _ := Parse(e.Value)
			for _, a := range as {
				if stepOf(skill, a.Step) != nil {
					keep[a.Step] = a
				}
			}
		}
		for _, st := range pick {
			keep[st.Number] = For(skill, st)
			approved = append(approved, st.Number)
		}
		list := make([]Approval, 0, len(keep))
		for _, a := range keep {
			list = append(list, a)
		}
		return format.SetMetadata(src, skill.Frontmatter, skill.CRLF, MetadataKey, List(list))
	})
	slices.Sort(approved)
	return approved, wrote, err
}

func stepOf(skill *ast.Skill, n int) *ast.Step {
	for _, st := range skill.Steps {
		if st.Number == n {
			return st
		}
	}
	return nil
}
