package redact

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

// oldValues is the search values replaced: a JSON decode tried at every
// '{', '[' and '"', a value found stepped over whole. It is quadratic on
// nested text, and the reference values must agree with.
func oldValues(s string) []span {
	var out []span
	for i := 0; i < len(s); {
		if c := s[i]; c != '{' && c != '[' && c != '"' {
			i++
			continue
		}
		dec := json.NewDecoder(strings.NewReader(s[i:]))
		var v json.RawMessage
		if dec.Decode(&v) != nil {
			i++
			continue
		}
		n := int(dec.InputOffset())
		out = append(out, span{i, i + n})
		i += n
	}
	return out
}

func TestValues(t *testing.T) {
	for _, s := range []string{
		`got {"a":1} and [1,2,"x"] and "q"`,
		`[ {"a":1} 2 ]`,
		`{"a" {"password":"x"}}`,
		`a { b [ c "d`,
		`"x {"a":1} `,
		"he said \"wow\n {\"password\": \"hunter2\"}",
		`[[[[{"k":"v"}`,
		`{"a":[1,2,{"b":null,"c":true,"d":-1.5e+3}],"e":"\u00e9\n"}`,
		`{"a":01}`, `[1.]`, `[1e]`, `[tru]`, `["\x"]`, `{"a":"b",}`, `[1,]`, `{,}`, `{}`, `[]`, `""`,
	} {
		want := oldValues(s)
		got := values(newWork(context.Background(), len(s)), s)
		if !slices.Equal(got, want) {
			t.Errorf("values(%q)\n got %v\nwant %v", s, got, want)
		}
	}
}

// FuzzValues: the linear search finds exactly the values the decode at
// every candidate found, and Text never panics, on any text.
func FuzzValues(f *testing.F) {
	for _, s := range []string{
		`got {"password":"hunter2-x"} and [1,2]`, `[[[[{"k":"v"}`, `{"a" {"b":"c"}}`,
		"\"x\n{\"token\":\"abc\"}", `{"a":[1,2,{"b":null,"c":true,"d":-1.5e+3}]}`, `"\u00e9" [1e5] {"a":"b",}`,
	} {
		f.Add(s)
	}
	r := &Redactor{}
	f.Fuzz(func(t *testing.T, s string) {
		// The reference is quadratic: it is held to short texts.
		if len(s) > 1024 {
			return
		}
		want := oldValues(s)
		got := values(newWork(context.Background(), len(s)), s)
		if !slices.Equal(got, want) {
			t.Fatalf("values(%q)\n got %v\nwant %v", s, got, want)
		}
		Text(r, "", s)
	})
}
