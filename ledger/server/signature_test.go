package server_test

import (
	"context"
	"crypto"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/sigstore/sigstore-go/pkg/sign"

	"github.com/reelier/reelier/ledger/server"
	"github.com/reelier/reelier/ledger/wire"
	"github.com/reelier/reelier/replay/attest"
	"github.com/reelier/reelier/replay/runlog"
	"github.com/reelier/reelier/testkit/attesttest"
	"github.com/reelier/reelier/testkit/ledgertest"
)

// signer makes signed records of skill "weekly" with real bundles
// (replay/attest), by a key or keyless through a test CA.
type signer struct {
	t   *testing.T
	key *attest.Key
	pub crypto.PublicKey
}

func newSigner(t *testing.T) *signer {
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	k, err := attest.NewKey(priv)
	if err != nil {
		t.Fatal(err)
	}
	return &signer{t: t, key: k, pub: pub}
}

// record is the history line of run i and its statement.
func (s *signer) record(i int, outcomes ...runlog.Outcome) ([]byte, []byte) {
	var rec runlog.Record
	if err := json.Unmarshal(ledgertest.Record("weekly", i, outcomes...), &rec); err != nil {
		s.t.Fatal(err)
	}
	line, err := runlog.Marshal(&rec)
	if err != nil {
		s.t.Fatal(err)
	}
	st, err := attest.BuildStatement(attest.Input{Record: &rec, Src: []byte("---\nname: weekly\n---\n"), Name: "weekly.skill.md", Version: "test"})
	if err != nil {
		s.t.Fatal(err)
	}
	return line, st
}

// signed is record i and its bundle signed with the key.
func (s *signer) signed(i int, outcomes ...runlog.Outcome) ([]byte, []byte) {
	line, st := s.record(i, outcomes...)
	b, err := attest.Sign(st, s.key, sign.BundleOptions{})
	if err != nil {
		s.t.Fatal(err)
	}
	return line, b
}

// inProcess is the ledger's verifier as reelier-attest ledger-verify
// runs it, called in this process.
func inProcess(trust *attest.LedgerTrust) func(context.Context, string, []byte, []byte) (server.Signature, error) {
	return func(_ context.Context, skill string, record, bundle []byte) (server.Signature, error) {
		a := trust.Check(skill, record, bundle)
		if a.Reject != "" {
			return server.Signature{}, &server.Rejection{Reason: a.Reject}
		}
		return server.Signature{State: server.SignatureState(a.State), Signer: a.Signer}, nil
	}
}

