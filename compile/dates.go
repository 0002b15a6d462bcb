package compile

import (
	"fmt"
	"strconv"
	"time"
)

// maxComputedOffset is the largest N of {{today±Nd}} a replay accepts.
const maxComputedOffset = 365

// literalLint is what the date, UUID and Unix-timestamp checks say about
// one literal. The words depend only on the literal and the recording
// date, so the same literal in several steps can share one question.
type literalLint struct {
	kind Kind
	// rest finishes a sentence whose subject is the quoted literal; it
	// starts with a verb ("is 7 days before…").
	rest string
}

// dateShape splits a string shaped like an ISO date, `YYYY-MM-DD` with an
// optional `T…` suffix, into its numbers and suffix.
func dateShape(s string) (y, m, d int, suffix string, ok bool) {
	if len(s) < 10 || s[4] != '-' || s[7] != '-' || len(s) > 10 && s[10] != 'T' {
		return 0, 0, 0, "", false
	}
	for _, i := range []int{0, 1, 2, 3, 5, 6, 8, 9} {
		if s[i] < '0' || s[i] > '9' {
			return 0, 0, 0, "", false
		}
	}
	y, _ = strconv.Atoi(s[0:4])
	m, _ = strconv.Atoi(s[5:7])
	d, _ = strconv.Atoi(s[8:10])
	return y, m, d, s[10:], true
}

// dateLint checks a string literal against the recording date (UTC
// midnight). It says nothing about strings that are not date-shaped.
func dateLint(s string, recorded time.Time) (literalLint, bool) {
	y, m, d, suffix, ok := dateShape(s)
	if !ok {
		return literalLint{}, false
	}
	date := time.Date(y, time.Month(m), d, 0, 0, 0, 0, time.UTC)
	if m < 1 || m > 12 {
		return literalLint{KindImpossibleDate, fmt.Sprintf("has the shape of a date but is not a real calendar date: there is no month %d; replay sends it unchanged — is it a typo?", m)}, true
	}
	if date.Day() != d {
		return literalLint{KindImpossibleDate, fmt.Sprintf("has the shape of a date but is not a real calendar date: %04d-%02d has no day %d; replay sends it unchanged — is it a typo?", y, m, d)}, true
	}
	days := int(date.Sub(recorded).Hours() / 24)
	rec := recorded.Format(time.DateOnly)
	var rest string
	switch {
	case days == 0:
		rest = fmt.Sprintf("is the recording date (%s); if it means the day the skill runs, write %q instead; if the date is fixed, keep it.", rec, "{{today}}"+suffix)
	case abs(days) <= maxComputedOffset:
		sign, dir := "+", "after"
		if days < 0 {
			sign, dir = "-", "before"
		}
		hole := fmt.Sprintf("{{today%s%dd}}", sign, abs(days))
		rest = fmt.Sprintf("is %s %s the recording date (%s); if it means %s %s the day the skill runs, write %q instead; if the date is fixed, keep it.",
			dayCount(days), dir, rec, dayCount(days), dir, hole+suffix)
	default:
		dir := "after"
		if days < 0 {
			dir = "before"
		}
		rest = fmt.Sprintf("is %s %s the recording date (%s); computed dates reach at most %d days either way, so no {{today±Nd}} form fits — keep it fixed, or make it an input.",
			dayCount(days), dir, rec, maxComputedOffset)
	}
	if note := utcDayNote(s, date); note != "" {
		rest += " " + note
	}
	return literalLint{KindDateLiteral, rest}, true
}

// utcDayNote explains when a datetime's explicit offset puts it on another
// UTC day than the date written, since computed dates are UTC dates.
func utcDayNote(s string, written time.Time) string {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return ""
	}
	_, off := t.Zone()
	utcDay := t.UTC().Format(time.DateOnly)
	if off == 0 || utcDay == written.Format(time.DateOnly) {
		return ""
	}
	return fmt.Sprintf("Note: with its offset %s this instant falls on %s in UTC, while {{today}} and its offsets are UTC dates; the offset above counts from the date as written.", t.Format("-07:00"), utcDay)
}

func dayCount(n int) string {
	n = abs(n)
	if n == 1 {
		return "1 day"
	}
	return strconv.Itoa(n) + " days"
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// isUUID reports whether s is a UUID in its usual 8-4-4-4-12 hex form.
func isUUID(s string) bool {
	if len(s) != 36 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch i {
		case 8, 13, 18, 23:
			if c != '-' {
				return false
			}
		default:
			if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
				return false
			}
		}
	}
	return true
}

// uuidLint is the question body for a UUID literal.
func uuidLint() literalLint {
	return literalLint{KindUUIDLiteral, "is a UUID that no earlier step returned; replay sends this same id every run — if it should be fresh or looked up, bind it from an earlier step or make it an input."}
}

// unixTo ends the window of instants taken for Unix timestamps, which
// keeps most ten-digit phone numbers and counters out; ten digits without
// a leading zero start in 2001 anyway.
var unixTo = time.Date(2100, 1, 1, 0, 0, 0, 0, time.UTC)

// unixLint checks text made only of digits (a number, or a string) for a
// Unix timestamp in seconds (10 digits) or milliseconds (13 digits), with
// no leading zero, before 2100.
func unixLint(digits string, recorded time.Time, haveRecorded bool) (literalLint, bool) {
	if len(digits) != 10 && len(digits) != 13 || !isInteger([]byte(digits)) || digits[0] == '-' || digits[0] == '0' {
		return literalLint{}, false
	}
	n, err := strconv.ParseInt(digits, 10, 64)
	if err != nil {
		return literalLint{}, false
	}
	unit := "seconds"
	t := time.Unix(n, 0).UTC()
	if len(digits) == 13 {
		unit = "milliseconds"
		t = time.UnixMilli(n).UTC()
	}
	if !t.Before(unixTo) {
		return literalLint{}, false
	}
	when := t.Format(time.RFC3339Nano)
	if haveRecorded {
		days := int(dayOf(t).Sub(recorded).Hours() / 24)
		switch {
		case days < 0:
			when += fmt.Sprintf(", %s before the recording date", dayCount(days))
		case days > 0:
			when += fmt.Sprintf(", %s after the recording date", dayCount(days))
		default:
			when += ", the recording date"
		}
	}
	return literalLint{KindUnixTimestamp, fmt.Sprintf("looks like a Unix timestamp in %s (%s); replay sends this same instant every run — computed dates cover whole days only, so if it should move with the run, make it an input.", unit, when)}, true
}

// dayOf returns the UTC calendar day of t, at midnight.
func dayOf(t time.Time) time.Time {
	y, m, d := t.UTC().Date()
	return time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
}
