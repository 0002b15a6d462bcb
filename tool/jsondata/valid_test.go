package jsondata

import (
	"encoding/json"
	"strings"
	"testing"
)

var validCases = []string{
	`{}`, `[]`, `""`, `0`, `-0`, `01`, `1.`, `1.5e+3`, `1E9`, `-`, `.5`, `true`, `tru`, `null`, `nul`, `false`,
	` {"a" : [1, 2.5, "x\"y\\z\/\b\f\n\r\t\u00e9", true, false, null, {}, []] } `, `{"a":1,}`, `[1,]`, `{"a"}`, `{,}`,
	`"\x"`, `"\u12"`, `"\u12g4"`, "\"tab\there\"", "\"\xff\xfe\"", `{"a":1}x`, `{"a":1} `, `[[[]]]`, `"`, `{"a":`, `[1 2]`,
	strings.Repeat("[", 10000) + strings.Repeat("]", 10000), strings.Repeat("[", 10001) + strings.Repeat("]", 10001),
	strings.Repeat(`{"a":`, 10000) + "1" + strings.Repeat("}", 10000), strings.Repeat(`{"a":`, 10001) + "1" + strings.Repeat("}", 10001),
}

// TestValid holds Valid to json.Valid.
func TestValid(t *testing.T) {
	for _, s := range validCases {
		if got, want := Valid([]byte(s)), json.Valid([]byte(s)); got != want {
			t.Errorf("Valid(%.60q) = %v, json.Valid %v", s, got, want)
		}
	}
}

func FuzzValid(f *testing.F) {
	for _, s := range validCases {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if got, want := Valid(b), json.Valid(b); got != want {
			t.Fatalf("Valid(%q) = %v, json.Valid %v", b, got, want)
		}
	})
}
