package jsondata_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/reelier/reelier/tool/jsondata"
)

// FuzzRawAt holds RawAt to Parse and Object.Get on valid documents, and
// to never panicking on anything.
func FuzzRawAt(f *testing.F) {
	f.Add([]byte(`{"a":{"b":[1,{"c":"x\"}"}]},"a":{"k":true}}`), "a.k")
	f.Add([]byte(`{"content":[{"type":"text","text":"hi"}],"isError":false}`), "content.0.text")
	f.Add([]byte(`{"x`), "x")
	f.Fuzz(func(t *testing.T, doc []byte, path string) {
		segs := strings.Split(path, ".")
		raw, ok := jsondata.RawAt(doc, segs)
		jsondata.EachMember(doc, func([]byte, bool, []byte) bool { return true })
		if !json.Valid(doc) {
			return
		}
		root, err := jsondata.Parse(string(doc))
		if err != nil {
			return
		}
		want, found := lookup(root, segs)
		if found != ok {
			t.Fatalf("RawAt(%s) found=%v, Parse says %v", path, ok, found)
		}
		if !ok {
			return
		}
		got, err := jsondata.Parse(string(raw))
		if err != nil || jsondata.String(got) != jsondata.String(want) {
			t.Fatalf("RawAt(%s) = %s; Parse gives %s", path, raw, jsondata.String(want))
		}
	})
}

// lookup follows segments the way RawAt documents: members by key (the
// last of a repeated key), elements by decimal index.
func lookup(v any, segs []string) (any, bool) {
	for _, sg := range segs {
		switch x := v.(type) {
		case *jsondata.Object:
			next, ok := x.Get(sg)
			if !ok {
				return nil, false
			}
			v = next
		case []any:
			n := 0
			if sg == "" || len(sg) > 9 {
				return nil, false
			}
			for _, c := range sg {
				if c < '0' || c > '9' {
					return nil, false
				}
				n = n*10 + int(c-'0')
			}
			if n >= len(x) {
				return nil, false
			}
			v = x[n]
		default:
			return nil, false
		}
	}
	return v, true
}

func TestKeyIs(t *testing.T) {
	for _, tc := range []struct {
		raw, name string
		want      bool
	}{
		{"type", "type", true},
		{"type", "Type", false},
		{`typ\u0065`, "type", true},
		{`typ\u0066`, "type", false},
		{`a\"b`, `a"b`, true},
		{`a\nb`, "a\nb", true},
		{`a\qb`, "aqb", false}, // not a JSON escape
		{"", "", true},
		{"caf\xe9", "caf\xe9", false}, // invalid UTF-8 reads as U+FFFD
		{"caf\xe9", "caf\uFFFD", true},
		{"café", "café", true},
	} {
		if got := jsondata.KeyIs([]byte(tc.raw), tc.name); got != tc.want {
			t.Errorf("KeyIs(%q, %q) = %v, want %v", tc.raw, tc.name, got, tc.want)
		}
	}
}
