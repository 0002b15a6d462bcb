package attest_test

import (
	"testing"

	"github.com/sigstore/sigstore-go/pkg/sign"

	"github.com/reelier/reelier/replay/attest"
)

// BenchmarkSign is signing one run record's statement into a bundle
// (BENCHMARKS.md "Signed receipts").
func BenchmarkSign(b *testing.B) {
	for _, typ := range []string{attest.Ed25519, attest.ECDSAP256} {
		b.Run(typ, func(b *testing.B) {
			k, _ := keyPair(b, typ)
			stmt := statement(b)
			b.ReportAllocs()
			for b.Loop() {
				if _, err := attest.Sign(stmt, k, sign.BundleOptions{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkVerify is verifying one signed run record against its key.
func BenchmarkVerify(b *testing.B) {
	for _, typ := range []string{attest.Ed25519, attest.ECDSAP256} {
		b.Run(typ, func(b *testing.B) {
			k, pubPath := keyPair(b, typ)
			bundle, err := attest.Sign(statement(b), k, sign.BundleOptions{})
			if err != nil {
				b.Fatal(err)
			}
			pub, err := attest.LoadPublicKey(pubPath)
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := attest.Verify(bundle, attest.Trust{Key: pub}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
