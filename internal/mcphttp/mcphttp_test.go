package mcphttp

import (
	"context"
	"net"
	"strings"
	"testing"
)

func TestCheckBind(t *testing.T) {
	tests := []struct {
		addr  string
		token bool
		err   string
	}{
		{"127.0.0.1:0", false, ""},
		{"[::1]:8765", false, ""},
		{"localhost:8765", false, ""},
		{"0.0.0.0:8765", true, ""},
		{"0.0.0.0:8765", false, "refusing to serve on 0.0.0.0:8765 without a token: without one, reelier mock listens only on a loopback address"},
		{":8765", false, "refusing to serve on :8765 without a token"},
		{"127.0.0.1", false, `--http "127.0.0.1": want HOST:PORT`},
	}
	for _, tt := range tests {
		err := CheckBind("reelier mock", tt.addr, tt.token)
		if (err == nil) != (tt.err == "") || err != nil && !strings.Contains(err.Error(), tt.err) {
			t.Errorf("CheckBind(%q, token %t) = %v, want %q", tt.addr, tt.token, err, tt.err)
		}
	}
}

func TestEnvToken(t *testing.T) {
	env := map[string]string{"LONG": strings.Repeat("k", MinTokenLength), "SHORT": "k"}
	get := func(k string) string { return env[k] }
	if tok, err := EnvToken("LONG", get); err != nil || tok != env["LONG"] {
		t.Errorf("EnvToken(LONG) = %q, %v", tok, err)
	}
	for name, want := range map[string]string{
		"SHORT": "--token-env SHORT: the token is 1 characters; use at least 16",
		"UNSET": "--token-env UNSET: the variable UNSET is unset or empty",
	} {
		if _, err := EnvToken(name, get); err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("EnvToken(%s) = %v, want %q", name, err, want)
		}
	}
}

// TestServeRefusesNonLoopbackWithoutToken: the listener is checked, not
// the address asked for.
func TestServeRefusesNonLoopbackWithoutToken(t *testing.T) {
	ln, err := net.Listen("tcp", "0.0.0.0:0")
	if err != nil {
		t.Skip("cannot listen on 0.0.0.0:", err)
	}
	err = ServeListener(context.Background(), ln, nil, "", "reelier mock")
	if err == nil || !strings.Contains(err.Error(), "without a token: without one, reelier mock listens only on a loopback address") {
		t.Errorf("Serve on %s without a token = %v", ln.Addr(), err)
	}
}
