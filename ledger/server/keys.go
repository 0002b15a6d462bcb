package server

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"net"
	"strings"
)

// keyPrefix marks ledger API keys, so one is recognisable in a secret
// scanner or a config file.
const keyPrefix = "rlk_"

// NewKey returns a fresh API key (256 random bits) and the hash to store.
func NewKey() (key string, hash []byte) {
	b := make([]byte, 32)
	rand.Read(b) // never fails (crypto/rand panics on failure)
	key = keyPrefix + base64.RawURLEncoding.EncodeToString(b)
	return key, HashKey(key)
}

// HashKey is the only form in which a key is stored: its SHA-256. Keys are
// random 256-bit tokens, so a fast hash suffices; a leaked database does
// not reveal them.
func HashKey(key string) []byte {
	h := sha256.Sum256([]byte(key))
	return h[:]
}

// IsLoopback reports whether a listen address (host:port) binds only the
// loopback interface: a loopback IP or "localhost". An empty host binds
// every interface and is not loopback; other host names are not trusted
// to resolve to loopback.
func IsLoopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
