package mcpx

import "testing"

func TestIDAndMethod(t *testing.T) {
	for _, tc := range []struct {
		line, id, method string
		hasMethod        bool
	}{
		{`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, `1`, `"tools/list"`, true},
		{`{"id":"a","result":{}}`, `"a"`, ``, false},
		{`{"id":-3,"error":{"code":1}}`, `-3`, ``, false},
		{`{"id":null,"method":"x"}`, ``, `"x"`, true},
		{`{"id":{"n":1}}`, ``, ``, false},
		{`{"id":1,"id":true}`, ``, ``, false},
		{`{"id":true,"id":2}`, `2`, ``, false},
		{`{"method":"a","method":"b"}`, ``, `"b"`, true},
		{`{}`, ``, ``, false},
	} {
		id, method, has := idAndMethod([]byte(tc.line))
		if string(id) != tc.id || string(method) != tc.method || has != tc.hasMethod {
			t.Errorf("idAndMethod(%s) = %s, %s, %v; want %s, %s, %v", tc.line, id, method, has, tc.id, tc.method, tc.hasMethod)
		}
	}
}
