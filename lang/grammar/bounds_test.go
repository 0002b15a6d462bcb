package grammar_test

import (
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/reelier/reelier/lang/ast"
	"github.com/reelier/reelier/lang/grammar"
)

// boundDoc is a one-step skill with extra bullets after its effect;
// its line 8 is the first of them.
func boundDoc(bullets string) []byte {
	return []byte("---\nname: n\ndescription: d\n---\n### Step 1 — T\n- intent: i\n- action: t {}\n- effect: read\n" + bullets)
}

// actionDoc is a one-step skill whose action (line 7) is `t <args>`.
func actionDoc(args string) []byte {
	return []byte("---\nname: n\ndescription: d\n---\n### Step 1 — T\n- intent: i\n- action: t " + args + "\n- effect: read\n")
}

func path(n int) string { return "json" + strings.Repeat(".a", n) }

// TestBounds: each bound of the parser holds at its limit and is a
// rejection one past it, at the place it is crossed: "line:col code".
func TestBounds(t *testing.T) {
	keys := func(n int) string {
		var b strings.Builder
		for i := range n {
			fmt.Fprintf(&b, "k%d: v\n", i)
		}
		return b.String()
	}
	fm := func(lines string) []byte {
		return []byte("---\nname: n\ndescription: d\n" + lines + "---\n### Step 1 — T\n- intent: i\n- action: t {}\n- effect: read\n")
	}
	problems := strings.Repeat("- bogus: 1\n", 1000)
	tests := []struct {
		name string
		src  []byte
		want string // the one error, "" for none
	}{
		{"path of 256 segments", boundDoc("- assert: " + path(256) + " is set\n"), ""},
		{"path of 257 segments", boundDoc("- assert: " + path(257) + " is set\n"), fmt.Sprintf("9:%d json_path_too_long", 11+4+2*256+1)},
		{"bind path of 257 segments", boundDoc("- bind: x = " + path(257) + "\n"), fmt.Sprintf("9:%d json_path_too_long", 13+4+2*256+1)},
		{"path of 1,000,000 segments", boundDoc("- assert: " + path(1000000) + " is set\n"), fmt.Sprintf("9:%d json_path_too_long", 11+4+2*256+1)},
		{"path of 257 segments after non-ASCII", boundDoc("- assert: " + path(257) + ` == "é"` + "\n"), fmt.Sprintf("9:%d json_path_too_long", 11+4+2*256+1)},
		{"expression of 64 KiB", boundDoc(`- assert: body contains "` + strings.Repeat("é", (64<<10-16)/2) + `"` + "\n"), ""},
		{"expression over 64 KiB", boundDoc(`- assert: body contains "` + strings.Repeat("é", (64<<10-16)/2+1) + `"` + "\n"), "9:11 expression_too_long"},
		{"bind over 64 KiB", boundDoc("- bind: x = body match /" + strings.Repeat("a", 64<<10) + "/\n"), "9:9 expression_too_long"},
		{"too many words", boundDoc("- assert: " + strings.Repeat("a ", 600) + "\n"), "9:11 unrecognized_assert"},
		{"too many symbols", boundDoc("- bind: x = " + strings.Repeat("!", 600) + "\n"), "9:9 unrecognized_bind"},
		{"selection source of 256 segments", boundDoc("- bind: x = first(" + path(256) + ")\n"), ""},
		{"selection source of 257 segments", boundDoc("- bind: x = first(" + path(257) + ")\n"), fmt.Sprintf("9:%d json_path_too_long", 19+4+2*256+1)},
		{"selection key of 257 segments", boundDoc("- bind: x = first(json by a" + strings.Repeat(".a", 256) + ")\n"), fmt.Sprintf("9:%d json_path_too_long", 27+2*256)},
		{"selection trailing path of 257 segments", boundDoc("- assert: first(json)" + strings.Repeat(".a", 257) + " is set\n"), fmt.Sprintf("9:%d json_path_too_long", 22+2*256+1)},
		{"selection of 1,000,000 segments", boundDoc("- bind: x = first(" + path(1000000) + ")\n"), "9:9 expression_too_long"},
		{"selection of 500 conditions", boundDoc("- bind: x = first(json where a == 1" + strings.Repeat(" and a == 1", 499) + ")\n"), ""},
		{"selection of too many words", boundDoc("- bind: x = first(json where a == 1" + strings.Repeat(" and a == 1", 600) + ")\n"), "9:9 unrecognized_bind"},
		{"selection over 64 KiB", boundDoc(`- assert: first(json where a == "` + strings.Repeat("é", 32<<10) + `") is set` + "\n"), "9:11 expression_too_long"},
		{"nesting of 128", actionDoc(strings.Repeat(`{"a": [`, 64) + strings.Repeat("]}", 64)), ""},
		{"nesting of 129", actionDoc(strings.Repeat(`{"a": [`, 64) + "[" + strings.Repeat("]}", 64) + "]"), fmt.Sprintf("7:%d json_too_deep", 13+64*7)},
		{"nesting of 1,000,000", actionDoc(strings.Repeat("[", 1000000)), "7:141 json_too_deep"},
		{"64 frontmatter keys", fm(keys(62)), ""},
		{"65 frontmatter keys", fm(keys(63)), "66:1 frontmatter_too_large"},
		{"1,024 frontmatter brackets", fm("metadata: {" + strings.Repeat("a: '[{', ", 511) + "}\n"), ""},
		{"1,025 frontmatter brackets", fm("x: a\nmetadata: {" + strings.Repeat("a: '[{', ", 512) + "}\n"), "5:1 frontmatter_too_large"},
		{"4,096 frontmatter lines", fm("allowed-tools:\n" + strings.Repeat("  - a\n", 4093)), ""},
		{"4,097 frontmatter lines", fm("allowed-tools:\n" + strings.Repeat("  - a\n", 4094)), "4098:1 frontmatter_too_large"},
		{"1,000 problems", boundDoc(problems), ""},
		{"1,001 problems", boundDoc(problems + "- bogus: 1\n- bogus: 1\n"), "1009:1 too_many_problems"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, diags := grammar.Parse("b.skill.md", tt.src)
			checkRanges(t, tt.src, diags)
			var got []string
			for _, d := range diags {
				if d.Code != grammar.CodeUnknownField && d.Code != grammar.CodeDuplicateKey {
					got = append(got, fmt.Sprintf("%d:%d %s", d.Range.Start.Line, d.Range.Start.Column, d.Code))
				}
			}
			if strings.Join(got, ", ") != tt.want {
				t.Errorf("diagnostics %v, want [%s]", got, tt.want)
			}
		})
	}
}

