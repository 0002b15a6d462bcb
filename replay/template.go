package replay

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/reelier/reelier/lang/ast"
	"github.com/reelier/reelier/tool/jsondata"
)

// maxDateOffset is the largest day offset {{today±Nd}} accepts.
const maxDateOffset = 365

// filler fills an action's template holes.
//
// Only string leaves are filled; object keys, numbers, booleans and null
// are copied as written. A hole takes the bound value literally: a string
// is inserted as is (a "{{x}}" inside it is not expanded again). A leaf
// that is exactly one variable hole becomes the bound value itself, with
// its JSON type (a bound 42 fills "{{n}}" as 42); inside a longer string
// a non-string value is inserted as its compact JSON text.
type filler struct {
	env *scope
	// today is the run's UTC date at midnight, from its one clock reading.
	today time.Time
	// scratch is where a string leaf with holes is filled before it is
	// escaped into the output; reused from leaf to leaf.
	scratch []byte
}

// pending marks, in a dry run, a variable that an earlier step binds at run
// time; its holes are left as written.
type pending struct{}

// dayOf returns the UTC calendar date of t, at midnight.
func dayOf(t time.Time) time.Time {
	y, m, d := t.UTC().Date()
	return time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
}

// fill appends the filled JSON text of v to b.
func (f *filler) fill(b []byte, v ast.Value) ([]byte, error) {
	var err error
	switch v := v.(type) {
	case *ast.Object:
		b = append(b, '{')
		for i, m := range v.Members {
			if i > 0 {
				b = append(b, ',')
			}
			b = jsondata.AppendString(b, m.Key)
			b = append(b, ':')
			if b, err = f.fill(b, m.Value); err != nil {
				return b, err
			}
		}
		return append(b, '}'), nil
	case *ast.Array:
		b = append(b, '[')
		for i, e := range v.Elements {
			if i > 0 {
				b = append(b, ',')
			}
			if b, err = f.fill(b, e); err != nil {
				return b, err
			}
		}
		return append(b, ']'), nil
	case *ast.String:
		if val, ok := f.wholeValue(v); ok {
			return jsondata.Append(b, val), nil
		}
		if len(v.Holes) == 0 {
			return jsondata.AppendString(b, v.Value), nil
		}
		filled, err := f.appendFilled(f.scratch[:0], v)
		f.scratch = filled[:0]
		if err != nil {
			return b, err
		}
		return jsondata.AppendStringBytes(b, filled), nil
	case *ast.Number:
		return append(b, v.Raw...), nil
	case *ast.Bool:
		if v.Value {
			return append(b, "true"...), nil
		}
		return append(b, "false"...), nil
	case *ast.Null:
		return append(b, "null"...), nil
	}
	return b, fmt.Errorf("cannot fill a %T value", v)
}

// wholeValue returns the bound value of a leaf that is exactly one
// variable hole, when that value is not a string (a string takes the
// ordinary path, which gives the same result).
func (f *filler) wholeValue(s *ast.String) (any, bool) {
	if len(s.Holes) != 1 {
		return nil, false
	}
	h := s.Holes[0]
	if h.Kind != ast.HoleVar || h.Start != 0 || h.End != len(s.Value) {
		return nil, false
	}
	v, ok := f.env.lookup(h.Name)
	switch v.(type) {
	case string, pending:
		return nil, false
	}
	return v, ok
}

// appendFilled appends the string leaf with its holes replaced (unquoted)
// to out.
func (f *filler) appendFilled(out []byte, s *ast.String) ([]byte, error) {
	last := 0
	for _, h := range s.Holes {
		if h.Start < last || h.End < h.Start+4 || h.End > len(s.Value) {
			return out, errors.New("template hole offsets do not fit their string")
		}
		out = append(out, s.Value[last:h.Start]...)
		var err error
		if out, err = f.hole(out, h, s.Value[h.Start:h.End]); err != nil {
			return out, err
		}
		last = h.End
	}
	return append(out, s.Value[last:]...), nil
}

// hole appends the value of one hole; written is the hole's text.
func (f *filler) hole(b []byte, h *ast.Hole, written string) ([]byte, error) {
	switch h.Kind {
	case ast.HoleToday:
		return f.today.AppendFormat(b, time.DateOnly), nil
	case ast.HoleMalformedDate:
		return b, fmt.Errorf("Malformed computed date var {{%s}} — the computed dates are {{today}}, {{today-Nd}} and {{today+Nd}}, with N from 1 to %d", h.Written, maxDateOffset)
	case ast.HoleTodayOffset:
		n := h.Days
		if n < 0 {
			n = -n
		}
		if n < 1 || n > maxDateOffset {
			inner := strings.TrimSpace(written[2 : len(written)-2])
			return b, fmt.Errorf("Computed date var {{%s}} has an offset of %d days — only 1-%d is supported", inner, n, maxDateOffset)
		}
		return f.today.AddDate(0, 0, h.Days).AppendFormat(b, time.DateOnly), nil
	}
	v, ok := f.env.lookup(h.Name)
	switch v := v.(type) {
	case string:
		return append(b, v...), nil
	case pending:
		return append(b, written...), nil
	default:
		if !ok {
			return b, fmt.Errorf("Unbound template variable {{%s}}", h.Name)
		}
		return jsondata.Append(b, v), nil
	}
}
