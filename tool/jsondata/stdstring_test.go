package jsondata

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestStdString(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"", `""`},
		{"plain", `"plain"`},
		{`a "q" \ b`, `"a \"q\" \\ b"`},
		{"<a & b>", `"<a & b>"`},
		{"line\nnext\ttab", `"line\nnext\ttab"`},
		{"\x01", `"\u0001"`},
		{"\u2028", `"\u2028"`},
		{"bad \xff", `"bad \ufffd"`},
		{"café", `"café"`},
	} {
		if got := StdString(tc.in); got != tc.want {
			t.Errorf("StdString(%q) = %s, want %s", tc.in, got, tc.want)
		}
	}
}

// FuzzStdString holds StdString to json.Marshal with the HTML escapes
// undone (where s holds no backslash), and to reading back.
func FuzzStdString(f *testing.F) {
	for _, s := range []string{"", "<&>", "\u2028", "\xff", "a\"b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := StdString(s)
		m, _ := json.Marshal(s)
		want := strings.NewReplacer(`\u003c`, "<", `\u003e`, ">", `\u0026`, "&").Replace(string(m))
		if got != want && !strings.Contains(s, `\`) { // a written \u003c would be undone too
			t.Fatalf("StdString(%q) = %s, want %s", s, got, want)
		}
		var back string
		if err := json.Unmarshal([]byte(got), &back); err != nil {
			t.Fatalf("StdString(%q) = %s does not read back: %v", s, got, err)
		}
	})
}
