package attest_test

import (
	"bufio"
	"bytes"
	"crypto"
	"encoding/json"
	"strings"
	"testing"

	"github.com/sigstore/sigstore-go/pkg/sign"

	"github.com/reelier/reelier/ledger/wire"
	"github.com/reelier/reelier/replay/attest"
	"github.com/reelier/reelier/replay/runlog"
)

// signedLine is record() as its history line and its bundle, signed with
// a new key, and that key's public half.
func signedLine(t testing.TB) ([]byte, []byte, crypto.PublicKey) {
	t.Helper()
	k, pubPath := keyPair(t, attest.Ed25519)
	line, err := runlog.Marshal(record())
	if err != nil {
		t.Fatal(err)
	}
	b, err := attest.Sign(statement(t), k, sign.BundleOptions{})
	if err != nil {
		t.Fatal(err)
	}
	pub, err := attest.LoadPublicKey(pubPath)
	if err != nil {
		t.Fatal(err)
	}
	return bytes.TrimSpace(line), b, pub
}

// TestServeLedgerVerify: the verifier's JSON-lines loop says ready, then
// answers each request in turn with its id (a line that is not JSON gets
// an answer too, never a verdict), and ends when its input does.
func TestServeLedgerVerify(t *testing.T) {
	line, bundle, pub := signedLine(t)
	var in bytes.Buffer
	enc := json.NewEncoder(&in)
	enc.Encode(wire.VerifyRequest{ID: 1, Skill: "search", Record: line, Bundle: bundle})
	in.WriteString("not json\n")
	enc.Encode(wire.VerifyRequest{ID: 3, Skill: "other", Record: line, Bundle: bundle})
	var out bytes.Buffer
	if err := attest.ServeLedgerVerify(&attest.LedgerTrust{Keys: []crypto.PublicKey{pub}}, &in, &out); err != nil {
		t.Fatal(err)
	}
	var got []wire.VerifyAnswer
	sc := bufio.NewScanner(&out)
	for sc.Scan() {
		var a wire.VerifyAnswer
		if err := json.Unmarshal(sc.Bytes(), &a); err != nil {
			t.Fatalf("answer %q: %v", sc.Text(), err)
		}
		got = append(got, a)
	}
	if len(got) != 4 || !got[0].Ready ||
		got[1].ID != 1 || got[1].State != wire.SignatureVerified || !strings.HasPrefix(got[1].Signer, "key ") ||
		got[2].State != "" || !strings.Contains(got[2].Reject, "not JSON") ||
		got[3].ID != 3 || !strings.Contains(got[3].Reject, `the bundle is a receipt of skill "search", the record was pushed for "other"`) {
		t.Errorf("answers %+v", got)
	}
}

// FuzzLedgerCheck feeds the ledger's check changed records and bundles:
// nothing panics, every answer is exactly one of a state and a rejection,
// and only the record that was signed is ever verified.
//
//	go test ./replay/attest -run XXX -fuzz FuzzLedgerCheck -fuzztime 60s -fuzzminimizetime 3s
func FuzzLedgerCheck(f *testing.F) {
	line, bundle, pub := signedLine(f)
	trust := &attest.LedgerTrust{Keys: []crypto.PublicKey{pub}}
	want := wire.RecordSHA256(line)
	f.Add(line, bundle)
	f.Add(bytes.Replace(line, []byte("Search"), []byte("Searcg"), 1), bundle)
	f.Add(line, bundle[:len(bundle)/2])
	f.Add([]byte(`{}`), []byte(`{}`))
	f.Fuzz(func(t *testing.T, record, b []byte) {
		a := trust.Check("search", record, b)
		if (a.Reject == "") == (a.State == "") {
			t.Fatalf("answer %+v: want exactly one of a state and a rejection", a)
		}
		if a.State == wire.SignatureVerified && wire.RecordSHA256(record) != want {
			t.Fatalf("a record that was not signed verified: %q", record)
		}
	})
}

// TestConfigVerdict: a run stopped by how it was set up (verdict config:
// every failed step refused by the gate, an input, an approval or a
// policy) is a receipt like any other; a statement that says config over a
// step that failed its check is refused.
func TestConfigVerdict(t *testing.T) {
	for _, tc := range []struct {
		kind runlog.Kind
		ok   bool
	}{{runlog.KindGate, true}, {runlog.KindInput, true}, {runlog.KindCheck, false}} {
		r := record()
		r.Steps[0].Outcome, r.Steps[0].Kind = runlog.Failed, tc.kind
		r.Finish(false)
		r.Verdict = runlog.VerdictConfig
		st, err := attest.BuildStatement(attest.Input{Record: r, Src: []byte(skillSrc), Name: "search.skill.md", Version: "v1"})
		if err != nil {
			t.Fatal(err)
		}
		_, err = attest.ParseStatement(st)
		if (err == nil) != tc.ok {
			t.Errorf("config over a %s failure: %v; want accepted %v", tc.kind, err, tc.ok)
		}
	}
}
