package compile

import (
	"strconv"
	"strings"

	"github.com/reelier/reelier/internal/jsregex"
	"github.com/reelier/reelier/lang/ast"
	"github.com/reelier/reelier/lang/grammar"
	"github.com/reelier/reelier/tool/jsondata"
)

// Text listings. A value the agent took from one line of a listing — a
// file of `[FILE] …` lines, a row of a CSV or Markdown table — is a pick
// among the lines shaped like it. The line is cut into words and the
// separators between them; the lines with the same separators are its
// siblings, the candidates. A word every sibling shares is literal in
// the pattern (`[FILE]`), a word that varies is a named capture, and the
// rule is induced over the captures as over a JSON array's elements.

// maxListingLines bounds the lines a listing rule looks at, and
// maxListingLine the length of each.
const (
	maxListingLines = maxCandidates
	maxListingLine  = 4096
)

// lineWord is a word of a line: its byte span, and whether it sits
// between double quotes (a CSV cell, which may hold blanks).
type lineWord struct {
	start, end int
	quoted     bool
}

// cellSep reports a byte that separates the words of a listing line.
func cellSep(c byte) bool {
	switch c {
	case ' ', '\t', '|', ',', ';', '[', ']', '(', ')', '"', '\'':
		return true
	}
	return false
}

// lineWords cuts a line into words; seps are the separator runs around
// them (len(seps) == len(words)+1).
func lineWords(line string) (words []lineWord, seps []string) {
	i, from := 0, 0
	for i < len(line) {
		if line[i] == '"' {
			end := strings.IndexByte(line[i+1:], '"')
			if end >= 0 && end > 0 {
				seps = append(seps, line[from:i+1])
				words = append(words, lineWord{start: i + 1, end: i + 1 + end, quoted: true})
				i = i + 1 + end
				from = i
				i++
				continue
			}
		}
		if cellSep(line[i]) {
			i++
			continue
		}
		seps = append(seps, line[from:i])
		j := i
		for j < len(line) && !cellSep(line[j]) {
			j++
		}
		words = append(words, lineWord{start: i, end: j})
		i, from = j, j
	}
	seps = append(seps, line[from:])
	return words, seps
}

// listing is a text cut into its non-blank lines.
type listing struct {
	lines []string
}

func newListing(text string) listing {
	var l listing
	for line := range strings.SplitSeq(text, "\n") {
		line = strings.TrimRight(line, "\r")
		if strings.TrimSpace(line) == "" {
			continue
		}
		if len(l.lines) == maxListingLines {
			break
		}
		l.lines = append(l.lines, line)
	}
	return l
}

// lineSite is what a listing rule needs: the pattern, its captures per
// candidate, and which capture holds the picked token.
type lineSite struct {
	pattern string
	cands   []*jsondata.Object
	picked  int
	capture string
}

