package grammar_test

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/reelier/reelier/lang/ast"

	"github.com/reelier/reelier/lang/astdump"
	"github.com/reelier/reelier/lang/grammar"
	"github.com/reelier/reelier/testkit/skillgen"
	"github.com/reelier/reelier/testkit/testutil"
)

// TestCorpusValid parses every valid corpus skill: no diagnostics at all,
// and the tree (with every position) matches its golden outline.
func TestCorpusValid(t *testing.T) {
	g := testutil.Golden(t)
	for _, f := range testutil.Corpus(t, "valid") {
		t.Run(f.Name, func(t *testing.T) {
			skill, diags := grammar.Parse(f.Name+".skill.md", f.Src)
			if len(diags) > 0 {
				t.Fatalf("valid file has diagnostics:\n%v", diags)
			}
			g.Assert(t, f.Name, []byte(astdump.Skill(skill)))
		})
	}
}

// TestCorpusInvalid parses every malformed corpus skill. Its .want file
// (written by hand, independently of the parser) names the line, step and
// exact message of the rejection the file exists to show (a trailing `*`
// means "starts with"); the golden holds every
// diagnostic as rendered for the terminal.
func TestCorpusInvalid(t *testing.T) {
	g := testutil.Golden(t)
	for _, f := range testutil.Corpus(t, "invalid") {
		t.Run(f.Name, func(t *testing.T) {
			wantRaw, err := os.ReadFile(strings.TrimSuffix(f.Path, ".skill.md") + ".want")
			if err != nil {
				t.Fatal(err)
			}
			want := strings.SplitN(strings.TrimSpace(string(wantRaw)), " ", 3)
			_, diags := grammar.Parse(f.Name+".skill.md", f.Src)
			if !diags.HasErrors() {
				t.Fatal("malformed file parsed without errors")
			}
			if !hasWanted(diags, want[0], want[1], want[2]) {
				t.Errorf("no diagnostic at line %s, step %s with message %q; got:\n%v", want[0], want[1], want[2], diags)
			}
			g.Assert(t, f.Name, []byte(diags.Error()+"\n"))
		})
	}
}

func hasWanted(diags ast.Diagnostics, line, step, msg string) bool {
	for _, d := range diags {
		s := "-"
		if d.Step > 0 {
			s = itoa(d.Step)
		}
		if itoa(int(d.Range.Start.Line)) != line || s != step {
			continue
		}
		if prefix, ok := strings.CutSuffix(msg, "*"); ok && strings.HasPrefix(d.Message, prefix) || d.Message == msg {
			return true
		}
	}
	return false
}

func itoa(n int) string {
	var b []byte
	if n == 0 {
		return "0"
	}
	for ; n > 0; n /= 10 {
		b = append([]byte{byte('0' + n%10)}, b...)
	}
	return string(b)
}

// TestSameParse: over every corpus file and generated skills, ParseShared
// and Check agree with Parse (checkSameParse).
func TestSameParse(t *testing.T) {
	var files []testutil.CorpusFile
	for _, kind := range []string{"valid", "invalid"} {
		files = append(files, testutil.Corpus(t, kind)...)
	}
	for _, n := range []int{1, 10, 200} {
		files = append(files, testutil.CorpusFile{Name: fmt.Sprintf("generated%d", n), Src: skillgen.Skill(n)})
	}
	for _, f := range files {
		t.Run(f.Name, func(t *testing.T) {
			skill, diags := grammar.Parse("fuzz.skill.md", f.Src)
			checkSameParse(t, f.Src, skill, diags)
		})
	}
}
