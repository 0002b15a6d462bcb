// Package verbs is the one table of tool-name verbs that the compiler
// (compile) and the effect_verb lint both read. It says which words of a
// tool name mean the tool reads, writes, writes in a way a repeat would do
// again, or destroys, and which words say nothing at all. SPEC.md §3
// "Effect verbs (contract)" holds the same table; a test keeps the two
// equal.
//
// The package only reads names. What a class means for a step's effect,
// and how server annotations refine it, is the compiler's business.
package verbs

import (
	"strings"
	"sync"
	"unicode"
)

// Class is what a word of a tool name says about the tool. The ranked
// classes run from harmless to irreversible, so a larger Class is more
// severe; Opaque is outside that order.
type Class int

const (
	// None: the word is not in the table (an object such as "user").
	None Class = iota
	// Read: the tool only looks (get, list, search).
	Read
	// Write: a write that is safe to repeat (set, update, rename).
	Write
	// Unsafe: a write a repeat would do again — a second reply or
	// approval, a merge run twice, a toggle flipped back — though it can
	// be taken back.
	Unsafe
	// Destructive: deletes, moves money, or reaches people or production
	// in a way that cannot be taken back (delete, charge, send, deploy).
	Destructive
	// Opaque: the word says nothing about effects (run, execute): the
	// tool could do anything.
	Opaque
)

// String returns the class's name as SPEC.md's table writes it.
func (c Class) String() string {
	switch c {
	case Read:
		return "read"
	case Write:
		return "idempotent-write"
	case Unsafe:
		return "unsafe-to-repeat"
	case Destructive:
		return "destructive"
	case Opaque:
		return "opaque"
	}
	return "none"
}

// Row is one row of the verb table.
type Row struct {
	Class Class
	Words []string
}

// Table is the verb table, in SPEC.md's order, each row's words sorted.
// Words that are as often nouns as verbs in tool names are left out on
// purpose (email and message: `read_email`, `get_message`; also open,
// order, resolve, log, share, launch, resume): a tool led by one of them is
// unclassified, so the compiler makes it destructive and asks, unless the
// server's hints decide.
var Table = []Row{
	{Read, fields(`analyse analyze browse calculate compare compute count describe
		diff download echo estimate exists explain fetch find get health
		info inspect list load lookup peek ping poll preview query read
		retrieve scan search show stat status summarise summarize validate
		verify view whoami`)},
	{Write, fields(`add append apply archive assign attach bookmark close commit
		configure copy create detach dismiss edit fork grant import insert
		install label link lock mark modify move mute patch pin put
		register release rename reopen save set star store subscribe sync
		tag unarchive unassign unlink unlock unmute unpin unstar
		unsubscribe update upload upsert write`)},
	{Unsafe, fields(`accept activate approve book comment deactivate decline decrement
		disable enable increment invite merge pause push reboot redo
		reject replace reply rerun reserve respond restart revert rollback
		schedule spawn start stop suspend toggle trigger undo`)},
	{Destructive, fields(`ban broadcast buy cancel charge clear del delete deploy destroy
		drop erase escalate evict expire flush kill notify pay post
		publish purchase purge redeem refund remove reset revoke rm send
		shutdown submit terminate transfer truncate uninstall void wipe
		withdraw`)},
	{Opaque, fields(`call do exec execute handle invoke perform process run`)},
}

// NounPhrases are pairs of words whose first word is in Table but which
// together name a thing, not an action: `get_merge_request` reads a merge
// request and merges nothing. Inside such a pair neither word counts.
var NounPhrases = []string{"merge request", "merge requests", "start date", "start time"}

// Conjunctions split a name segment into clauses: `get_or_create_user`.
var Conjunctions = []string{"and", "or", "then"}

// lookup holds the tables built from Table, NounPhrases and Conjunctions,
// built on first use rather than at package initialisation (#20).
type lookup struct {
	classOf      map[string]Class
	nounPhrase   map[[2]string]bool
	conjunctions map[string]bool
}

