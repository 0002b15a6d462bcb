package compile

import (
	"fmt"
	"strings"
	"unicode"

	"github.com/reelier/reelier/ast"
	"github.com/reelier/reelier/trace"
)

// Verb lists. A tool name is read as clauses: its namespace segments
// (split at ".", "/", ":" and "__") and, inside a segment, the parts joined
// by "and", "or" or "then". The first known verb of each clause gives that
// clause's class, and the most severe clause wins (a clause led by an
// opaque verb such as run leaves the whole tool unclassified): `get_refund` is a read
// (refund is only its object), `search_and_replace` is a write, and
// `http.post` is destructive. The lists cover the lint's effect_verb lists
// at the same or a more severe class, so a compiled skill never trips it.
var (
	readVerbs = wordSet(`get list read fetch search find query lookup show view
		describe count browse retrieve load inspect info ping health whoami stat
		exists preview peek poll compare diff resolve validate verify explain
		summarize summarise estimate calculate compute echo download scan status`)
	writeVerbs = wordSet(`create add insert update upsert set put patch edit
		modify write save store merge assign label tag rename move copy upload
		import enable disable start stop restart close reopen lock unlock
		approve reject comment reply invite subscribe unsubscribe register book
		reserve schedule apply commit push release archive mark star unstar pin
		unpin attach link unlink sync configure replace append`)
	destructiveVerbs = wordSet(`delete del remove rm destroy drop purge erase
		wipe truncate cancel revoke terminate kill charge pay refund send
		transfer withdraw void post publish notify email deploy submit purchase
		buy reset clear flush uninstall ban expire evict shutdown`)
	// opaqueVerbs are verbs that say nothing about effects: a tool with a
	// clause that starts with one is unclassified, whatever its object is
	// (`run_query`, `run_and_list`).
	opaqueVerbs  = wordSet(`run execute exec invoke call trigger perform do process handle`)
	conjunctions = wordSet(`and or then`)
)

func wordSet(s string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(s) {
		m[w] = true
	}
	return m
}

// toolClauses cuts a tool name into clauses of lower-case words:
// `github.createIssue` gives [[github] [create issue]] and
// `get_or_create-user` gives [[get] [create user]]. Digits separate words
// and are dropped.
func toolClauses(tool string) [][]string {
	var clauses [][]string
	for _, seg := range strings.FieldsFunc(strings.ReplaceAll(tool, "__", "."), func(r rune) bool {
		return r == '.' || r == '/' || r == ':'
	}) {
		var clause []string
		for _, w := range words(seg) {
			if conjunctions[w] {
				clauses = append(clauses, clause)
				clause = nil
				continue
			}
			clause = append(clause, w)
		}
		clauses = append(clauses, clause)
	}
	return clauses
}

// words cuts a name into lower-case words at every non-letter and at case
// changes: `HTTPGetStatus` gives [http get status].
func words(s string) []string {
	var out []string
	var cur []rune
	flush := func() {
		if len(cur) > 0 {
			out = append(out, strings.ToLower(string(cur)))
			cur = cur[:0]
		}
	}
	runes := []rune(s)
	for i, r := range runes {
		if !unicode.IsLetter(r) {
			flush()
			continue
		}
		if unicode.IsUpper(r) && len(cur) > 0 {
			nextLower := i+1 < len(runes) && unicode.IsLower(runes[i+1])
			if unicode.IsLower(runes[i-1]) || nextLower {
				flush()
			}
		}
		cur = append(cur, r)
	}
	flush()
	return out
}

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

// verbClass returns the class of the tool's most severe clause and the
// verb that decided it; "" when no clause has a known verb.
func verbClass(tool string) (ast.Effect, string) {
	var best ast.Effect
	var verb string
	for _, clause := range toolClauses(tool) {
		for _, w := range clause {
			if opaqueVerbs[w] {
				return "", ""
			}
			e := wordClass(w)
			if e == "" {
				continue
			}
			if effectRank(e) > effectRank(best) {
				best, verb = e, w
			}
			break
		}
	}
	return best, verb
}

// wordClass returns the class a verb belongs to, or "".
func wordClass(w string) ast.Effect {
	switch {
	case destructiveVerbs[w]:
		return ast.EffectDestructive
	case writeVerbs[w]:
		return ast.EffectIdempotentWrite
	case readVerbs[w]:
		return ast.EffectRead
	}
	return ""
}