// listingSite finds the line of text that holds tok as a whole word (the
// first such line) and its siblings, and derives the pattern that reads
// them; ok is false when the line has fewer than two siblings or tok is
// not a word of it.
func listingSite(text, tok string) (lineSite, bool) {
	if len(text) > maxPatternText {
		return lineSite{}, false
	}
	l := newListing(text)
	for _, line := range l.lines {
		if len(line) > maxListingLine {
			// A listing's rows are short; a long line is a document, and
			// a regex over it costs more than a pick is worth.
			return lineSite{}, false
		}
	}
	at, wi := -1, -1
	var words []lineWord
	var seps []string
	for i, line := range l.lines {
		if !strings.Contains(line, tok) {
			continue
		}
		ws, ss := lineWords(line)
		for k, w := range ws {
			if line[w.start:w.end] == tok {
				at, wi, words, seps = i, k, ws, ss
				break
			}
		}
		if at >= 0 {
			break
		}
	}
	if at < 0 {
		return lineSite{}, false
	}
	// The siblings: lines with the same separators.
	var sib []int
	var sibWords [][]lineWord
	for i, line := range l.lines {
		ws, ss := lineWords(line)
		if len(ss) != len(seps) || !sameSeps(ss, seps) {
			continue
		}
		sib = append(sib, i)
		sibWords = append(sibWords, ws)
	}
	if len(sib) < 2 {
		return lineSite{}, false
	}
	// Which words vary, and which are numbers in every sibling.
	n := len(words)
	vary := make([]bool, n)
	numeric := make([]bool, n)
	for k := range n {
		numeric[k] = true
	}
	first := l.lines[sib[0]]
	for s, i := range sib {
		line := l.lines[i]
		for k, w := range sibWords[s] {
			word := line[w.start:w.end]
			f := sibWords[0][k]
			if word != first[f.start:f.end] {
				vary[k] = true
			}
			if !looksNumeric(word) {
				numeric[k] = false
			}
		}
	}
	if !vary[wi] {
		return lineSite{}, false
	}
	// A marker word just before the picked one (`[FILE]` against `[DIR]`,
	// an upper-case tag) says what kind of line it is: the candidates are
	// the lines of the same kind.
	if k := wi - 1; k >= 0 && vary[k] && !numeric[k] {
		w := words[k]
		mark := l.lines[at][w.start:w.end]
		if strings.Contains(seps[k], "[") || strings.ToUpper(mark) == mark && strings.ToLower(mark) != mark {
			vary[k] = false
			keep, keepWords := sib[:0], sibWords[:0]
			for s, i := range sib {
				v := sibWords[s][k]
				if l.lines[i][v.start:v.end] == mark {
					keep, keepWords = append(keep, i), append(keepWords, sibWords[s])
				}
			}
			sib, sibWords = keep, keepWords
			if len(sib) < 2 {
				return lineSite{}, false
			}
			first = l.lines[sib[0]]
		}
	}
	// A name with stable ends (`app-….log`) is picked among the names of
	// the same shape.
	shapePre, shapeExt := "", ""
	if isNameToken(tok) && !numeric[wi] {
		if pre, ext := shapeOf(tok); pre != "" || ext != "" {
			fit := 0
			for s, i := range sib {
				w := sibWords[s][wi]
				v := l.lines[i][w.start:w.end]
				if strings.HasPrefix(v, pre) && strings.HasSuffix(v, ext) && len(v) > len(pre)+len(ext) {
					fit++
				}
			}
			if fit >= 2 {
				shapePre, shapeExt = pre, ext
			}
		}
	}
	// A header row: the first sibling, when a column is a number in every
	// other sibling but not in it, or a Markdown rule line follows it.
	header := -1
	if len(sib) >= 3 {
		for k := range n {
			if numeric[k] {
				continue
			}
			all := true
			for s := 1; s < len(sib); s++ {
				w := sibWords[s][k]
				all = all && looksNumeric(l.lines[sib[s]][w.start:w.end])
			}
			if all {
				header = 0
				break
			}
		}
	}
	if header == 0 {
		if sib[0] == at {
			return lineSite{}, false
		}
		for k := range n {
			numeric[k] = true
			for s := 1; s < len(sib); s++ {
				w := sibWords[s][k]
				numeric[k] = numeric[k] && looksNumeric(l.lines[sib[s]][w.start:w.end])
			}
		}
	}
	// A header line just above the first sibling (`name,stock` over
	// quoted CSV rows) names the columns when it has as many words and
	// none is a number.
	var heads []string
	table := true
	for k := range n {
		table = table && vary[k]
	}
	if header < 0 && table && sib[0] > 0 {
		hl := l.lines[sib[0]-1]
		if hw, _ := lineWords(hl); len(hw) == n {
			for _, w := range hw {
				if looksNumeric(hl[w.start:w.end]) {
					heads = nil
					break
				}
				heads = append(heads, hl[w.start:w.end])
			}
		}
	}
	// The captures' names: a header's words, else the label before the
	// picked word (`[FILE] x` → file), else c1, c2…
	names := make([]string, n)
	taken := map[string]bool{}
	name := func(k int, want string) {
		want = snake(want)
		if !ruleKey(want) || startsWithDigit(want) || taken[want] || grammar.IsReservedName(want) {
			want = "c" + strconv.Itoa(k+1)
		}
		taken[want] = true
		names[k] = want
	}
	for k := range n {
		if !vary[k] {
			continue
		}
		switch {
		case header == 0:
			w := sibWords[0][k]
			name(k, first[w.start:w.end])
		case heads != nil:
			name(k, heads[k])
		case k == wi:
			label := ""
			if k > 0 && !vary[k-1] {
				w := words[k-1]
				label = l.lines[at][w.start:w.end]
			}
			if label == "" {
				label = "value"
			}
			name(k, label)
		}
	}
	for k := range n {
		if vary[k] && names[k] == "" {
			name(k, "")
		}
	}
	// The pattern: separators and shared words literal, varying words
	// captured (numbers as numbers, so a header never matches).
	var b strings.Builder
	b.WriteString("^")
	line := l.lines[at]
	for k, w := range words {
		b.WriteString(escapeRegex(seps[k]))
		switch {
		case !vary[k]:
			b.WriteString(escapeRegex(line[w.start:w.end]))
		case k == wi && (shapePre != "" || shapeExt != ""):
			b.WriteString("(?<" + names[k] + ">" + escapeRegex(shapePre) + "[^\\s|,;\\[\\]()\"']*?" + escapeRegex(shapeExt) + ")")
		case numeric[k]:
			b.WriteString("(?<" + names[k] + ">-?\\d+(?:\\.\\d+)?)")
		case w.quoted:
			b.WriteString("(?<" + names[k] + ">[^\"]*)")
		default:
			b.WriteString("(?<" + names[k] + ">[^\\s|,;\\[\\]()\"']+)")
		}
	}
	b.WriteString(escapeRegex(seps[len(seps)-1]))
	b.WriteString("$")
	site := lineSite{pattern: b.String(), capture: names[wi], picked: -1}
	re, err := jsregex.CompileUncached(site.pattern)
	if err != nil {
		return lineSite{}, false
	}
	// The candidates are the lines the pattern matches, as the runtime
	// will read them; the picked line must be one.
	for i, line := range l.lines {
		m, err := re.FindStringMatch(line)
		if err != nil || m == nil {
			continue
		}
		obj := &jsondata.Object{}
		for k := range n {
			if !vary[k] {
				continue
			}
			g := m.GroupByName(names[k])
			if g == nil || len(g.Captures) == 0 {
				continue
			}
			obj.Members = append(obj.Members, jsondata.Member{Key: names[k], Value: g.String()})
		}
		if i == at {
			site.picked = len(site.cands)
		}
		site.cands = append(site.cands, obj)
	}
	if site.picked < 0 || len(site.cands) < 2 {
		return lineSite{}, false
	}
	if v, _ := site.cands[site.picked].Get(site.capture); v != tok {
		return lineSite{}, false
	}
	return site, true
}

func sameSeps(a, b []string) bool {
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// linesSource is `lines /<pattern>/`.
func linesSource(pattern string) ast.Source {
	return ast.Source{Kind: ast.SourceLines, Pattern: pattern}
}
