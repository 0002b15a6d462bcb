package serve

import (
	"fmt"
	"math"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"sync"
	"unicode"

	"github.com/reelier/reelier/lang/ast"
)

// A skill is ranked against a task by plain lexical matching: both are cut
// into words, common words dropped and the rest reduced to a crude stem;
// each task word found in a skill scores the weight of the best field it
// was found in, times how rare the word is among the skills searched
// (a word every skill has says nothing). The ranking is deterministic: ties
// go to the path that sorts first.

// field is a part of a skill a task word can match, with its weight.
type field struct {
	name   string
	weight float64
}

// The fields, best first.
var (
	fieldName        = field{"name", 3}
	fieldDescription = field{"description", 2}
	fieldTools       = field{"tools", 2}
	fieldSteps       = field{"steps", 1.5}
)

// doc is one skill, cut into words for ranking.
type doc struct {
	path string
	// words maps a stem to where it occurs: a field and a label of the
	// place ("tool list_bookings", "step 2").
	words map[string][]place
}

type place struct {
	field field
	label string
}

// newDoc cuts a parsed skill into words: its name, description, tool names
// and the hosts and paths of URL arguments, and its step titles and
// intents.
func newDoc(path string, sk *ast.Skill) *doc {
	d := &doc{path: path, words: map[string][]place{}}
	d.add(sk.Name(), place{fieldName, "name"})
	d.add(sk.Description(), place{fieldDescription, "description"})
	for _, st := range sk.Steps {
		step := fmt.Sprintf("step %d", st.Number)
		d.add(st.Title, place{fieldSteps, step})
		if st.Intent != nil {
			d.add(st.Intent.Text, place{fieldSteps, step})
		}
		if st.Action != nil {
			tool := place{fieldTools, "tool " + st.Action.Tool}
			d.add(st.Action.Tool, tool)
			d.add(urlWords(st.Action.Args), tool)
		}
	}
	return d
}

// add files every word of text under p, once per label.
func (d *doc) add(text string, p place) {
	for _, w := range words(text, true) {
		if !slices.Contains(d.words[w], p) {
			d.words[w] = append(d.words[w], p)
		}
	}
}

