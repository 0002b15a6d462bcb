package jsondata

import (
	"errors"
	"math"
	"strconv"
)

// Object is a JSON object with its members in document order. A key written
// twice keeps both members; lookups see the later one, as JSON.parse does.
type Object struct {
	Members []Member
}

// Member is one key/value pair of an Object.
type Member struct {
	Key   string
	Value any
}

// Get returns the value of the last member named key.
func (o *Object) Get(key string) (any, bool) {
	for i := len(o.Members) - 1; i >= 0; i-- {
		if o.Members[i].Key == key {
			return o.Members[i].Value, true
		}
	}
	return nil, false
}

// Number is a JSON number kept as its text.
type Number string

// Float returns the number as a float64, the value a JavaScript number would
// hold. Magnitudes beyond float64 become ±Inf, as in JavaScript.
func (n Number) Float() float64 {
	f, err := strconv.ParseFloat(string(n), 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return math.NaN()
	}
	return f
}

// TypeName returns the JavaScript-flavoured name of v's JSON type: "null",
// "boolean", "number", "string", "array" or "object".
func TypeName(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case Number:
		return "number"
	case string:
		return "string"
	case []any:
		return "array"
	case *Object:
		return "object"
	}
	return "unknown"
}

// StrictEqual reports whether a and b are equal under JavaScript's ===
// applied to parsed JSON: scalars of the same type compare by value (numbers
// numerically, so 1.50 equals 1.5), while arrays and objects are never equal
// to anything, since === compares them by identity.
func StrictEqual(a, b any) bool {
	switch a := a.(type) {
	case nil:
		return b == nil
	case bool:
		bb, ok := b.(bool)
		return ok && a == bb
	case Number:
		bn, ok := b.(Number)
		return ok && a.Float() == bn.Float()
	case string:
		bs, ok := b.(string)
		return ok && a == bs
	}
	return false
}
