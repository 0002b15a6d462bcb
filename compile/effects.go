package compile

import (
	"fmt"
	"strings"

	"github.com/reelier/reelier/lang/ast"
	"github.com/reelier/reelier/lang/verbs"
	"github.com/reelier/reelier/trace"
)

// A tool name is read through the shared verb table (lang/verbs,
// SPEC.md §3 "Effect verbs"): the verb leading each clause counts, and so
// does an unsafe-to-repeat or destructive word anywhere, the most severe
// winning, so `fetch_delete_user` and `get_refund` are destructive,
// `get_or_create_user` is a write and `get_release` a read. An opaque verb
// such as run that leads a clause leaves the tool unclassified unless a
// destructive word is also there. The effect_verb lint reads the same
// table more leniently (verbs.Match.Floor), so a compiled skill never
// trips it.

// effectRank orders effects from harmless to irreversible.
func effectRank(e ast.Effect) int {
	switch e {
	case ast.EffectRead:
		return 1
	case ast.EffectIdempotentWrite:
		return 2
	case ast.EffectDestructive:
		return 3
	}
	return 0
}

// Classification is the effect the compiler gave a step and why.
type Classification struct {
	Effect ast.Effect `json:"effect"`
	// Reason says what decided it, such as `verb "get"` or
	// `annotation destructiveHint: true`.
	Reason string `json:"reason"`
	// Unclassified is set when neither a verb nor a hint said anything (or
	// an opaque verb such as run said nothing) and the step was made
	// destructive to be safe.
	Unclassified bool `json:"unclassified,omitempty"`
	// Conflict describes a hint that disagreed with the verb (or, for
	// idempotentHint: false, with destructiveHint: false) and says which
	// reading won, or "". It becomes an effect_conflict question.
	Conflict string `json:"conflict,omitempty"`
	// Arguments names what in the call's own arguments made the step more
	// careful than its tool (`the argument mode "delete"`, `the flag
	// amend: true`), or "". It becomes an argument_effect question.
	Arguments string `json:"arguments,omitempty"`
}

func isTrue(b *bool) bool  { return b != nil && *b }
func isFalse(b *bool) bool { return b != nil && !*b }

// classify applies the annotation trust ladder to a tool. Hints can make
// a step more careful, never milder than its verb:
//
//  1. destructiveHint: true always makes the step destructive;
//  2. a destructive verb anywhere in the name makes it destructive;
//  3. an unsafe-to-repeat verb makes it destructive, or idempotent-write
//     when the server declares idempotentHint: true;
//  4. a write verb makes it idempotent-write, or destructive when the
//     server declares idempotentHint: false (a repeat is not safe);
//  5. a read verb may be tightened: readOnlyHint: false makes it a write
//     (destructive with idempotentHint: false; idempotent-write with
//     idempotentHint: true or destructiveHint: false; destructive
//     otherwise), and idempotentHint: true makes it idempotent-write;
//  6. with no verb, or an opaque verb leading a clause, the hints decide:
//     readOnlyHint: true gives read; idempotentHint: true gives
//     idempotent-write; idempotentHint: false on a declared write
//     (readOnlyHint: false or destructiveHint: false) gives destructive;
//     destructiveHint: false gives idempotent-write; anything else is
//     destructive and unclassified. When an opaque verb and a known verb
//     meet (`run_and_update`), the more severe of the two readings wins.
func classify(tool string, ann *trace.Annotations) Classification {
	m := verbs.Scan(tool)
	var a trace.Annotations
	if ann != nil {
		a = *ann
	}
	if isTrue(a.DestructiveHint) {
		c := Classification{Effect: ast.EffectDestructive, Reason: "annotation destructiveHint: true"}
		if m.Opaque == "" && (m.Class == verbs.Read || m.Class == verbs.Write) {
			c.Conflict = fmt.Sprintf("the verb %q suggests %s, but the server declares destructiveHint: true, so the step is destructive", m.Verb, classEffect(m.Class))
		}
		return c
	}
	byVerb := classifyVerb(m, a)
	if m.Opaque != "" && m.Class != verbs.Destructive {
		if byHints := classifyHints(a, m.Opaque); byVerb.Effect == "" || effectRank(byHints.Effect) >= effectRank(byVerb.Effect) {
			return byHints
		}
	}
	if byVerb.Effect != "" {
		return byVerb
	}
	return classifyHints(a, "")
}

// classEffect is the effect a verb class gives when no hint is declared.
func classEffect(c verbs.Class) ast.Effect {
	switch c {
	case verbs.Read:
		return ast.EffectRead
	case verbs.Write:
		return ast.EffectIdempotentWrite
	case verbs.Unsafe, verbs.Destructive:
		return ast.EffectDestructive
	}
	return ""
}

