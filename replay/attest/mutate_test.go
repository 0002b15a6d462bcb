package attest_test

import (
	"bytes"
	"math/rand"
	"testing"

	"github.com/sigstore/sigstore-go/pkg/sign"

	"github.com/reelier/reelier/replay/attest"
)

// TestMutatedBundles changes a signed bundle at random, a few bytes or a
// cut at a time: none may panic, and any that still verifies (a change
// outside what is signed, such as the key hint) must carry exactly the
// signed statement.
func TestMutatedBundles(t *testing.T) {
	k, pubPath := keyPair(t, attest.Ed25519)
	stmt := statement(t)
	good, err := attest.Sign(stmt, k, sign.BundleOptions{})
	if err != nil {
		t.Fatal(err)
	}
	pub, _ := attest.LoadPublicKey(pubPath)
	_, payload, err := attest.ParseBundle(good)
	if err != nil || !bytes.Equal(payload, stmt) {
		t.Fatalf("the signed payload is not the statement: %v", err)
	}
	r := rand.New(rand.NewSource(1))
	verified := 0
	for range 5000 {
		b := append([]byte(nil), good...)
		for range 1 + r.Intn(4) {
			b[r.Intn(len(b))] = byte(r.Intn(256))
		}
		if r.Intn(3) == 0 {
			b = b[:r.Intn(len(b))]
		}
		if _, err := attest.Verify(b, attest.Trust{Key: pub}); err != nil {
			continue
		}
		verified++
		if _, p, err := attest.ParseBundle(b); err != nil || !bytes.Equal(p, stmt) {
			t.Fatalf("a changed bundle verified with another payload:\n%s", b)
		}
	}
	t.Logf("%d of 5000 changed bundles still verified, each with the signed statement", verified)
}
