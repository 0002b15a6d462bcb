package session

import (
	"bytes"
	"encoding/json"
	"io"
	"testing"
)

func TestEachMember(t *testing.T) {
	tests := []struct {
		in   string
		ok   bool
		want string // key=value pairs, one per line
	}{
		{`{}`, true, ""},
		{` { } `, true, ""},
		{`{"a":1}`, true, "a=1\n"},
		{`{"a" : "x\"y" , "b":[1,{"c":"]"}],"d":null}`, true, "a=\"x\\\"y\"\nb=[1,{\"c\":\"]\"}]\nd=null\n"},
		{`{"a\\":"\\"}`, true, "a\\\\=\"\\\\\"\n"},
		{`{"a":true,"b":false,"c":-1.5e3}`, true, "a=true\nb=false\nc=-1.5e3\n"},
		{`{"a":1,}`, false, ""},
		{`{"a":1`, false, ""},
		{`{"a" 1}`, false, ""},
		{`{"a":[1}`, false, ""},
		{`{"a":"unterminated}`, false, ""},
		{`{"a":1} x`, false, ""},
		{`{a:1}`, false, ""},
		{`{"a":tru}`, false, ""},
		{`{"a":-}`, false, ""},
		{`[1]`, false, ""},
		{``, false, ""},
	}
	for _, tt := range tests {
		var b bytes.Buffer
		ok := eachMember([]byte(tt.in), func(k, v []byte) { b.WriteString(string(k) + "=" + string(v) + "\n") })
		if ok != tt.ok || ok && b.String() != tt.want {
			t.Errorf("eachMember(%s) = %v %q, want %v %q", tt.in, ok, b.String(), tt.ok, tt.want)
		}
	}
}

func TestEachElement(t *testing.T) {
	tests := []struct {
		in   string
		ok   bool
		want int
	}{
		{`[]`, true, 0},
		{`[ 1 , "a", {"b":[]} ]`, true, 3},
		{`[1,]`, false, 0},
		{`[1 2]`, false, 0},
		{`{}`, false, 0},
	}
	for _, tt := range tests {
		n := 0
		ok := eachElement([]byte(tt.in), func([]byte) { n++ })
		if ok != tt.ok || ok && n != tt.want {
			t.Errorf("eachElement(%s) = %v %d, want %v %d", tt.in, ok, n, tt.ok, tt.want)
		}
	}
}

func TestKeyAndString(t *testing.T) {
	if !keyIs([]byte(`typ\u0065`), "type") || keyIs([]byte(`typ\u0066`), "type") || !keyIs([]byte("type"), "type") {
		t.Error("keyIs does not decode escapes")
	}
	if !strIs([]byte(`"tool_use"`), "tool_use") || !strIs([]byte(`"tool\u005fuse"`), "tool_use") || strIs([]byte(`1`), "1") {
		t.Error("strIs")
	}
	if s, ok := str([]byte(`"a\nb"`)); !ok || s != "a\nb" {
		t.Errorf("str = %q %v", s, ok)
	}
	if _, ok := str([]byte(`12`)); ok {
		t.Error("str accepted a number")
	}
}

// FuzzSkim holds the skimmer to encoding/json: on every valid JSON object
// it finds the same members, in order, and it never panics on anything.
func FuzzSkim(f *testing.F) {
	for _, s := range []string{`{}`, `{"a":1}`, `{"a":"x\"y","b":[1,{"c":"]"}]}`, `{"a":{"b":{"c":[[[]]]}}}`, `{"a\u0062":"\\"}`, `[1,2]`, `"x"`, `{"a":1,}`, "{\"a\":\"\x00\"}"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var keys []string
		var vals [][]byte
		ok := eachMember(data, func(k, v []byte) {
			var key string
			if err := json.Unmarshal(append(append([]byte{'"'}, k...), '"'), &key); err == nil {
				keys = append(keys, key)
			}
			vals = append(vals, v)
		})
		eachElement(data, func([]byte) {})
		if !json.Valid(data) {
			return
		}
		trimmed := bytes.TrimSpace(data)
		if len(trimmed) == 0 || trimmed[0] != '{' {
			if ok {
				t.Fatalf("eachMember accepted a valid non-object %q", data)
			}
			return
		}
		if !ok {
			t.Fatalf("eachMember refused the valid object %q", data)
		}
		want, wantVals := decodeMembers(t, data)
		if len(keys) != len(want) {
			t.Fatalf("%q: keys %q, want %q", data, keys, want)
		}
		for i := range want {
			if keys[i] != want[i] || !bytes.Equal(vals[i], wantVals[i]) {
				t.Fatalf("%q: member %d is %q=%s, want %q=%s", data, i, keys[i], vals[i], want[i], wantVals[i])
			}
		}
	})
}

// decodeMembers lists an object's members with encoding/json.
func decodeMembers(t *testing.T, data []byte) ([]string, [][]byte) {
	dec := json.NewDecoder(bytes.NewReader(data))
	if _, err := dec.Token(); err != nil {
		t.Fatal(err)
	}
	var keys []string
	var vals [][]byte
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			t.Fatal(err)
		}
		keys = append(keys, tok.(string))
		vals = append(vals, raw)
	}
	if _, err := dec.Token(); err != nil && err != io.EOF {
		t.Fatal(err)
	}
	return keys, vals
}
