package grammar_test

import (
	"testing"

	"github.com/reelier/reelier/lang/grammar"
	"github.com/reelier/reelier/testkit/skillgen"
)

// BenchmarkParse1000 parses a generated 1,000-step skill (intent, action
// with holes, three asserts, one bind, effect per step).
func BenchmarkParse1000(b *testing.B) {
	src := skillgen.Skill(1000)
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	for b.Loop() {
		if _, diags := grammar.Parse("bench.skill.md", src); len(diags) > 0 {
			b.Fatal(diags)
		}
	}
}

// BenchmarkParseAssert measures one assert line through participle.
func BenchmarkParseAssert(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, d := grammar.ParseAssert("json.orders.3.id matches /^ord_[a-z0-9]+$/", base); d != nil {
			b.Fatal(d)
		}
	}
}

// BenchmarkCheck1000 checks the same skill as BenchmarkParse1000 without
// keeping its steps (`reelier parse`).
func BenchmarkCheck1000(b *testing.B) {
	src := skillgen.Skill(1000)
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	for b.Loop() {
		if _, _, diags := grammar.Check("bench.skill.md", src); len(diags) > 0 {
			b.Fatal(diags)
		}
	}
}