// Classification is the effect the compiler gave a step and why.
type Classification struct {
	Effect ast.Effect `json:"effect"`
	// Reason says what decided it, such as `verb "get"` or
	// `annotation destructiveHint: true`.
	Reason string `json:"reason"`
	// Unclassified is set when neither a verb nor a hint said anything and
	// the step was made destructive to be safe.
	Unclassified bool `json:"unclassified,omitempty"`
	// Conflict describes a hint that disagreed with the verb, or "".
	Conflict string `json:"conflict,omitempty"`
}

func isTrue(b *bool) bool  { return b != nil && *b }
func isFalse(b *bool) bool { return b != nil && !*b }

// classify applies the annotation trust ladder to a tool:
//
//  1. destructiveHint: true always makes the step destructive;
//  2. a verb match is never made milder by any hint;
//  3. a read verb may be tightened: readOnlyHint: false makes it a write
//     (idempotent when idempotentHint: true or destructiveHint: false,
//     destructive otherwise), and idempotentHint: true makes it an
//     idempotent write;
//  4. with no verb, readOnlyHint: true gives read, idempotentHint: true or
//     destructiveHint: false gives idempotent-write, and anything else is
//     destructive and unclassified.
func classify(tool string, ann *trace.Annotations) Classification {
	verbEffect, verb := verbClass(tool)
	var a trace.Annotations
	if ann != nil {
		a = *ann
	}
	if isTrue(a.DestructiveHint) {
		c := Classification{Effect: ast.EffectDestructive, Reason: "annotation destructiveHint: true"}
		if verbEffect != "" && verbEffect != ast.EffectDestructive {
			c.Conflict = fmt.Sprintf("the verb %q suggests %s, but the server declares destructiveHint: true, so the step is destructive", verb, verbEffect)
		}
		return c
	}
	verbReason := fmt.Sprintf("verb %q", verb)
	switch verbEffect {
	case ast.EffectDestructive, ast.EffectIdempotentWrite:
		c := Classification{Effect: verbEffect, Reason: verbReason}
		if isTrue(a.ReadOnlyHint) {
			c.Conflict = fmt.Sprintf("the server declares readOnlyHint: true, but the verb %q makes the step %s, and a hint never makes a step milder", verb, verbEffect)
		}
		return c
	case ast.EffectRead:
		switch {
		case isFalse(a.ReadOnlyHint) && (isTrue(a.IdempotentHint) || isFalse(a.DestructiveHint)):
			return Classification{Effect: ast.EffectIdempotentWrite, Reason: verbReason + " tightened by annotation readOnlyHint: false",
				Conflict: fmt.Sprintf("the verb %q suggests read, but the server declares readOnlyHint: false and says the write is safe to repeat, so the step is idempotent-write", verb)}
		case isFalse(a.ReadOnlyHint):
			return Classification{Effect: ast.EffectDestructive, Reason: verbReason + " tightened by annotation readOnlyHint: false",
				Conflict: fmt.Sprintf("the verb %q suggests read, but the server declares readOnlyHint: false and does not say the write is safe to repeat, so the step is destructive", verb)}
		case isTrue(a.IdempotentHint) && !isTrue(a.ReadOnlyHint):
			return Classification{Effect: ast.EffectIdempotentWrite, Reason: verbReason + " tightened by annotation idempotentHint: true",
				Conflict: fmt.Sprintf("the verb %q suggests read, but the server declares idempotentHint: true, which describes a write, so the step is idempotent-write", verb)}
		}
		return Classification{Effect: ast.EffectRead, Reason: verbReason}
	}
	switch {
	case isTrue(a.ReadOnlyHint):
		return Classification{Effect: ast.EffectRead, Reason: "annotation readOnlyHint: true"}
	case isTrue(a.IdempotentHint):
		return Classification{Effect: ast.EffectIdempotentWrite, Reason: "annotation idempotentHint: true"}
	case isFalse(a.DestructiveHint):
		return Classification{Effect: ast.EffectIdempotentWrite, Reason: "annotation destructiveHint: false"}
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
	for _, h := range []struct {
		name string
		v    *bool
	}{{"readOnlyHint", a.ReadOnlyHint}, {"destructiveHint", a.DestructiveHint}, {"idempotentHint", a.IdempotentHint}} {
		if h.v != nil {
			parts = append(parts, fmt.Sprintf("%s: %t", h.name, *h.v))
		}
	}
	return strings.Join(parts, ", ")
}
