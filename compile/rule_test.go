package compile_test

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/reelier/reelier/compile"
	"github.com/reelier/reelier/lang/ast"
	"github.com/reelier/reelier/lang/format"
	"github.com/reelier/reelier/lang/grammar"
	"github.com/reelier/reelier/tool"
	"github.com/reelier/reelier/trace"
)

// TestNoSilentLiteral holds the compiler to its rule on every trace in
// testdata: a value a call sends that equals a value an earlier result
// held (a JSON leaf, or a token of a text result), or that holds such a
// value of at least four characters as one of its tokens, is either bound
// or named by an open question about that step. A result does not count
// as holding what its own call sent (an echo). The check is written
// independently of the compiler: it reads each result whole, by brute
// force.
func TestNoSilentLiteral(t *testing.T) {
	for _, path := range append(traceFiles(t), extraTraces(t)...) {
		t.Run(filepath.Base(path), func(t *testing.T) {
			tr, out, skill := compileParsed(t, path)
			// held[k] is what the results before step k+1 held, as
			// "s:<string>" and "n:<number>", each with the step it came from.
			var held []map[string]int
			seen := map[string]int{}
			calls := map[int]*trace.Call{}
			n := 0
			for _, rec := range tr.Records {
				switch rec := rec.(type) {
				case *trace.Call:
					calls[rec.I] = rec
					snap := map[string]int{}
					for k, v := range seen {
						snap[k] = v
					}
					held = append(held, snap)
					n++
				case *trace.Result:
					c := calls[rec.I]
					if c == nil || !rec.OK {
						continue
					}
					echo := valuesOf(c.Args)
					for v := range resultValues(rec.Body) {
						if !echo[v] {
							seen[v] = stepOf(tr, rec.I)
						}
					}
				}
			}
			for k, st := range skill.Steps {
				if k >= len(held) {
					break
				}
				walkArgs(st.Action.Args, func(v ast.Value) {
					var checks []string
					switch v := v.(type) {
					case *ast.String:
						if len(v.Holes) > 0 {
							// The literal text around holes still counts.
							text := v.Value
							for i := len(v.Holes) - 1; i >= 0; i-- {
								h := v.Holes[i]
								text = text[:h.Start] + " " + text[h.End:]
							}
							for _, tok := range tokenize(text) {
								if len([]rune(tok)) >= 4 {
									checks = append(checks, "s:"+tok)
								}
							}
							break
						}
						checks = append(checks, "s:"+v.Value)
						for _, tok := range tokenize(v.Value) {
							if len([]rune(tok)) >= 4 {
								checks = append(checks, "s:"+tok)
							}
						}
					case *ast.Number:
						checks = append(checks, "n:"+canonNumber(v.Raw), "s:"+v.Raw)
					}
					for _, c := range checks {
						from, ok := held[k][c]
						if !ok {
							continue
						}
						if !askedAbout(out.Summary.Questions, st.Number, c[2:]) {
							t.Errorf("step %d sends %q, which step %d's result held, as a literal with no open question about it", st.Number, c[2:], from)
						}
					}
				})
			}
		})
	}
}

// extraTraces are traces outside testdata/traces the rule is held to too:
// real recordings kept by the truth bench, when present.
func extraTraces(t *testing.T) []string {
	paths, _ := filepath.Glob(filepath.Join("..", "bench", "truth", "testdata", "recordings", "*.jsonl"))
	return paths
}

func stepOf(tr *trace.Trace, i int) int {
	n := 0
	for _, rec := range tr.Records {
		if c, ok := rec.(*trace.Call); ok {
			n++
			if c.I == i {
				return n
			}
		}
	}
	return 0
}

// askedAbout reports whether some question about step n, or one listing
// n among the steps it is about, quotes the value.
func askedAbout(qs []compile.Question, n int, value string) bool {
	num := regexp.MustCompile(`\b` + strconv.Itoa(n) + `\b`)
	for _, q := range qs {
		if !strings.Contains(q.Text, value) && !strings.Contains(q.Text, fmt.Sprintf("%q", value)) {
			continue
		}
		if q.Step == n || num.MatchString(q.Text) {
			return true
		}
	}
	return false
}

var sep = regexp.MustCompile("[\\s/\\\\,;:=?&#\"'`()\\[\\]{}<>|!*+$%^~]+")

func tokenize(s string) []string {
	var out []string
	for _, t := range sep.Split(s, -1) {
		t = strings.TrimRight(t, ".")
		if t != "" {
			out = append(out, t)
		}
	}
	return out
}

func canonNumber(raw string) string {
	f, err := strconv.ParseFloat(raw, 64)
	if err != nil {
		return raw
	}
	return strconv.FormatFloat(f, 'g', -1, 64)
}

// valuesOf lists the strings (and their tokens) and numbers of a JSON
// document: what a call sends, which its own result may echo.
func valuesOf(doc []byte) map[string]bool { return jsonValues(doc, true) }

// jsonValues lists the string and number leaves of a JSON document, as
// "s:<string>" and "n:<number>", and with tokens set each string's tokens
// too.
func jsonValues(doc []byte, tokens bool) map[string]bool {
	out := map[string]bool{}
	var v any
	dec := json.NewDecoder(strings.NewReader(string(doc)))
	dec.UseNumber()
	if dec.Decode(&v) != nil {
		return out
	}
	var walk func(any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			for _, e := range v {
				walk(e)
			}
		case []any:
			for _, e := range v {
				walk(e)
			}
		case string:
			out["s:"+v] = true
			if tokens {
				for _, tok := range tokenize(v) {
					out["s:"+tok] = true
				}
			}
		case json.Number:
			out["n:"+canonNumber(v.String())] = true
		}
	}
	walk(v)
	return out
}

// resultValues lists what a result holds as the runtime observes it: the
// leaves of its JSON document, or the tokens of its text.
func resultValues(body []byte) map[string]bool {
	res, err := tool.ParseToolResult(body)
	if err != nil || res.IsError {
		return nil
	}
	doc := []byte(res.Structured)
	text := res.Text()
	if doc == nil && json.Valid([]byte(strings.TrimSpace(text))) && strings.ContainsAny(strings.TrimSpace(text)[:1], "{[") {
		doc = []byte(text)
	}
	if doc != nil {
		// Tokens of JSON strings are not separate values.
		return jsonValues(doc, false)
	}
	out := map[string]bool{}
	for _, tok := range tokenize(text) {
		out["s:"+tok] = true
		if _, err := strconv.ParseFloat(tok, 64); err == nil {
			out["n:"+canonNumber(tok)] = true
		}
	}
	return out
}

func walkArgs(v ast.Value, fn func(ast.Value)) {
	switch v := v.(type) {
	case *ast.Object:
		for _, m := range v.Members {
			walkArgs(m.Value, fn)
		}
	case *ast.Array:
		for _, e := range v.Elements {
			walkArgs(e, fn)
		}
	default:
		fn(v)
	}
}

// compileParsed loads a trace, compiles it and parses the printed skill,
// which must parse without a diagnostic.
func compileParsed(t *testing.T, path string) (*trace.Trace, *compile.Output, *ast.Skill) {
	t.Helper()
	tr, err := trace.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	out, err := compile.Compile(tr, compile.Options{Source: filepath.Base(path), Now: fixedNow})
	if err != nil {
		t.Fatal(err)
	}
	skill, diags := grammar.Parse(filepath.Base(path)+".skill.md", format.Source(out.Skill))
	if len(diags) > 0 {
		t.Fatalf("compiled skill does not parse: %v", diags)
	}
	return tr, out, skill
}
