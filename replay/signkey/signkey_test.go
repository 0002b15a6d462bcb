package signkey_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reelier/reelier/replay/signkey"
)

func TestInit(t *testing.T) {
	for _, typ := range []string{signkey.Ed25519, signkey.ECDSAP256} {
		t.Run(typ, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "keys")
			priv, pub, err := signkey.Init(dir, typ, false)
			if err != nil {
				t.Fatal(err)
			}
			st, err := os.Stat(priv)
			if err != nil || st.Mode().Perm() != 0o600 {
				t.Fatalf("private key mode %v, %v; want 0600", st.Mode(), err)
			}
			if _, err := signkey.LoadPrivate(priv); err != nil {
				t.Fatal(err)
			}
			if _, err := signkey.LoadPublic(pub); err != nil {
				t.Fatal(err)
			}
			before, _ := os.ReadFile(priv)
			if _, _, err := signkey.Init(dir, typ, false); err == nil || !strings.Contains(err.Error(), "give --force") {
				t.Fatalf("a second Init without force: %v", err)
			}
			if after, _ := os.ReadFile(priv); string(after) != string(before) {
				t.Fatal("the refused Init changed the key")
			}
			if _, _, err := signkey.Init(dir, typ, true); err != nil {
				t.Fatal(err)
			}
			if after, _ := os.ReadFile(priv); string(after) == string(before) {
				t.Fatal("Init with force kept the old key")
			}
		})
	}
	if _, _, err := signkey.Init(t.TempDir(), "rsa", false); err == nil {
		t.Fatal("Init made an rsa key")
	}
}