// TestSignedRecords: a ledger that trusts a key and a certificate
// identity stores a record its bundle binds as verified with the signer;
// one signed by a signer it does not trust as signed, not trusted; one
// without a bundle as unsigned; and refuses (400, record.signature, with
// the reason) a record changed after signing, a bundle whose signature
// was changed, a bundle of another record, and a bundle that is not one.
// The receipt and skill pages show each state, the signer escaped.
func TestSignedRecords(t *testing.T) {
	trusted, other := newSigner(t), newSigner(t)
	ca, err := attesttest.New()
	if err != nil {
		t.Fatal(err)
	}
	const identity, issuer = "https://ci.example/wf.yml@refs/heads/main", "https://token.ci.example"
	trust := &attest.LedgerTrust{Keys: []crypto.PublicKey{trusted.pub}, Identities: []attest.Identity{{Identity: identity, Issuer: issuer}}, Root: ca.Root()}
	fp, _ := attest.Fingerprint(trusted.pub)
	otherFP, _ := attest.Fingerprint(other.pub)
	keyless := func(i int, id string) ([]byte, []byte) {
		line, st := trusted.record(i, runlog.Passed)
		b, err := ca.Sign(st, id, issuer, attesttest.Options{Timestamp: true})
		if err != nil {
			t.Fatal(err)
		}
		return line, b
	}
	flip := func(b []byte, at func([]byte) int) []byte {
		c := append([]byte{}, b...)
		i := at(c)
		c[i] ^= 1
		return c
	}
	l := newTestLedgerWith(t, false, 0, func(c *server.Config) { c.VerifyRecord = inProcess(trust) })
	l.uploadSkill(t, "weekly")
	for i, tc := range []struct {
		name           string
		record, bundle []byte
		status         int
		state, signer  string
		reason         string
	}{
		{name: "trusted key", status: 202, state: "verified", signer: "key " + fp},
		{name: "other key", status: 202, state: "untrusted", signer: "key " + otherFP},
		{name: "unsigned", status: 202, state: "unsigned"},
		{name: "trusted identity", status: 202, state: "verified", signer: "certificate " + identity},
		{name: "other identity", status: 202, state: "untrusted", signer: "certificate https://evil.example/wf.yml"},
		{name: "record changed", status: 400, reason: "the record is not the one the bundle signs"},
		{name: "signature changed", status: 400, reason: "the signature does not verify with the trusted key " + fp},
		{name: "keyless envelope changed", status: 400, reason: "the envelope's signature does not match the certificate"},
		{name: "another record's bundle", status: 400, reason: "the record is not the one the bundle signs"},
		{name: "not a bundle", status: 400, reason: "the bundle is not a signed receipt"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var line, bundle []byte
			switch tc.name {
			case "trusted key":
				line, bundle = trusted.signed(i, runlog.Passed)
			case "other key":
				line, bundle = other.signed(i, runlog.Passed)
			case "unsigned":
				line, _ = trusted.signed(i, runlog.Passed)
			case "trusted identity":
				line, bundle = keyless(i, identity)
			case "other identity":
				line, bundle = keyless(i, "https://evil.example/wf.yml")
			case "record changed":
				line, bundle = trusted.signed(i, runlog.Passed)
				line = []byte(strings.Replace(string(line), `"Step 1"`, `"Step 7"`, 1))
			case "signature changed":
				line, bundle = trusted.signed(i, runlog.Passed)
				at := strings.Index(string(bundle), `"sig":"`) + len(`"sig":"`)
				bundle = append(append(append([]byte{}, bundle[:at]...), "AAAA"...), bundle[at+4:]...)
			case "keyless envelope changed":
				line, bundle = keyless(i, identity)
				bundle = flip(bundle, func(b []byte) int { return strings.Index(string(b), `"sig":"`) + 10 })
			case "another record's bundle":
				line, _ = trusted.signed(i, runlog.Passed)
				_, bundle = trusted.signed(i+100, runlog.Passed)
			case "not a bundle":
				line, _ = trusted.signed(i, runlog.Passed)
				bundle = []byte(`{"mediaType":"nothing"}`)
			}
			status, body := l.pushSigned(t, "weekly", line, bundle)
			if status != tc.status {
				t.Fatalf("%d %s; want %d", status, body, tc.status)
			}
			if tc.status != 202 {
				var eb wire.ErrorBody
				json.Unmarshal(body, &eb)
				if !strings.Contains(eb.FieldErrors["record.signature"], tc.reason) {
					t.Fatalf("reason %q; want it to say %q", eb.FieldErrors["record.signature"], tc.reason)
				}
				return
			}
			var a wire.Accepted
			json.Unmarshal(body, &a)
			run, err := l.store.Run(context.Background(), a.ID)
			if err != nil || string(run.Signature) != tc.state || !strings.HasPrefix(run.Signer, tc.signer) {
				t.Fatalf("stored signature %q signer %q (%v); want %q %q", run.Signature, run.Signer, err, tc.state, tc.signer)
			}
			_, page := l.do(t, "GET", "/runs/"+a.ID, nil, nil)
			if !strings.Contains(string(page), `data-signature="`+tc.state+`"`) {
				t.Errorf("the receipt page does not show %s", tc.state)
			}
			if tc.state == "verified" && !strings.Contains(string(page), `verified · <bdi class="signer">`) {
				t.Errorf("the receipt page does not show the signer of a verified run")
			}
		})
	}
	_, page := l.do(t, "GET", "/skills/weekly", nil, nil)
	for _, want := range []string{`data-signature="verified"`, `data-signature="untrusted"`, `data-signature="unsigned"`, `signed, not trusted`} {
		if !strings.Contains(string(page), want) {
			t.Errorf("the skill page lacks %s", want)
		}
	}
	if k, err := l.store.Skill(context.Background(), "weekly"); err != nil || k.Runs != 5 {
		t.Errorf("stored %d runs (%v); want the 5 accepted", k.Runs, err)
	}
}

