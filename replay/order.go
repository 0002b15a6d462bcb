package replay

import (
	"cmp"
	"fmt"
	"strings"
	"time"

	"github.com/reelier/reelier/internal/words"
	"github.com/reelier/reelier/lang/ast"
	"github.com/reelier/reelier/tool/jsondata"
)

// The orderings of `by … as <ordering>` (SPEC.md §5.1):
//
//   - number: JSON numbers, or strings that read as decimal numbers
//     ("12", "-3.5", "1e3"; blanks around them ignored);
//   - date: RFC 3339 / ISO 8601 strings: a date alone (midnight UTC), a
//     date-time with or without seconds, fractions and zone ("T" or one
//     space between date and time; no zone is UTC), compared as instants;
//   - version: dotted numbers with an optional v, any number of parts
//     (missing parts are 0: 1.2 == 1.2.0), a semver pre-release after "-"
//     sorting before its release (1.0.0-rc.1 < 1.0.0), build metadata
//     after "+" ignored; numbers are compared as numbers at any length;
//   - name: natural order: runs of digits compared as numbers, the rest
//     byte by byte (file2 < file10); names equal that way are ordered by
//     their bytes;
//   - text: byte by byte.
//
// A `by` without `as` is number when every key is a JSON number, text when
// every key is a string, and an error otherwise. name, text and version
// read a JSON number as it is written.

// orderKey is one element's key, read once for its ordering.
type orderKey struct {
	// v is the key as the element holds it, for messages.
	v   any
	num float64
	t   time.Time
	s   string
	ver version
}

// orderKeys reads the key of every kept element and the comparison of the
// selection's ordering. An element that lacks the key, or whose key the
// ordering cannot read, is an error naming the first one.
func (s *selector) orderKeys(kept []selElem) ([]orderKey, func(a, b *orderKey) int, error) {
	by, label := s.sel.By, "by "+keyName(s.sel.By)
	if !s.sel.HasBy {
		by, label = ast.Path{Elements: []ast.PathElement{{Name: "it", Index: -1}}}, string(s.sel.Pick)
	}
	keys := make([]orderKey, len(kept))
	for i, el := range kept {
		v, found := el.v, true
		if !ast.IsIt(by) {
			v, found = Resolve(el.v, by)
		}
		if !found {
			return nil, nil, fmt.Errorf("%s: %s has no %s — every kept element needs the key (add a where that keeps only those that have it)",
				label, s.at(el), keyName(by))
		}
		keys[i].v = v
	}
	order := s.sel.Order
	if order == ast.OrderNone {
		var err error
		if order, err = s.inferOrder(kept, keys, label, lastName(by)); err != nil {
			return nil, nil, err
		}
	}
	for i := range keys {
		if err := keys[i].read(order); err != nil {
			what := s.at(kept[i])
			if !ast.IsIt(by) {
				what += "." + keyName(by)
			}
			return nil, nil, fmt.Errorf("%s as %s: %s is %s, %v", label, order, what,
				words.Clip(a(typed(keys[i].v, true, lastName(by))), 120), err)
		}
	}
	return keys, comparer(order), nil
}

// inferOrder is the ordering of a `by` without `as`.
func (s *selector) inferOrder(kept []selElem, keys []orderKey, label, member string) (ast.Ordering, error) {
	if len(keys) == 0 {
		return ast.OrderText, nil
	}
	first := jsondata.TypeName(keys[0].v)
	for i := range keys {
		t := jsondata.TypeName(keys[i].v)
		if t != "number" && t != "string" {
			return "", fmt.Errorf("%s: %s's key is %s; only numbers and strings have an order — write as number|date|version|name|text, or pick another key",
				label, s.at(kept[i]), words.Clip(a(typed(keys[i].v, true, member)), 120))
		}
		if t != first {
			return "", fmt.Errorf("%s: the keys are of two types (%s's is a %s, %s's a %s) — write as number|date|version|name|text to say how they compare",
				label, s.at(kept[0]), first, s.at(kept[i]), t)
		}
	}
	if first == "number" {
		return ast.OrderNumber, nil
	}
	return ast.OrderText, nil
}

