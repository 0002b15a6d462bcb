package compile

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/reelier/reelier/lang/ast"
	"github.com/reelier/reelier/lang/format"
)

// Kind names what an open question is about.
type Kind string

// The kinds of open question, in the order they are listed within a step.
const (
	// KindUnnarrated: no note preceded the call.
	KindUnnarrated Kind = "unnarrated"
	// KindMissingResult: the trace has no result for the call.
	KindMissingResult Kind = "missing_result"
	// KindFailedResult: the call failed while recording.
	KindFailedResult Kind = "failed_result"
	// KindTruncatedBody: the result is a truncation marker (§2.4).
	KindTruncatedBody Kind = "truncated_body"
	// KindUnminedBody: the result was too large to search.
	KindUnminedBody Kind = "unmined_body"
	// KindUnclassifiedEffect: nothing said what the tool does.
	KindUnclassifiedEffect Kind = "unclassified_effect"
	// KindEffectConflict: a server annotation disagreed with the verb.
	KindEffectConflict Kind = "effect_conflict"
	// KindArgumentEffect: the call's arguments made the step more careful
	// than its tool's name.
	KindArgumentEffect Kind = "argument_effect"
	// KindArgsNotObject: the recorded arguments are not a JSON object.
	KindArgsNotObject Kind = "args_not_object"
	// KindArrayIndexBind: a bind reads a position in an array.
	KindArrayIndexBind Kind = "array_index_bind"
	// KindSelectedBind: a bind picks the element whose field holds what
	// the step sent.
	KindSelectedBind Kind = "selected_bind"
	// KindChosenValue: a value the agent chose (a schema enum or const, a
	// category word) that an earlier result also held stays a literal.
	KindChosenValue Kind = "chosen_value"
	// KindLinePositionBind: a body match bind counts lines of a text.
	KindLinePositionBind Kind = "line_position_bind"
	// KindStructuredMismatch: a result's text and structuredContent differ.
	KindStructuredMismatch Kind = "structured_mismatch"
	// KindNoStableCheck: a result has content but nothing stable to assert.
	KindNoStableCheck Kind = "no_stable_check"
	// KindRedactedInput: a redacted argument became an input.
	KindRedactedInput Kind = "redacted_input"
	// KindShortValue: a short value an earlier result also held.
	KindShortValue Kind = "short_value"
	// KindDerivedText: text a call sends repeats words of a result.
	KindDerivedText Kind = "derived_text"
	// KindNotRerunnable: a step creates what a second replay finds there.
	KindNotRerunnable Kind = "not_rerunnable"
	// KindUnbindablePath: a value came from a key no path can name.
	KindUnbindablePath Kind = "unbindable_path"
	// KindTemplateLiteral: a recorded string contains a template hole.
	KindTemplateLiteral Kind = "template_literal"
	// KindDateLiteral: a date literal, with the computed form that fits.
	KindDateLiteral Kind = "date_literal"
	// KindImpossibleDate: a date-shaped literal that is no calendar date.
	KindImpossibleDate Kind = "impossible_date"
	// KindUUIDLiteral: a UUID no earlier step returned.
	KindUUIDLiteral Kind = "uuid_literal"
	// KindUnixTimestamp: a number that looks like a Unix timestamp.
	KindUnixTimestamp Kind = "unix_timestamp"
	// KindRepeatedLiteral: a literal several calls send, derived from none.
	KindRepeatedLiteral Kind = "repeated_literal"
	// KindTrailingNote: narration after the last call.
	KindTrailingNote Kind = "trailing_note"
	// KindNoRecordingDate: meta.startedAt is not a timestamp.
	KindNoRecordingDate Kind = "no_recording_date"
	// KindComputedNumber: a writing step sends a number nothing explains,
	// beside a value picked from a list.
	KindComputedNumber Kind = "computed_number"
)

// kindOrder lists the kinds in the order questions of one step appear.
var kindOrder = []Kind{
	KindUnnarrated, KindMissingResult, KindFailedResult, KindTruncatedBody,
	KindUnminedBody, KindUnclassifiedEffect, KindEffectConflict, KindArgumentEffect,
	KindArgsNotObject, KindStructuredMismatch, KindNoStableCheck,
	KindArrayIndexBind, KindSelectedBind, KindLinePositionBind, KindRedactedInput,
	KindUnbindablePath, KindChosenValue, KindShortValue, KindDerivedText, KindNotRerunnable,
	KindTemplateLiteral, KindDateLiteral, KindImpossibleDate, KindUUIDLiteral,
	KindUnixTimestamp, KindRepeatedLiteral, KindTrailingNote, KindNoRecordingDate, KindComputedNumber,
}

// Question is one thing the compiler refused to guess.
type Question struct {
	// Step is the step the question is about; 0 for the trace as a whole.
	Step int  `json:"step,omitempty"`
	Kind Kind `json:"kind"`
	// Text is the question as printed, naming the step it is about.
	Text string `json:"text"`
}

// questions collects open questions and puts them in a stable order.
type questions struct {
	list []Question
}

func (q *questions) add(step int, kind Kind, msg string, args ...any) {
	q.list = append(q.list, Question{Step: step, Kind: kind, Text: fmt.Sprintf(msg, args...)})
}

// sorted returns the questions by step (questions about no step last),
// then by kind, then in the order they were asked.
func (q *questions) sorted() []Question {
	rank := map[Kind]int{}
	for i, k := range kindOrder {
		rank[k] = i
	}
	stepKey := func(n int) int {
		if n == 0 {
			return int(^uint(0) >> 1)
		}
		return n
	}
	out := slices.Clone(q.list)
	slices.SortStableFunc(out, func(a, b Question) int {
		return cmp.Or(cmp.Compare(stepKey(a.Step), stepKey(b.Step)), cmp.Compare(rank[a.Kind], rank[b.Kind]))
	})
	return out
}

// ref names a step in a question: `Step 3 (list_bookings)`.
func ref(st *step) string { return fmt.Sprintf("Step %d (%s)", st.n, st.tool) }

// maxQuoted is how many characters of a literal a question quotes.
const maxQuoted = 60

// quote renders a literal leaf for a question the way the skill writes
// it, long strings shortened.
func quote(v ast.Value) string {
	if s, ok := v.(*ast.String); ok {
		return format.Value(&ast.String{Value: clip(s.Value, maxQuoted)})
	}
	return format.Value(v)
}

// quoteText quotes free text for a question.
func quoteText(s string) string { return quote(&ast.String{Value: s}) }

// stepsPhrase renders "step 4" or "steps 4 and 6".
func stepsPhrase(ns []int) string {
	if len(ns) == 1 {
		return "step " + strconv.Itoa(ns[0])
	}
	return "steps " + stepList(ns)
}

// stepList renders step numbers as "2, 4 and 7".
func stepList(ns []int) string {
	parts := make([]string, len(ns))
	for i, n := range ns {
		parts[i] = strconv.Itoa(n)
	}
	if len(parts) < 2 {
		return strings.Join(parts, "")
	}
	return strings.Join(parts[:len(parts)-1], ", ") + " and " + parts[len(parts)-1]
}
