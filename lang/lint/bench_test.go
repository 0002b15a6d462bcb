package lint

import (
	"testing"

	"github.com/reelier/reelier/testkit/skillgen"
)

// BenchmarkLint1000 runs every rule over a parsed 1,000-step skill; the
// parse happens once, outside the timed loop.
func BenchmarkLint1000(b *testing.B) {
	src := skillgen.Skill(1000)
	file := ParseFile("bench.skill.md", src)
	if file.Diags.HasErrors() {
		b.Fatal(file.Diags)
	}
	d, err := New(Config{Today: testToday})
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		d.Run(file)
	}
}

// BenchmarkLintRule1000 times each rule alone on the same skill, to show
// where the time goes.
func BenchmarkLintRule1000(b *testing.B) {
	file := ParseFile("bench.skill.md", skillgen.Skill(1000))
	for _, r := range All() {
		b.Run(r.Name, func(b *testing.B) {
			d := onlyRule(b, r.Name)
			b.ReportAllocs()
			for b.Loop() {
				d.Run(file)
			}
		})
	}
}