// classifyVerb applies rules 2 to 5: the class of the name's most severe
// word, refined by the hints; an empty Classification when no word of the
// name is a known verb.
func classifyVerb(m verbs.Match, a trace.Annotations) Classification {
	verb := m.Verb
	reason := fmt.Sprintf("verb %q", verb)
	notMilder := func(c Classification) Classification {
		if isTrue(a.ReadOnlyHint) {
			c.Conflict = fmt.Sprintf("the server declares readOnlyHint: true, but the verb %q makes the step %s, and a hint never makes a step milder", verb, c.Effect)
		}
		return c
	}
	switch m.Class {
	case verbs.Destructive:
		return notMilder(Classification{Effect: ast.EffectDestructive, Reason: reason})
	case verbs.Unsafe:
		if isTrue(a.IdempotentHint) {
			return notMilder(Classification{Effect: ast.EffectIdempotentWrite, Reason: reason + ", safe to repeat by annotation idempotentHint: true"})
		}
		return notMilder(Classification{Effect: ast.EffectDestructive, Reason: reason + ", not safe to repeat"})
	case verbs.Write:
		if isFalse(a.IdempotentHint) {
			return Classification{Effect: ast.EffectDestructive, Reason: reason + " tightened by annotation idempotentHint: false",
				Conflict: fmt.Sprintf("the verb %q suggests idempotent-write, but the server declares idempotentHint: false, so a repeat is not safe (it may, say, make a second copy) and the step is destructive", verb)}
		}
		return notMilder(Classification{Effect: ast.EffectIdempotentWrite, Reason: reason})
	case verbs.Read:
		switch {
		case isFalse(a.ReadOnlyHint) && isFalse(a.IdempotentHint):
			return Classification{Effect: ast.EffectDestructive, Reason: reason + " tightened by annotations readOnlyHint: false, idempotentHint: false",
				Conflict: fmt.Sprintf("the verb %q suggests read, but the server declares readOnlyHint: false and idempotentHint: false, a write that is not safe to repeat, so the step is destructive", verb)}
		case isFalse(a.ReadOnlyHint) && (isTrue(a.IdempotentHint) || isFalse(a.DestructiveHint)):
			return Classification{Effect: ast.EffectIdempotentWrite, Reason: reason + " tightened by annotation readOnlyHint: false",
				Conflict: fmt.Sprintf("the verb %q suggests read, but the server declares readOnlyHint: false and says the write is safe to repeat, so the step is idempotent-write", verb)}
		case isFalse(a.ReadOnlyHint):
			return Classification{Effect: ast.EffectDestructive, Reason: reason + " tightened by annotation readOnlyHint: false",
				Conflict: fmt.Sprintf("the verb %q suggests read, but the server declares readOnlyHint: false and does not say the write is safe to repeat, so the step is destructive", verb)}
		case isTrue(a.IdempotentHint) && !isTrue(a.ReadOnlyHint):
			return Classification{Effect: ast.EffectIdempotentWrite, Reason: reason + " tightened by annotation idempotentHint: true",
				Conflict: fmt.Sprintf("the verb %q suggests read, but the server declares idempotentHint: true, which describes a write, so the step is idempotent-write", verb)}
		}
		return Classification{Effect: ast.EffectRead, Reason: reason}
	}
	return Classification{}
}

// classifyHints applies rule 6: the hints alone decide, for a name with no
// known verb or one led by the opaque verb opaque.
func classifyHints(a trace.Annotations, opaque string) Classification {
	switch {
	case isTrue(a.ReadOnlyHint):
		return Classification{Effect: ast.EffectRead, Reason: "annotation readOnlyHint: true"}
	case isTrue(a.IdempotentHint):
		return Classification{Effect: ast.EffectIdempotentWrite, Reason: "annotation idempotentHint: true"}
	case isFalse(a.IdempotentHint) && (isFalse(a.ReadOnlyHint) || isFalse(a.DestructiveHint)):
		c := Classification{Effect: ast.EffectDestructive, Reason: "annotations " + hints(&a)}
		if isFalse(a.DestructiveHint) {
			c.Conflict = "the server declares destructiveHint: false, but also idempotentHint: false, so a repeat is not safe and the step is destructive"
		}
		return c
	case isFalse(a.DestructiveHint):
		return Classification{Effect: ast.EffectIdempotentWrite, Reason: "annotation destructiveHint: false"}
	}
	if opaque != "" {
		return Classification{Effect: ast.EffectDestructive, Reason: fmt.Sprintf("verb %q says nothing about effects", opaque), Unclassified: true}
	}
	return Classification{Effect: ast.EffectDestructive, Reason: "no known verb", Unclassified: true}
}

// hints lists the hints a server declared, as `readOnlyHint: false, …`;
// "" when it declared none.
func hints(a *trace.Annotations) string {
	if a == nil {
		return ""
	}
	var parts []string
	for _, h := range a.Declared() {
		parts = append(parts, fmt.Sprintf("%sHint: %t", h.Name, h.Value))
	}
	return strings.Join(parts, ", ")
}
