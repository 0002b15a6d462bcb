package mcphttp

import (
	"fmt"
	"net"
	"net/netip"
)

// EnvToken reads the bearer token held in the environment variable name
// (--token-env NAME): it is an error for the variable to be unset or
// empty, or to hold a token shorter than MinTokenLength.
func EnvToken(name string, getenv func(string) string) (string, error) {
	token := getenv(name)
	if token == "" {
		return "", fmt.Errorf("--token-env %s: the variable %s is unset or empty; put the token in it (for example: export %s=$(openssl rand -hex 32))", name, name, name)
	}
	if err := CheckToken(token); err != nil {
		return "", fmt.Errorf("--token-env %s: %v", name, err)
	}
	return token, nil
}

// IsLoopbackListener reports whether ln is bound to a loopback address.
func IsLoopbackListener(ln net.Listener) bool {
	ap, err := netip.ParseAddrPort(ln.Addr().String())
	return err == nil && ap.Addr().Unmap().IsLoopback()
}
