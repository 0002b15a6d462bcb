package runtime

import (
	"unicode/utf8"

	"github.com/reelier/reelier/runtime/jsondata"
	"github.com/reelier/reelier/runtime/runlog"
)

// Failure is one reason a step failed.
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

// show renders a resolved value for a failure message.
func show(v any, found bool) string {
	if !found {
		return notFound
	}
	return clip(jsondata.String(v), maxObserved)
}

// clip shortens s to at most n bytes on a rune boundary, marking the cut.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

// failed describes an expression that did not hold; the caller names the
// expression. An empty expected means evaluating it went wrong, and observed
// says how.
func failed(expected, observed string) *Failure {
	return &Failure{Expected: expected, Observed: observed}
}
