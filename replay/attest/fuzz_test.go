package attest_test

import (
	"errors"
	"testing"

	"github.com/sigstore/sigstore-go/pkg/sign"

	"github.com/reelier/reelier/replay/attest"
)

// FuzzVerify feeds bundles and statements to the readers: no input may
// panic, and none but the one signed bundle and its own statement may
// verify.
//
//	go test ./replay/attest -run XXX -fuzz FuzzVerify -fuzztime 60s -fuzzminimizetime 3s
//
// (The default minimisation time, 60 s, spent on the first new input
// leaves a 60 s run with a few thousand executions on a loaded machine.)
func FuzzVerify(f *testing.F) {
	k, pubPath := keyPair(f, attest.Ed25519)
	stmt := statement(f)
	good, err := attest.Sign(stmt, k, sign.BundleOptions{})
	if err != nil {
		f.Fatal(err)
	}
	pub, err := attest.LoadPublicKey(pubPath)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(good)
	f.Add(stmt)
	f.Add(good[:len(good)/3])
	f.Add([]byte(`{"mediaType":"application/vnd.dev.sigstore.bundle.v0.3+json"}`))
	f.Add([]byte(`{"_type":"https://in-toto.io/Statement/v1","subject":[{"name":"a","digest":{"sha256":"00"}}],"predicateType":"https://reelier.dev/receipt/v1","predicate":{"verdict":"passed","steps":[]}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		if st, err := attest.ParseStatement(data); err == nil && st.SubjectSHA256 == "" {
			t.Fatal("a statement without a subject digest was read")
		}
		if _, _, err := attest.ParseBundle(data); err != nil {
			return
		}
		v, err := attest.Verify(data, attest.Trust{Key: pub})
		var fail *attest.Failure
		switch {
		case err == nil && string(data) != string(good):
			// Another encoding of the same signed envelope may verify;
			// what it says must be exactly what was signed.
			st, _ := attest.ParseStatement(stmt)
			if v.Statement.SubjectSHA256 != st.SubjectSHA256 || v.Statement.Predicate.Verdict != st.Predicate.Verdict || len(v.Statement.Predicate.Steps) != len(st.Predicate.Steps) {
				t.Fatalf("a changed bundle verified with another statement: %+v", v.Statement)
			}
		case err != nil && !errors.As(err, &fail) && err.Error() == "":
			t.Fatal("an error with no message")
		}
	})
}

// FuzzParseStatement feeds statements to the statement reader alone.
func FuzzParseStatement(f *testing.F) {
	f.Add(statement(f))
	f.Add([]byte(`{"_type":"https://in-toto.io/Statement/v1","subject":[{"name":"a","digest":{"sha256":"00"}}],"predicateType":"https://reelier.dev/receipt/v1","predicate":{"verdict":"passed","steps":[]}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		if st, err := attest.ParseStatement(data); err == nil && len(st.SubjectSHA256) != 64 {
			t.Fatalf("a statement with subject digest %q was read", st.SubjectSHA256)
		}
	})
}