var tables = sync.OnceValue(func() *lookup {
	t := &lookup{classOf: map[string]Class{}, nounPhrase: map[[2]string]bool{}, conjunctions: map[string]bool{}}
	for _, r := range Table {
		for _, w := range r.Words {
			if c, dup := t.classOf[w]; dup {
				panic("verbs: " + w + " is both " + c.String() + " and " + r.Class.String())
			}
			t.classOf[w] = r.Class
		}
	}
	for _, p := range NounPhrases {
		f := strings.Fields(p)
		t.nounPhrase[[2]string{f[0], f[1]}] = true
	}
	for _, w := range Conjunctions {
		t.conjunctions[w] = true
	}
	return t
})

func fields(s string) []string { return strings.Fields(s) }

// Of returns the class of one lower-case word, None when the table does
// not have it.
func Of(word string) Class { return tables().classOf[word] }

// Clauses cuts a tool name into clauses of lower-case words: namespace
// segments (split at ".", "/", ":" and "__"), and inside a segment the
// parts joined by "and", "or" or "then". `github.createIssue` gives
// [[github] [create issue]] and `get_or_create-user` gives [[get] [create
// user]].
func Clauses(tool string) [][]string {
	var clauses [][]string
	for _, seg := range strings.FieldsFunc(strings.ReplaceAll(tool, "__", "."), func(r rune) bool {
		return r == '.' || r == '/' || r == ':'
	}) {
		var clause []string
		for _, w := range Words(seg) {
			if tables().conjunctions[w] {
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

// Words cuts a name into lower-case words at every non-letter and at case
// changes: `HTTPGetStatus` gives [http get status]. Digits separate words
// and are dropped.
func Words(s string) []string {
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

// Match is what the words of one tool name say.
type Match struct {
	// Class is the most severe class the name implies, and Verb the first
	// word of that class; None when no word counts. The verb leading each
	// clause counts whatever its class, and an unsafe-to-repeat or
	// destructive word counts anywhere: `get_refund` gives Destructive,
	// "refund", and `add_issue_comment` Unsafe, "comment". A read or write
	// word after a clause's leading verb is taken as its object:
	// `get_release` reads a release.
	Class Class
	Verb  string
	// Lead is the most severe class among the verbs that lead a clause
	// (the first word of the clause found in the table), and LeadVerb
	// that verb: `get_refund` gives Read, "get".
	Lead     Class
	LeadVerb string
	// Opaque is the first opaque verb that leads a clause (`run_query`,
	// `list_and_run`), or "". An opaque word after a clause's leading verb
	// is an object (`get_workflow_run`).
	Opaque string
}

// Scan reads every word of every clause of a tool name.
func Scan(tool string) Match {
	var m Match
	for _, clause := range Clauses(tool) {
		led := false
		for i := 0; i < len(clause); i++ {
			w := clause[i]
			if i+1 < len(clause) && tables().nounPhrase[[2]string{w, clause[i+1]}] {
				i++
				continue
			}
			c := Of(w)
			if c == None {
				continue
			}
			lead := !led
			if lead {
				led = true
				if c == Opaque {
					if m.Opaque == "" {
						m.Opaque = w
					}
					continue
				}
				if c > m.Lead {
					m.Lead, m.LeadVerb = c, w
				}
			}
			if c == Opaque || (!lead && c < Unsafe) {
				continue
			}
			if c > m.Class {
				m.Class, m.Verb = c, w
			}
		}
	}
	return m
}

// Floor is the least class any reading of the name agrees on, which is
// what the effect_verb lint holds a hand-written step to: the most severe
// verb that leads a clause, with an unsafe-to-repeat verb counted as a
// write (a server may declare that a repeat is safe, and the compiler
// believes it). A verb later in a clause (`get_refund`) does not count
// here: it is as often a noun, and the compiler, not the lint, is the
// place to be that strict. Floor never exceeds what the compiler gives.
func (m Match) Floor() (Class, string) {
	switch m.Lead {
	case Destructive, Write:
		return m.Lead, m.LeadVerb
	case Unsafe:
		return Write, m.LeadVerb
	}
	return None, ""
}