// holes matches template holes, which name values rather than describe
// the call.
var holes = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\{\{[^}]*\}\}`) })

// urlWords returns the host and path of an action's "url" argument, with
// holes taken out.
func urlWords(args ast.Value) string {
	obj, ok := args.(*ast.Object)
	if !ok {
		return ""
	}
	for _, m := range obj.Members {
		s, ok := m.Value.(*ast.String)
		if m.Key != "url" || !ok {
			continue
		}
		u, err := url.Parse(holes().ReplaceAllString(s.Value, " "))
		if err != nil {
			return ""
		}
		return u.Hostname() + " " + u.Path
	}
	return ""
}

// stopWords are dropped from tasks and skills alike.
var stopWords = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`a an the and or but of to in on at by for with from into onto over via per
		is are was were be been being it its this that these those there here
		i me my we us our you your he she they them their
		do does did done can could would should will shall may might must
		please want need like just also then than so as if when what which who how
		all any each every some no not only up out about again new`) {
		stopWords[w] = true
	}
}

// words cuts text into lower-case stems at every rune that is not a
// letter or digit, dropping stop words and one-letter words. With camel,
// a word written in camel case (listBookings, GitHub) also yields its
// parts, so a tool name meets the words of a task; a task's own words are
// taken whole.
func words(text string, camel bool) []string {
	var out []string
	for _, raw := range rawWords(text) {
		out = appendWord(out, raw)
		if parts := camelParts(raw); camel && len(parts) > 1 {
			for _, p := range parts {
				out = appendWord(out, p)
			}
		}
	}
	return out
}

func appendWord(out []string, raw string) []string {
	w := strings.ToLower(raw)
	if len([]rune(w)) < 2 || stopWords[w] {
		return out
	}
	return append(out, stem(w))
}

// camelParts splits a word where a lower-case letter meets an upper-case
// one.
func camelParts(w string) []string {
	var parts []string
	start, prev := 0, rune(0)
	for i, r := range w {
		if unicode.IsUpper(r) && unicode.IsLower(prev) {
			parts = append(parts, w[start:i])
			start = i
		}
		prev = r
	}
	return append(parts, w[start:])
}

// stem strips the common English endings and a doubled final consonant,
// so "bookings", "booking" and "booked" meet at "book" and "cancelled"
// meets "cancel". It is deliberately crude: it only has to send a task's
// words and a skill's words to the same place, and both go through it.
func stem(w string) string {
	n := len(w)
	switch {
	case n > 4 && strings.HasSuffix(w, "ies"):
		w = w[:n-3] + "y"
	case n > 4 && (strings.HasSuffix(w, "sses") || strings.HasSuffix(w, "shes") || strings.HasSuffix(w, "ches") || strings.HasSuffix(w, "xes")):
		w = w[:n-2]
	case n > 3 && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") && !strings.HasSuffix(w, "us"):
		w = w[:n-1]
	}
	n = len(w)
	switch {
	case n > 5 && strings.HasSuffix(w, "ing"):
		w = w[:n-3]
	case n > 4 && strings.HasSuffix(w, "ed") && !strings.HasSuffix(w, "eed"):
		w = w[:n-2]
	}
	if n = len(w); n > 2 && w[n-1] == w[n-2] && strings.IndexByte("bcdfgklmnprtvz", w[n-1]) >= 0 {
		w = w[:n-1]
	}
	return w
}

// query is a task cut into words, each with the first form it was
// written in, for explanations.
type query struct {
	stems []string
	shown map[string]string
}

func newQuery(task string) query {
	q := query{shown: map[string]string{}}
	for _, raw := range rawWords(task) {
		for _, w := range words(raw, false) {
			if _, seen := q.shown[w]; !seen {
				q.shown[w] = strings.ToLower(raw)
				q.stems = append(q.stems, w)
			}
		}
	}
	return q
}

// rawWords splits text at anything that is not a letter or digit.
func rawWords(text string) []string {
	return strings.FieldsFunc(text, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
}

// match is how one skill answers a query.
type match struct {
	doc   *doc
	score float64
	// found lists the query words found, in query order, with where.
	found []wordMatch
	// missing lists the query words not found, as written.
	missing []string
}

type wordMatch struct {
	word   string
	places []place
}

// rank scores every doc against the query and returns those that match
// at least one word, best first.
func rank(q query, docs []*doc) []match {
	df := map[string]int{}
	for _, d := range docs {
		for _, w := range q.stems {
			if len(d.words[w]) > 0 {
				df[w]++
			}
		}
	}
	n := float64(len(docs))
	var out []match
	for _, d := range docs {
		m := match{doc: d}
		for _, w := range q.stems {
			places := d.words[w]
			if len(places) == 0 {
				m.missing = append(m.missing, q.shown[w])
				continue
			}
			best := 0.0
			for _, p := range places {
				best = max(best, p.field.weight)
			}
			// BM25's idf: near 0 for a word every skill has, larger the
			// rarer the word.
			idf := math.Log(1 + (n-float64(df[w])+0.5)/(float64(df[w])+0.5))
			m.score += best * idf
			m.found = append(m.found, wordMatch{word: q.shown[w], places: places})
		}
		if len(m.found) > 0 {
			m.score = math.Round(m.score*100) / 100
			out = append(out, m)
		}
	}
	slices.SortStableFunc(out, func(a, b match) int {
		switch {
		case a.score != b.score:
			if a.score > b.score {
				return -1
			}
			return 1
		case len(a.found) != len(b.found):
			return len(b.found) - len(a.found)
		}
		return strings.Compare(a.doc.path, b.doc.path)
	})
	return out
}

// why explains a match in one sentence.
func (m match) why(total int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d of %d task words found: ", len(m.found), total)
	for i, f := range m.found {
		if i > 0 {
			b.WriteString("; ")
		}
		labels := make([]string, len(f.places))
		for j, p := range f.places {
			labels[j] = p.label
		}
		fmt.Fprintf(&b, "%q in %s", f.word, strings.Join(labels, ", "))
	}
	if len(m.missing) > 0 {
		fmt.Fprintf(&b, ". Not found: %s", strings.Join(quoteAll(m.missing), ", "))
	}
	b.WriteString(".")
	return b.String()
}

func quoteAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = fmt.Sprintf("%q", s)
	}
	return out
}