// TestBoundMessages: each bound's rejection says what was found and what
// is allowed.
func TestBoundMessages(t *testing.T) {
	tests := []struct {
		src  []byte
		want string
	}{
		{boundDoc("- assert: " + path(300) + " is set\n"), "JSON path has 300 segments — at most 256 are allowed"},
		{boundDoc("- assert: body contains \"" + strings.Repeat("x", 70000) + "\"\n"), "Expression is 70016 bytes long — an assert or bind may have at most 65536"},
		{actionDoc(strings.Repeat("[", 200)), "Action args nest deeper than 128 levels"},
		{boundDoc("- assert: " + strings.Repeat("a ", 600) + "\n"), "Unrecognized assert expression: " + strings.Repeat("a ", 599) + "a"},
		{[]byte("---\nname: n\ndescription: d\nx: " + strings.Repeat("[", 2000) + "\n---\n"), "Frontmatter is too large to read: more than 1024 brackets ('[' and '{') — Agent Skills frontmatter is a few short keys"},
		{boundDoc(strings.Repeat("- bogus: 1\n", 1001)), "More than 1000 problems — the file is not read past this line"},
	}
	for _, tt := range tests {
		_, diags := grammar.Parse("b.skill.md", tt.src)
		found := false
		for _, d := range diags {
			found = found || d.Message == tt.want
		}
		if !found {
			t.Errorf("no diagnostic %q in %v", tt.want, diags)
		}
	}
	_, d := grammar.ParseAssert(strings.Repeat("a ", 600), base)
	if d == nil || !strings.Contains(d.Detail, "more than 528 words and symbols") {
		t.Errorf("a line of 600 words: %+v", d)
	}
	_, d = grammar.ParseArgs(strings.Repeat("[", 129), base)
	if d == nil || d.Code != grammar.CodeJSONTooDeep || d.Range.Start.Column != base.Column+128 {
		t.Errorf("ParseArgs of 129 brackets: %+v", d)
	}
}

// TestHolesInLongStrings: a hole is found wherever it sits in a string,
// also after another hole that ends past the first 128 bytes (those
// were once left as literal text).
func TestHolesInLongStrings(t *testing.T) {
	long := strings.Repeat("x", 130)
	for _, s := range []string{
		long + " {{a}} {{b}}",
		"{{a}}" + long + "{{b}}" + long + "{{c}}",
		strings.Repeat("{{a}}", 100),
	} {
		v, d := grammar.ParseArgs(`{"s": "`+s+`"}`, base)
		if d != nil {
			t.Fatal(d)
		}
		holes := v.(*ast.Object).Members[0].Value.(*ast.String).Holes
		if want := strings.Count(s, "{{"); len(holes) != want {
			t.Errorf("%d holes in %q, want %d", len(holes), s, want)
		}
		for _, h := range holes {
			if s[h.Start:h.End] != "{{"+h.Name+"}}" {
				t.Errorf("hole %+v is %q", h, s[h.Start:h.End])
			}
		}
	}
}