// read parses the key for an ordering.
func (k *orderKey) read(order ast.Ordering) error {
	text, isString := k.v.(string)
	num, isNumber := k.v.(jsondata.Number)
	switch order {
	case ast.OrderNumber:
		switch {
		case isNumber:
			k.num = num.Float()
		case isString && jsondata.IsDecimal(strings.TrimSpace(text)):
			k.num = jsondata.Number(strings.TrimSpace(text)).Float()
		default:
			return fmt.Errorf("not a number")
		}
	case ast.OrderDate:
		if !isString {
			return fmt.Errorf("not a date string")
		}
		t, ok := parseDate(text)
		if !ok {
			return fmt.Errorf("not an RFC 3339 / ISO 8601 date")
		}
		k.t = t
	case ast.OrderVersion:
		if isNumber {
			text, isString = string(num), true
		}
		v, ok := parseVersion(text)
		if !isString || !ok {
			return fmt.Errorf("not a version (dotted numbers, an optional v and -pre-release)")
		}
		k.ver = v
	case ast.OrderName, ast.OrderText:
		switch {
		case isString:
			k.s = text
		case isNumber:
			k.s = string(num)
		default:
			return fmt.Errorf("not a string")
		}
	default:
		return fmt.Errorf("unknown ordering %q", order)
	}
	return nil
}

// comparer is the comparison of an ordering's keys.
func comparer(order ast.Ordering) func(a, b *orderKey) int {
	return func(a, b *orderKey) int { return compareKeys(a, b, order) }
}

// compareKeys orders two keys read for order.
func compareKeys(a, b *orderKey, order ast.Ordering) int {
	switch order {
	case ast.OrderNumber:
		return cmp.Compare(a.num, b.num)
	case ast.OrderDate:
		return a.t.Compare(b.t)
	case ast.OrderVersion:
		return compareVersions(a.ver, b.ver)
	case ast.OrderName:
		return compareNatural(a.s, b.s)
	}
	return strings.Compare(a.s, b.s)
}

// dateLayouts are the date and date-time forms `as date` reads. A layout
// without a zone reads as UTC.
var dateLayouts = []string{
	time.RFC3339Nano,
	"2006-01-02T15:04:05.999999999Z0700",
	"2006-01-02T15:04:05.999999999",
	"2006-01-02T15:04Z07:00",
	"2006-01-02T15:04Z0700",
	"2006-01-02T15:04",
	"2006-01-02 15:04:05.999999999Z07:00",
	"2006-01-02 15:04:05.999999999Z0700",
	"2006-01-02 15:04:05.999999999",
	"2006-01-02 15:04Z07:00",
	"2006-01-02 15:04",
	time.DateOnly,
}

// parseDate reads an RFC 3339 / ISO 8601 date or date-time.
func parseDate(s string) (time.Time, bool) {
	s = strings.TrimSpace(s)
	if len(s) < len(time.DateOnly) || len(s) > 64 {
		return time.Time{}, false
	}
	for _, layout := range dateLayouts {
		if t, err := time.Parse(layout, s); err == nil {
			return t, true
		}
	}
	// A lower-case t or z, which RFC 3339 allows.
	if u := strings.ToUpper(s); u != s {
		return parseDate(u)
	}
	return time.Time{}, false
}

// version is a parsed dotted version.
type version struct {
	release []string // digit runs, leading zeros dropped
	pre     []string // pre-release identifiers; nil for a release
}

// parseVersion reads "v1.2.3-rc.1+build".
func parseVersion(s string) (version, bool) {
	s = strings.TrimSpace(s)
	s = strings.TrimPrefix(strings.TrimPrefix(s, "v"), "V")
	if i := strings.IndexByte(s, '+'); i >= 0 {
		s = s[:i]
	}
	var v version
	rel := s
	if i := strings.IndexByte(s, '-'); i >= 0 {
		rel = s[:i]
		pre := s[i+1:]
		if pre == "" {
			return v, false
		}
		v.pre = strings.Split(pre, ".")
		for _, p := range v.pre {
			if p == "" {
				return v, false
			}
		}
	}
	if rel == "" {
		return v, false
	}
	v.release = make([]string, 0, strings.Count(rel, ".")+1)
	for rest := rel; ; {
		part, after, more := strings.Cut(rest, ".")
		if !allDigits(part) {
			return v, false
		}
		v.release = append(v.release, trimZeros(part))
		if !more {
			return v, true
		}
		rest = after
	}
}

