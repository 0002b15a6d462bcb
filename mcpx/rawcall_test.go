package mcpx

import (
	"encoding/json"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func TestEachMember(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string // key=value pairs
		all  bool
	}{
		{`{}`, nil, true},
		{` { "a" : 1 , "b":[1,{"c":"}"}], "d\"e":"x\\"}`, []string{`"a"=1`, `"b"=[1,{"c":"}"}]`, `"d\"e"="x\\"`}, true},
		{`{"id":"reelier-fp-1","result":{"content":[]}}`, []string{`"id"="reelier-fp-1"`, `"result"={"content":[]}`}, true},
		{`{"a":true,"b":null,"c":-1.5e3}`, []string{`"a"=true`, `"b"=null`, `"c"=-1.5e3`}, true},
		{`[1,2]`, nil, false},
		{`"x"`, nil, false},
		{`{"a":1`, []string{`"a"=1`}, false},
		{`{"a"}`, nil, false},
		{`{"a":1 "b":2}`, []string{`"a"=1`}, false},
		{``, nil, false},
	} {
		var got []string
		all := EachMember([]byte(tc.in), func(key, value []byte) bool {
			got = append(got, string(key)+"="+string(value))
			return true
		})
		if all != tc.all || len(got) != len(tc.want) {
			t.Errorf("EachMember(%s): %q, %v; want %q, %v", tc.in, got, all, tc.want, tc.all)
			continue
		}
		for k := range got {
			if got[k] != tc.want[k] {
				t.Errorf("EachMember(%s): %q, want %q", tc.in, got, tc.want)
				break
			}
		}
	}
}

// sdkVerdict is what the SDK's client makes of a tool result.
func sdkVerdict(result []byte) (isError, ok bool) {
	res := &mcp.CallToolResult{}
	if res.UnmarshalJSON(result) != nil {
		return false, false
	}
	return res.IsError, true
}

func TestPlainResult(t *testing.T) {
	for _, tc := range []struct {
		in             string
		plain, isError bool
	}{
		{`{"content":[{"type":"text","text":"a: ping"}]}`, true, false},
		{`{"content":[{"text":"x","type":"text"},{"type":"text","text":""}],"isError":true}`, true, true},
		{`{"isError":false,"content":[]}`, true, false},
		{`{"content":null}`, true, false},
		{`{}`, true, false},
		{` { "content" : [ { "type" : "text" , "text" : "\"}]" } ] } `, true, false},
		// Not the plain shape: the SDK decides.
		{`{"content":[{"type":"image","data":"AAAA","mimeType":"image/png"}]}`, false, false},
		{`{"content":[{"type":"text","text":"x"}],"structuredContent":{"sum":3}}`, false, false},
		{`{"content":[{"type":"text","text":"x","annotations":{"priority":1}}]}`, false, false},
		{`{"content":[{"type":"text","text":"x"}],"_meta":{}}`, false, false},
		{`{"content":[{"type":"text","text":"x"}],"isError":1}`, false, false},
		{`{"content":[{"type":"text","text":1}]}`, false, false},
		{`{"content":[{"type":"text"}],"content":[]}`, false, false},
		{`{"content":[null]}`, false, false},
		{`{"content":{}}`, false, false},
		{`{"content":[{"type":"text","type":"text"}]}`, false, false},
		{`{"Content":[]}`, false, false},
	} {
		isError, plain := plainResult([]byte(tc.in))
		if plain != tc.plain || plain && isError != tc.isError {
			t.Errorf("plainResult(%s) = %v, %v; want %v, %v", tc.in, isError, plain, tc.isError, tc.plain)
		}
		if plain {
			if sdkErr, ok := sdkVerdict([]byte(tc.in)); !ok || sdkErr != isError {
				t.Errorf("plainResult(%s) = %v, but the SDK reads isError %v (decoded: %v)", tc.in, isError, sdkErr, ok)
			}
		}
	}
}

// FuzzPlainResult checks that a result plainResult reads is one the SDK
// decodes, to the same isError, and that EachMember walks a JSON object
// as encoding/json reads it.
func FuzzPlainResult(f *testing.F) {
	for _, s := range []string{
		`{"content":[{"type":"text","text":"a: ping"}]}`,
		`{"content":[{"text":"x","type":"text"}],"isError":true}`,
		`{"content":[],"isError":null}`,
		`{"a":{"b":[1,"]"]},"c":"\u00e9"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		isError, plain := plainResult(b)
		if !json.Valid(b) {
			return // the FrameReader passes on valid JSON only
		}
		if plain {
			sdkErr, ok := sdkVerdict(b)
			if !ok || sdkErr != isError {
				t.Fatalf("plainResult(%s) = %v, but the SDK reads isError %v (decoded: %v)", b, isError, sdkErr, ok)
			}
		}
		var m map[string]json.RawMessage
		if json.Unmarshal(b, &m) != nil || m == nil {
			return // not an object (null decodes into a nil map)
		}
		n := 0
		all := EachMember(b, func(key, value []byte) bool {
			n++
			var k string
			if err := json.Unmarshal(key, &k); err != nil {
				t.Fatalf("key %s: %v", key, err)
			}
			if !json.Valid(value) {
				t.Fatalf("value of %s is not JSON: %s", key, value)
			}
			if _, ok := m[k]; !ok {
				t.Fatalf("key %s is not a member of %s", key, b)
			}
			return true
		})
		if !all || n < len(m) {
			t.Fatalf("EachMember(%s) walked %d members (all %v), want %d", b, n, all, len(m))
		}
	})
}