// hostileInput is an input built to cost a parser much more than its
// size, with the rejection that stops it ("" when it is a valid file).
type hostileInput struct {
	name, code string
	src        []byte
}

func hostileInputs() []hostileInput {
	const mb = 1 << 20
	return []hostileInput{
		{"path of 1,000,000 segments", grammar.CodeJSONPathTooLong, boundDoc("- assert: " + path(1000000) + " is set\n")},
		{"bind path of 1,000,000 segments", grammar.CodeJSONPathTooLong, boundDoc("- bind: x = " + path(1000000) + "\n")},
		{"1 MB assert of symbols", grammar.CodeExprTooLong, boundDoc("- assert: " + strings.Repeat("!", mb) + "\n")},
		{"1 MB assert of words", grammar.CodeExprTooLong, boundDoc("- assert: " + strings.Repeat("a ", mb/2) + "\n")},
		{"1 MB bind", grammar.CodeExprTooLong, boundDoc("- bind: x = " + strings.Repeat("a.", mb/2) + "\n")},
		{"1 MB bullet", grammar.CodeUnknownField, boundDoc("- " + strings.Repeat("a ", mb/2) + ": x\n")},
		{"1 MB action string", "", actionDoc(`{"a": "` + strings.Repeat("é", mb/2) + `"}`)},
		{"1 MB step title", "", []byte("---\nname: n\ndescription: d\n---\n### Step 1 — " + strings.Repeat("t", mb) + "\n- intent: i\n- action: t {}\n- effect: read\n")},
		{"1 MB frontmatter line", grammar.CodeFrontmatterTooLarge, []byte("---\nname: n\ndescription: d\nmetadata: {" + strings.Repeat("a: b, ", mb/6) + "}\n---\n")},
		{"nesting of 1,000,000", grammar.CodeJSONTooDeep, actionDoc(strings.Repeat("[", mb))},
		{"frontmatter nesting of 1,000,000", grammar.CodeFrontmatterTooLarge, []byte("---\nname: n\ndescription: d\nx: " + strings.Repeat("[", mb) + "\n---\n")},
		{"1 MB of frontmatter keys", grammar.CodeFrontmatterTooLarge, []byte("---\nname: n\ndescription: d\n" + strings.Repeat("key: value\n", mb/11) + "---\n")},
		{"1 MB of bad bullets", grammar.CodeTooManyProblems, boundDoc(strings.Repeat("- bogus: 1\n", mb/11))},
		{"1 MB of bad asserts", grammar.CodeTooManyProblems, boundDoc(strings.Repeat("- assert: x\n", mb/12))},
	}
}

// TestHostileMemory: parsing each hostile input allocates at most 20
// times its size, in all (runtime.MemStats.TotalAlloc), and stops at the
// rejection that bounds it.
func TestHostileMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("megabyte inputs")
	}
	for _, in := range hostileInputs() {
		t.Run(in.name, func(t *testing.T) {
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			_, diags := grammar.Parse("h.skill.md", in.src)
			runtime.ReadMemStats(&after)
			ratio := float64(after.TotalAlloc-before.TotalAlloc) / float64(len(in.src))
			if ratio > 20 {
				t.Errorf("allocated %.1f× its %d bytes, want at most 20×", ratio, len(in.src))
			}
			codes := map[string]bool{}
			for _, d := range diags {
				codes[d.Code] = true
			}
			if in.code == "" && len(diags) > 0 || in.code != "" && !codes[in.code] {
				t.Errorf("diagnostics %v, want %q", diags, in.code)
			}
		})
	}
}

// BenchmarkParseHostile parses each hostile input; B/op over the input's
// size is the "x" metric, which TestHostileMemory bounds by 20.
func BenchmarkParseHostile(b *testing.B) {
	for _, in := range hostileInputs() {
		b.Run(in.name, func(b *testing.B) {
			b.SetBytes(int64(len(in.src)))
			b.ReportAllocs()
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			for b.Loop() {
				grammar.Parse("h.skill.md", in.src)
			}
			runtime.ReadMemStats(&after)
			b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/float64(b.N)/float64(len(in.src)), "x")
		})
	}
	// A valid action whose arguments are dense JSON after a non-ASCII
	// character: positions on such a line were once counted from its
	// start, each in time proportional to the line (78 s for 256 KB).
	src := actionDoc(`["é"` + strings.Repeat(",1", 1<<17) + "]")
	b.Run("256 KB of JSON numbers after é", func(b *testing.B) {
		b.SetBytes(int64(len(src)))
		b.ReportAllocs()
		for b.Loop() {
			if _, diags := grammar.Parse("h.skill.md", src); len(diags) > 0 {
				b.Fatal(diags)
			}
		}
	})
}
