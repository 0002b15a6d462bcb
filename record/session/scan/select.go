package scan

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// ParseSelection reads an answer to the selection prompt for a list of n
// sessions: comma-separated numbers and ranges ("1,3", "2-4"), "all", or
// nothing for none. It returns the chosen indexes (from 0), ascending and
// without repeats.
func ParseSelection(answer string, n int) ([]int, error) {
	answer = strings.TrimSpace(answer)
	switch {
	case answer == "":
		return nil, nil
	case strings.EqualFold(answer, "all"):
		all := make([]int, n)
		for i := range all {
			all[i] = i
		}
		return all, nil
	}
	chosen := map[int]bool{}
	for _, part := range strings.Split(answer, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		lo, hi, err := selectionRange(part, n)
		if err != nil {
			return nil, err
		}
		for i := lo; i <= hi; i++ {
			chosen[i-1] = true
		}
	}
	out := make([]int, 0, len(chosen))
	for i := range chosen {
		out = append(out, i)
	}
	sort.Ints(out)
	return out, nil
}

// selectionRange reads "k" or "a-b" as an inclusive range of numbers from 1.
func selectionRange(part string, n int) (lo, hi int, err error) {
	a, b, isRange := strings.Cut(part, "-")
	lo, err = selectionNumber(a, part, n)
	if err != nil {
		return 0, 0, err
	}
	hi = lo
	if isRange {
		if hi, err = selectionNumber(b, part, n); err != nil {
			return 0, 0, err
		}
		if hi < lo {
			return 0, 0, fmt.Errorf("%q runs backwards; write the smaller number first", part)
		}
	}
	return lo, hi, nil
}

func selectionNumber(s, part string, n int) (int, error) {
	k, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil {
		return 0, fmt.Errorf("%q is not a number, a range such as 2-4, or \"all\"", part)
	}
	if k < 1 || k > n {
		return 0, fmt.Errorf("%d is not in the list (1–%d)", k, n)
	}
	return k, nil
}
