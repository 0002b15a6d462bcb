package replay

import (
	"bytes"

	"github.com/reelier/reelier/internal/words"
	"github.com/reelier/reelier/lang/ast"
	"github.com/reelier/reelier/redact"
	"github.com/reelier/reelier/replay/runlog"
	"github.com/reelier/reelier/tool/jsondata"
)

// Failure is one reason a step failed. A step's failures are redacted
// (redactFailures) before a StepResult or the run record holds them.
type Failure struct {
	// Message is the text recorded in the run record.
	Message string
	// Expr is the canonical assert or bind that failed; empty for failures
	// of the step as a whole (refusals, tool errors, template errors).
	Expr string
	// Expected and Observed describe, for a receipt, what the expression
	// wanted and what the observation held. Both are empty when Expr is.
	Expected string
	Observed string
	// Kind is why a step-level failure happened (tool, gate, input);
	// empty for an expression that did not hold (a check).
	Kind runlog.Kind
}

// notFound is how a missing path is shown.
const notFound = "(not found)"

// maxShown bounds the start of a body quoted in a failure message.
const maxShown = 200

// maxObserved bounds an observed value shown in a failure: a receipt shows
// it whole up to this many bytes, and the record's message quotes it.
const maxObserved = 2000

// show renders a resolved value for a failure message. key is the member
// the value sits under (memberOf): a value under password, token or
// authorization is blanked whole, as the trace would blank it, and so is
// every credential shape in it, before it is clipped.
func show(v any, found bool, key string) string {
	if !found {
		return notFound
	}
	return words.Clip(redactedValue(v, key), maxObserved)
}

// sourceRedactor blanks, where a failure is made, what only the value's
// place can tell is a secret (a member named password, token…) and every
// credential shape. The values REELIER_REDACT names are blanked by the
// run's own redactor when the failure reaches the step's record
// (redactFailures); Check's failures, which no record keeps, have only
// this.
var sourceRedactor = redact.NewRedactor(nil, nil)

// redactedValue is v as compact JSON, redacted as the member key of an
// object.
func redactedValue(v any, key string) string {
	obj := append(jsondata.AppendString([]byte{'{'}, key), ':')
	obj = append(jsondata.Append(obj, v), '}')
	red, err := sourceRedactor.JSON(obj)
	if err != nil {
		return redact.Redacted
	}
	if bytes.Equal(red, obj) {
		return jsondata.String(v)
	}
	root, err := jsondata.Parse(string(red))
	o, ok := root.(*jsondata.Object)
	if err != nil || !ok || len(o.Members) != 1 {
		return redact.Redacted
	}
	return jsondata.String(o.Members[0].Value)
}

// memberOf is the name of the object member the path's value sits under,
// as the trace redactor sees it: an array's elements sit under the array's
// member; "" at the root.
func memberOf(root any, p ast.Path) string {
	key, cur := "", root
	for _, el := range p.Elements {
		switch c := cur.(type) {
		case *jsondata.Object:
			v, ok := c.Get(el.Name)
			if !ok {
				return key
			}
			key, cur = el.Name, v
		case []any:
			if !canonicalIndex(el) || el.Index >= len(c) {
				return key
			}
			cur = c[el.Index]
		default:
			return key
		}
	}
	return key
}

// failed describes an expression that did not hold; the caller names the
// expression. An empty expected means evaluating it went wrong, and observed
// says how.
func failed(expected, observed string) *Failure {
	return &Failure{Expected: expected, Observed: observed}
}