// TestSignaturePolicy: without a verifier a signed record is stored as
// signed, not trusted (nobody is trusted); --require-signed refuses an
// unsigned one (400, field bundle); a verifier that fails (not a
// rejection) is 503, so the pusher tries again; a bundle that is not an
// object is a field error; /api/v1/info says what the ledger asks.
func TestSignaturePolicy(t *testing.T) {
	s := newSigner(t)
	line, bundle := s.signed(0, runlog.Passed)
	open := newTestLedger(t, false, 0)
	open.uploadSkill(t, "weekly")
	if status, body := open.pushSigned(t, "weekly", line, bundle); status != 202 {
		t.Fatalf("%d %s", status, body)
	}
	page, _ := open.store.Runs(context.Background(), "weekly", server.Page{Limit: 1})
	if len(page.Runs) != 1 || page.Runs[0].Signature != server.SignatureUntrusted {
		t.Errorf("without a verifier a signed run is stored %+v; want untrusted", page.Runs)
	}
	if status, body := open.pushSigned(t, "weekly", line, []byte(`"x"`)); status != 400 || !strings.Contains(string(body), `"bundle":"must be a Sigstore bundle (a JSON object), got a string"`) {
		t.Errorf("a bundle that is a string: %d %s", status, body)
	}
	_, info := open.do(t, "GET", wire.InfoPath, nil, map[string]string{"Authorization": ""})
	if string(info) != `{"keys":false,"verifiesSignatures":false,"requireSigned":false}`+"\n" {
		t.Errorf("info of an open ledger: %s", info)
	}

	strict := newTestLedgerWith(t, true, 0, func(c *server.Config) {
		c.RequireSigned = true
		c.VerifyRecord = func(context.Context, string, []byte, []byte) (server.Signature, error) {
			return server.Signature{}, errors.New("the verifier died")
		}
	})
	strict.uploadSkill(t, "weekly")
	if status, body := strict.pushRun(t, "weekly", line); status != 400 || !strings.Contains(string(body), `"bundle":"is required`) {
		t.Errorf("an unsigned record under --require-signed: %d %s", status, body)
	}
	if status, body := strict.pushSigned(t, "weekly", line, bundle); status != 503 {
		t.Errorf("a verifier failure: %d %s; want 503", status, body)
	}
	status, info := strict.do(t, "GET", wire.InfoPath, nil, map[string]string{"Authorization": ""})
	if status != 200 || string(info) != `{"keys":true,"verifiesSignatures":true,"requireSigned":true}`+"\n" {
		t.Errorf("info of a keyed, verifying ledger without a key: %d %s", status, info)
	}
}

// TestSignerShownInert: a signer's text (a certificate names whatever its
// issuer put in it) is shown escaped on the receipt and the skill page:
// markup as text, bidi controls as visible escapes.
func TestSignerShownInert(t *testing.T) {
	l := newTestLedger(t, false, 0)
	l.uploadSkill(t, "weekly")
	run := ledgertest.StoredRun("weekly", 0, runlog.Passed)
	run.Signature, run.Signer = server.SignatureVerified, "certificate <script>alert(1)</script>\u202eevil"
	id, _, err := l.store.AddRun(context.Background(), run)
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{"/runs/" + id, "/skills/weekly"} {
		_, page := l.do(t, "GET", path, nil, nil)
		if strings.Contains(string(page), "<script>") || strings.Contains(string(page), "\u202e") ||
			!strings.Contains(string(page), `verified · <bdi class="signer">certificate &lt;script&gt;alert(1)&lt;/script&gt;\u202eevil</bdi>`) {
			t.Errorf("%s does not show the signer inert", path)
		}
	}
}