// trimZeros drops a digit run's leading zeros ("007" → "7", "000" → "0").
func trimZeros(d string) string {
	t := strings.TrimLeft(d, "0")
	if t == "" {
		return "0"
	}
	return t
}

// compareDigits compares two digit runs without leading zeros as numbers.
func compareDigits(a, b string) int {
	if c := cmp.Compare(len(a), len(b)); c != 0 {
		return c
	}
	return strings.Compare(a, b)
}

// compareVersions orders versions: release parts as numbers (a missing
// part is 0), then a pre-release before its release, pre-releases by
// semver's rules.
func compareVersions(a, b version) int {
	for i := 0; i < max(len(a.release), len(b.release)); i++ {
		x, y := "0", "0"
		if i < len(a.release) {
			x = a.release[i]
		}
		if i < len(b.release) {
			y = b.release[i]
		}
		if c := compareDigits(x, y); c != 0 {
			return c
		}
	}
	switch {
	case a.pre == nil && b.pre == nil:
		return 0
	case a.pre == nil:
		return 1
	case b.pre == nil:
		return -1
	}
	for i := 0; i < min(len(a.pre), len(b.pre)); i++ {
		x, y := a.pre[i], b.pre[i]
		xn, yn := allDigits(x), allDigits(y)
		var c int
		switch {
		case xn && yn:
			c = compareDigits(trimZeros(x), trimZeros(y))
		case xn:
			c = -1 // numeric identifiers sort before alphanumeric ones
		case yn:
			c = 1
		default:
			c = strings.Compare(x, y)
		}
		if c != 0 {
			return c
		}
	}
	return cmp.Compare(len(a.pre), len(b.pre))
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

// compareNatural orders names naturally: runs of ASCII digits compare as
// numbers, everything else byte by byte; names equal that way ("a01",
// "a1") are ordered by their bytes.
func compareNatural(a, b string) int {
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		ca, cb := a[i], b[j]
		if isDigit(ca) && isDigit(cb) {
			si, sj := i, j
			for i < len(a) && isDigit(a[i]) {
				i++
			}
			for j < len(b) && isDigit(b[j]) {
				j++
			}
			if c := compareDigits(trimZeros(a[si:i]), trimZeros(b[sj:j])); c != 0 {
				return c
			}
			continue
		}
		if ca != cb {
			return cmp.Compare(ca, cb)
		}
		i++
		j++
	}
	if c := cmp.Compare(len(a)-i, len(b)-j); c != 0 {
		return c
	}
	return strings.Compare(a, b)
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// String is the version as the ordering read it.
func (v version) String() string {
	s := strings.Join(v.release, ".")
	if v.pre != nil {
		s += "-" + strings.Join(v.pre, ".")
	}
	return s
}

// OrderKey is a value read once for an ordering of SPEC.md §5.1, exactly
// as a selection's `by` reads it. The compiler orders recorded candidates
// with it, so a rule it writes orders them as the replay will.
type OrderKey struct{ k orderKey }

// ReadOrderKey reads v for ord; false when the ordering cannot read it
// (a date ordering and a string that is no date, say).
func ReadOrderKey(v any, ord ast.Ordering) (OrderKey, bool) {
	k := orderKey{v: v}
	if k.read(ord) != nil {
		return OrderKey{}, false
	}
	return OrderKey{k}, true
}

// CompareOrderKeys orders two keys read for the same ordering.
func CompareOrderKeys(a, b OrderKey, ord ast.Ordering) int {
	return compareKeys(&a.k, &b.k, ord)
}

// CompareNatural compares names as `as name` does (file2 < file10).
func CompareNatural(a, b string) int { return compareNatural(a, b) }
