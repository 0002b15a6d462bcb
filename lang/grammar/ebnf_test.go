package grammar

import (
	"testing"

	"github.com/reelier/reelier/testkit/testutil"
)

// TestEBNF snapshots every participle grammar as EBNF, so a change to a
// grammar shows up as a reviewed diff.
func TestEBNF(t *testing.T) {
	g := testutil.Golden(t)
	for name, ebnf := range map[string]string{
		"assert":           assertParser().String(),
		"bind":             bindParser().String(),
		"hole":             holeParser().String(),
		"frontmatter":      keyValueParser().String(),
		"bullet":           bulletParser().String(),
		"action":           actionParser().String(),
		"selection-assert": selAssertParser().String(),
		"selection-bind":   selBindParser().String(),
	} {
		t.Run(name, func(t *testing.T) { g.Assert(t, name, []byte(ebnf+"\n")) })
	}
}
