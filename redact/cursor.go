package redact

import (
	"sort"
	"strings"
)

// A cursor answers the forward and backward searches the detectors make
// from their trigger bytes — the next stop byte, the end or start of the
// line, the next "-----END " — for one scan of one text. Each detector
// searching from its own trigger to the end of a value cost time
// quadratic in the text when triggers repeat without a stop between them
// (issue #28: `password=` a hundred thousand times). The cursor
// remembers each answer: a search from a position before the answer
// found last reuses it (nothing between can hold the byte, or the answer
// would have been nearer), so as the scan moves right each byte is
// searched once per kind of search.
type cursor struct {
	s     string
	found []cached
	lines []int // positions of '\n' and '\r', computed on first use
	lined bool
}

// cached is one remembered search: the first match of what at or after
// from is at (len(s) when none).
type cached struct {
	what     string
	any      bool // what is a set of bytes, not a substring
	from, at int
}

// search returns the first position at or after from where what (a set
// of bytes when any, else a substring) occurs, or len(s).
func (c *cursor) search(from int, what string, any bool) int {
	for k := range c.found {
		f := &c.found[k]
		if f.what != what || f.any != any {
			continue
		}
		if f.from <= from && from <= f.at {
			return f.at
		}
		f.from, f.at = from, c.scan(from, what, any)
		return f.at
	}
	at := c.scan(from, what, any)
	c.found = append(c.found, cached{what: what, any: any, from: from, at: at})
	return at
}

func (c *cursor) scan(from int, what string, any bool) int {
	if from >= len(c.s) {
		return len(c.s)
	}
	var k int
	if any {
		k = strings.IndexAny(c.s[from:], what)
	} else {
		k = strings.Index(c.s[from:], what)
	}
	if k < 0 {
		return len(c.s)
	}
	return from + k
}

// indexAny returns the first position at or after from holding a byte of
// stops, or len(s).
func (c *cursor) indexAny(from int, stops string) int { return c.search(from, stops, true) }

// index returns the first position at or after from where sub starts, or
// -1.
func (c *cursor) index(from int, sub string) int {
	if at := c.search(from, sub, false); at < len(c.s) {
		return at
	}
	return -1
}

// lineEnd returns the position of the first '\r' or '\n' at or after i, or
// len(s).
func (c *cursor) lineEnd(i int) int { return c.indexAny(i, "\r\n") }

// lineStart returns the start of the line holding position i: just after
// the last '\r' or '\n' before i, or 0.
func (c *cursor) lineStart(i int) int {
	if !c.lined {
		c.lined = true
		for k := 0; k < len(c.s); k++ {
			if c.s[k] == '\n' || c.s[k] == '\r' {
				c.lines = append(c.lines, k)
			}
		}
	}
	n := sort.SearchInts(c.lines, i) // breaks before i: lines[:n]
	if n == 0 {
		return 0
	}
	return c.lines[n-1] + 1
}
