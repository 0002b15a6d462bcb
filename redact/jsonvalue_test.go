package redact

import "testing"

func TestJSONValue(t *testing.T) {
	r := &Redactor{}
	for _, tc := range []struct{ in, want string }{
		{"", "null"},
		{" \n\t", "null"},
		{"null", "null"},
		{`{"a":1}`, `{"a":1}`},
		{`{"password":"hunter2"}`, `{"password":"` + Redacted + `"}`},
	} {
		got, err := r.JSONValue([]byte(tc.in))
		if err != nil || string(got) != tc.want {
			t.Errorf("JSONValue(%q) = %s, %v; want %s", tc.in, got, err, tc.want)
		}
		if tc.in != "" && tc.want != "null" {
			plain, _ := r.JSON([]byte(tc.in))
			if string(plain) != string(got) {
				t.Errorf("JSONValue(%q) = %s, JSON gives %s", tc.in, got, plain)
			}
		}
	}
	if _, err := r.JSONValue([]byte("{")); err == nil {
		t.Error("JSONValue of a broken document: no error")
	}
}
