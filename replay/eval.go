package replay

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf16"

	"github.com/reelier/reelier/internal/jsregex"
	"github.com/reelier/reelier/internal/words"
	"github.com/reelier/reelier/lang/ast"
	"github.com/reelier/reelier/lang/format"
	"github.com/reelier/reelier/tool"
	"github.com/reelier/reelier/tool/jsondata"
)

// evaluation checks a step's asserts and binds against one observation.
// Every expression is evaluated; failures accumulate.
type evaluation struct {
	obs *tool.Observation
	// fill fills the template holes of selection conditions and values
	// from the run's bindings; nil outside a run (Check), where every
	// variable hole is unbound.
	fill     *filler
	failures []Failure
	binds    []binding
	// badJSON is set once the body has been reported as not JSON, so the
	// report appears once per step however many expressions need JSON.
	badJSON bool
}

// binding is one successful bind.
type binding struct {
	name  string
	value any
}

func (e *evaluation) fail(f *Failure) {
	if f != nil {
		e.failures = append(e.failures, *f)
	}
}

// json returns the parsed body, reporting a body that is not JSON.
func (e *evaluation) json() (any, bool) {
	v, err := e.obs.JSON()
	if err == nil {
		return v, true
	}
	if !e.badJSON {
		e.badJSON = true
		e.failures = append(e.failures, Failure{Message: fmt.Sprintf(
			"Assertion needs JSON body but body is not valid JSON: %v; body starts %s",
			err, jsondata.String(words.Clip(sourceRedactor.String("", words.Clip(e.obs.Body, 4*maxShown)), maxShown)))})
	}
	return nil, false
}

// assert evaluates one assert expression. The canonical text of the
// expression is printed only when it fails.
func (e *evaluation) assert(a ast.Assert) {
	var f *Failure
	switch a := a.(type) {
	case *ast.StatusAssert:
		if (e.obs.Status == a.Code) != (a.Op == ast.OpNe) {
			return
		}
		f = failed(string(a.Op)+" "+strconv.Itoa(a.Code), strconv.Itoa(e.obs.Status))
	case *ast.BodyContainsAssert:
		at := strings.Index(e.obs.Body, a.Text)
		if (at >= 0) != a.Negated {
			return
		}
		observed := fmt.Sprintf("a body of %d bytes without it", len(e.obs.Body))
		if a.Negated {
			observed = fmt.Sprintf("it at byte %d of the body", at)
		}
		f = failed(strings.TrimPrefix(format.Assert(a), "body "), observed)
		f.Message = fmt.Sprintf("%s failed (body length %d)", format.Assert(a), len(e.obs.Body))
	case *ast.SelectionAssert:
		if f = e.checkSelection(a); f == nil {
			return
		}
	default:
		root, ok := e.json()
		if !ok {
			return
		}
		if f = checkJSON(a, root); f == nil {
			return
		}
	}
	f.Expr = format.Assert(a)
	switch {
	case f.Message != "":
	case f.Expected == "": // an error evaluating the expression
		f.Message = f.Expr + ": " + f.Observed
		f.Observed = ""
	default:
		f.Message = f.Expr + " failed: got " + f.Observed
	}
	e.failures = append(e.failures, *f)
}

// checkMatches is `matches /pattern/` on v, found (or not) under the
// member that member names; nil when it holds.
func checkMatches(v any, found bool, pattern string, member func() string) *Failure {
	want := "a string matching /" + pattern + "/"
	s, isString := v.(string)
	if !isString {
		return failed(want, typed(v, found, member()))
	}
	re, err := jsregex.Compile(pattern)
	if err != nil {
		return failed("", "invalid regex: "+err.Error())
	}
	ok, err := re.MatchString(s)
	switch {
	case err != nil:
		return failed("", err.Error())
	case ok:
		return nil
	}
	return failed(want, show(v, found, member()))
}

// checkJSON evaluates a json.* assert against the parsed body, returning
// nil when it holds.
func checkJSON(a ast.Assert, root any) *Failure {
	switch a := a.(type) {
	case *ast.JSONIsAssert:
		v, found := Resolve(root, a.Path)
		if isType(v, found, a.Type) {
			return nil
		}
		return failed(string(a.Type), typed(v, found, memberOf(root, a.Path)))
	case *ast.JSONMatchesAssert:
		v, found := Resolve(root, a.Path)
		return checkMatches(v, found, a.Pattern, func() string { return memberOf(root, a.Path) })
	case *ast.JSONLengthAssert:
		v, found := Resolve(root, a.Path)
		want := "length " + string(a.Op) + " " + strconv.Itoa(a.Length)
		n, hasLen := lengthOf(v)
		if !hasLen {
			return failed(want, typed(v, found, memberOf(root, a.Path))+", which has no length")
		}
		if compareFloat(float64(n), a.Op, float64(a.Length)) {
			return nil
		}
		return failed(want, "length "+strconv.Itoa(n))
	case *ast.JSONCompareAssert:
		v, found := Resolve(root, a.Path)
		want := scalar(a.Value)
		if compareValues(v, found, a.Op, want) {
			return nil
		}
		return failed(string(a.Op)+" "+jsondata.String(want), show(v, found, memberOf(root, a.Path)))
	}
	return failed("", fmt.Sprintf("unsupported assert %T", a))
}

// typed shows a value with its JSON type, for type-related failures; key
// is the member the value sits under (see show).
func typed(v any, found bool, key string) string {
	if !found {
		return notFound
	}
	if v == nil {
		return "null"
	}
	return jsondata.TypeName(v) + " " + show(v, true, key)
}

// isType implements `is <type>`.
func isType(v any, found bool, t ast.TypeName) bool {
	if !found {
		return false
	}
	switch t {
	case ast.TypeSet:
		return v != nil
	case ast.TypeNull:
		return v == nil
	}
	return jsondata.TypeName(v) == string(t)
}

// lengthOf returns the length of an array, or of a string in UTF-16 code
// units as JavaScript counts it.
func lengthOf(v any) (int, bool) {
	switch v := v.(type) {
	case []any:
		return len(v), true
	case string:
		n := 0
		for _, r := range v {
			n += utf16.RuneLen(r)
		}
		return n, true
	}
	return 0, false
}

// scalar converts an assert's right-hand side to JSON data.
func scalar(v ast.Value) any {
	switch v := v.(type) {
	case *ast.String:
		return v.Value
	case *ast.Number:
		return jsondata.Number(v.Raw)
	case *ast.Bool:
		return v.Value
	}
	return nil
}

// compareValues implements `json.<path> <op> <scalar>`: == and != are strict
// equality (a missing value equals nothing), the orderings hold only
// between two numbers.
func compareValues(v any, found bool, op ast.Op, want any) bool {
	switch op {
	case ast.OpEq:
		return found && jsondata.StrictEqual(v, want)
	case ast.OpNe:
		return !found || !jsondata.StrictEqual(v, want)
	}
	got, ok1 := v.(jsondata.Number)
	w, ok2 := want.(jsondata.Number)
	return found && ok1 && ok2 && compareFloat(got.Float(), op, w.Float())
}

// compareFloat applies an ordering operator.
func compareFloat(a float64, op ast.Op, b float64) bool {
	if math.IsNaN(a) || math.IsNaN(b) {
		return false
	}
	switch op {
	case ast.OpGt:
		return a > b
	case ast.OpLt:
		return a < b
	case ast.OpGe:
		return a >= b
	case ast.OpLe:
		return a <= b
	}
	return false
}
