package verbs

import (
	"slices"
	"strings"
)

// A tool's name is not always what it does: `edit_tasks {"mode":
// "delete"}` deletes, `git_commit {"amend": true}` rewrites a commit that
// may already be shared. The tables below say which arguments of a call
// the compiler and the effect_arguments lint read as well as the name.
// SPEC.md §3 "Effect arguments (contract)" holds the same tables; a test
// keeps the two equal. Only the call's top-level arguments are read.

// ModeKeys are the words that make an argument name a mode: a string
// argument whose name has one of them as a word (`mode`, `action`,
// `http_method`, `operationType`) says what the call does, and its value
// is read through Table like a tool name (`delete` → destructive, `create`
// → a write, `list` → a read).
var ModeKeys = fields(`action command method mode op operation`)

// Flags are the words that make a boolean argument a flag that changes
// what a write does: one set to true whose name has one of them as a word
// (`force`, `amend`, `hard_delete`, `allowOverwrite`, `delete_branch`)
// makes the call destructive whatever its name says. A flag set to false,
// or a name that only contains such a word inside a longer one (`deleted`,
// `forced_at`), counts for nothing.
var Flags = fields(`amend cascade delete destroy drop erase force hard
	overwrite permanent permanently prune purge remove replace truncate
	wipe`)

// Reach are the words of a boolean argument that widen what a call
// touches without changing what it does: set to true beside a destructive
// verb (in the name or a mode) they are named in the reason, and alone
// they count for nothing (`list_directory {"recursive": true}` reads
// more, not harder).
var Reach = fields(`recursive`)

// maxModeValue bounds the mode values that are read: a longer string is
// free text (a script, a query), not the name of an action.
const maxModeValue = 256

// keyHas returns the first word of the argument name key that is in
// words, or "". Names hold none of them nearly always, so the name is cut
// into words only when one of them occurs in it, in any case.
func keyHas(key string, words []string) string {
	found := false
	for _, w := range words {
		if containsFold(key, w) {
			found = true
			break
		}
	}
	if !found {
		return ""
	}
	for _, w := range Words(key) {
		if slices.Contains(words, w) {
			return w
		}
	}
	return ""
}

// containsFold reports whether s contains the lower-case ASCII word w in
// any case.
func containsFold(s, w string) bool {
	for i := 0; i+len(w) <= len(s); i++ {
		j := 0
		for j < len(w) && s[i+j]|0x20 == w[j] {
			j++
		}
		if j == len(w) {
			return true
		}
	}
	return false
}

// IsModeKey reports whether an argument of this name is a mode.
func IsModeKey(key string) bool { return keyHas(key, ModeKeys) != "" }

// FlagWord returns the word of a boolean argument's name that makes it a
// flag (Flags), or "".
func FlagWord(key string) string { return keyHas(key, Flags) }

// ReachWord returns the word of a boolean argument's name that makes it a
// reach (Reach), or "".
func ReachWord(key string) string { return keyHas(key, Reach) }

// Mode reads a mode argument's value as Scan reads a tool name: the
// match, whose Class is None when the value names no action (or is too
// long to be a name).
func Mode(value string) Match {
	if len(value) > maxModeValue || strings.TrimSpace(value) == "" {
		return Match{}
	}
	return Scan(value)
}

// VerbEnum reports whether the values of an enum name actions: at least
// two of them, and at least half, are led by a verb of Table other than
// an opaque one. Such an argument is read as a mode whatever its name
// (`{"task": {"enum": ["fetch", "save", "remove"]}}`).
func VerbEnum(values []string) bool {
	n := 0
	for _, v := range values {
		if m := Mode(v); m.Lead != None {
			n++
		}
	}
	return n >= 2 && 2*n >= len(values)
}
