package server_test

import (
	"bytes"
	"regexp"
	"testing"

	"github.com/reelier/reelier/ledger/server"
)

func TestIsLoopback(t *testing.T) {
	for addr, want := range map[string]bool{
		"127.0.0.1:8787": true,
		"127.1.2.3:0":    true,
		"localhost:8787": true,
		"LOCALHOST:1":    true,
		"[::1]:8787":     true,
		"0.0.0.0:8787":   false,
		":8787":          false,
		"[::]:8787":      false,
		"192.168.1.5:80": false,
		"ledger.lan:80":  false,
		"127.0.0.1":      false, // no port: not a listen address
	} {
		if got := server.IsLoopback(addr); got != want {
			t.Errorf("IsLoopback(%q) = %v, want %v", addr, got, want)
		}
	}
}

func TestNewKey(t *testing.T) {
	k1, h1 := server.NewKey()
	k2, h2 := server.NewKey()
	if !regexp.MustCompile(`^rlk_[A-Za-z0-9_-]{43}$`).MatchString(k1) || k1 == k2 {
		t.Errorf("keys %q, %q", k1, k2)
	}
	if !bytes.Equal(h1, server.HashKey(k1)) || bytes.Equal(h1, h2) || len(h1) != 32 {
		t.Errorf("hashes do not match their keys")
	}
}
