package lint

import "strings"

// suggest returns the candidate closest to name by edit distance
// (ignoring case), or "" when none is within the allowed distance: one
// edit for names under six bytes, two for longer ones. Ties go to the
// lexically first candidate, so the answer does not depend on map order.
func suggest(name string, cands []string) string {
	limit := 1
	if len(name) >= 6 {
		limit = 2
	}
	best, bestD := "", limit+1
	lower := strings.ToLower(name)
	for _, c := range cands {
		if c == name {
			continue
		}
		d := editDistance(lower, strings.ToLower(c), bestD+1)
		if d < bestD || d == bestD && best != "" && c < best {
			best, bestD = c, d
		}
	}
	if bestD > limit {
		return ""
	}
	return best
}

// editDistance returns the optimal-string-alignment distance between a
// and b (insertions, deletions, substitutions and swaps of two adjacent
// bytes each cost one), or any value of at least max once it is clear the
// distance reaches max.
func editDistance(a, b string, max int) int {
	if d := len(a) - len(b); d >= max || -d >= max {
		return max
	}
	rows := [3][]int{make([]int, len(b)+1), make([]int, len(b)+1), make([]int, len(b)+1)}
	for j := range rows[0] {
		rows[0][j] = j // row r of the table lives in rows[r%3]
	}
	for i := 1; i <= len(a); i++ {
		pp, prev, cur := rows[(i+1)%3], rows[(i+2)%3], rows[i%3]
		cur[0] = i
		rowMin := i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], pp[j-2]+1)
			}
			rowMin = min(rowMin, cur[j])
		}
		if rowMin >= max {
			return max
		}
	}
	return rows[len(a)%3][len(b)]
}
