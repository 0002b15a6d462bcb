package jsondata

import (
	"bytes"
	"encoding/json"
	"math"
	"reflect"
	"testing"
)

func stdDecode(t *testing.T, data []byte) any {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("encoding/json rejects %q: %v", data, err)
	}
	return v
}

func TestParseRoundTrip(t *testing.T) {
	tests := []struct{ in, want string }{
		{`{"b":1,"a":[true,false,null],"c":{"x":"y"}}`, `{"b":1,"a":[true,false,null],"c":{"x":"y"}}`},
		{" \n 1.50 \t", `1.50`},
		{`-0`, `-0`},
		{`1e3`, `1e3`},
		{`"a\u0000b\"\\\n\u2028<&>"`, "\"a\\u0000b\\\"\\\\\\n\u2028<&>\""},
		{`{"k":1,"k":2}`, `{"k":1,"k":2}`},
		{`[]`, `[]`},
		{`{}`, `{}`},
		{`"\ud83d\ude00"`, `"😀"`},
	}
	for _, tt := range tests {
		v, err := Parse(tt.in)
		if err != nil {
			t.Errorf("Parse(%q): %v", tt.in, err)
			continue
		}
		if got := String(v); got != tt.want {
			t.Errorf("String(Parse(%q)) = %s, want %s", tt.in, got, tt.want)
		}
	}
}

func TestParseRejects(t *testing.T) {
	for _, in := range []string{``, `   `, `{`, `[1,]`, `{"a":}`, `1 2`, `{"a":1}x`, `nul`, `'a'`, `01`, `NaN`, `<html>`} {
		if v, err := Parse(in); err == nil {
			t.Errorf("Parse(%q) = %v, want an error", in, String(v))
		}
	}
}

func TestObjectGetLastWins(t *testing.T) {
	v, err := Parse(`{"k":1,"j":true,"k":2}`)
	if err != nil {
		t.Fatal(err)
	}
	got, ok := v.(*Object).Get("k")
	if !ok || got != Number("2") {
		t.Errorf("Get(k) = %v, %v; want 2, true", got, ok)
	}
	if _, ok := v.(*Object).Get("length"); ok {
		t.Error("Get(length) found a member that is not there")
	}
}

func TestStrictEqual(t *testing.T) {
	tests := []struct {
		a, b any
		want bool
	}{
		{Number("1.50"), Number("1.5"), true},
		{Number("1e3"), Number("1000"), true},
		{Number("-0"), Number("0"), true},
		{Number("1"), "1", false},
		{"a", "a", true},
		{"a", "b", false},
		{true, true, true},
		{true, false, false},
		{nil, nil, true},
		{nil, false, false},
		{[]any{}, []any{}, false},
		{&Object{}, &Object{}, false},
		{Number("1e400"), Number("2e400"), true}, // both Infinity, as in JavaScript
	}
	for _, tt := range tests {
		if got := StrictEqual(tt.a, tt.b); got != tt.want {
			t.Errorf("StrictEqual(%s, %s) = %v, want %v", String(tt.a), String(tt.b), got, tt.want)
		}
	}
}

func TestNumberFloat(t *testing.T) {
	if f := Number("1e-400").Float(); f != 0 {
		t.Errorf("underflow = %v, want 0", f)
	}
	if f := Number("-1e400").Float(); !math.IsInf(f, -1) {
		t.Errorf("overflow = %v, want -Inf", f)
	}
	if f := Number("x").Float(); !math.IsNaN(f) {
		t.Errorf("garbage = %v, want NaN", f)
	}
}

func TestTypeName(t *testing.T) {
	for v, want := range map[string]string{`null`: "null", `true`: "boolean", `1`: "number", `"s"`: "string", `[]`: "array", `{}`: "object"} {
		parsed, err := Parse(v)
		if err != nil {
			t.Fatal(err)
		}
		if got := TypeName(parsed); got != want {
			t.Errorf("TypeName(%s) = %s, want %s", v, got, want)
		}
	}
	if got := TypeName(struct{}{}); got != "unknown" {
		t.Errorf("TypeName(struct{}) = %s", got)
	}
	if got := String(struct{}{}); got != "null" {
		t.Errorf("String(struct{}) = %s", got)
	}
}

func TestAppendStringInvalidUTF8(t *testing.T) {
	got := string(AppendString(nil, "a\xffb"))
	if !json.Valid([]byte(got)) || got != "\"a\uFFFDb\"" {
		t.Errorf("AppendString(invalid UTF-8) = %q", got)
	}
}

// FuzzParse checks that Parse agrees with encoding/json on what is valid
// JSON, never panics, and prints valid JSON back.
func FuzzParse(f *testing.F) {
	for _, s := range []string{`{"a":[1,2,{"b":null}]}`, `"x"`, `1.5e3`, `[`, `{"a":1}{}`, `"\ud800"`, `"\ud800\u0041"`, `"\ud83d\ude00é\/"`, "\"\xff\"", `{"k":1,"k":[]}`, `-0.0E+1`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		v, err := Parse(string(data))
		if (err == nil) != json.Valid(data) {
			t.Fatalf("Parse(%q) error %v, json.Valid %v", data, err, json.Valid(data))
		}
		if err != nil {
			return
		}
		out := Append(nil, v)
		if !json.Valid(out) {
			t.Fatalf("String(Parse(%q)) = %q is not valid JSON", data, out)
		}
		// Decoded by encoding/json, the original and the reprint agree.
		if want, got := stdDecode(t, data), stdDecode(t, out); !reflect.DeepEqual(want, got) {
			t.Fatalf("Parse(%q) reprinted as %q: encoding/json sees %#v, want %#v", data, out, got, want)
		}
	})
}
