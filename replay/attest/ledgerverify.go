package attest

import (
	"bufio"
	"bytes"
	"crypto"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/sigstore/sigstore-go/pkg/bundle"
	"github.com/sigstore/sigstore-go/pkg/root"
	"github.com/sigstore/sigstore/pkg/signature"

	"github.com/reelier/reelier/internal/exitstatus"
	"github.com/reelier/reelier/internal/termtext"
	"github.com/reelier/reelier/ledger/wire"
	"github.com/reelier/reelier/replay/runlog"
)

// LedgerTrust is what a ledger trusts: signing keys, and certificate
// identities (each with its OIDC issuer) under a trusted root.
type LedgerTrust struct {
	Keys       []crypto.PublicKey
	Identities []Identity
	Root       root.TrustedMaterial
}

// Identity is a trusted certificate identity and its issuer.
type Identity struct{ Identity, Issuer string }

// repeated is a flag that may be given more than once.
type repeated []string

func (r *repeated) String() string     { return strings.Join(*r, ",") }
func (r *repeated) Set(v string) error { *r = append(*r, v); return nil }

// ledgerVerifyMain is `reelier-attest ledger-verify`: the ledger's
// verifier, one long-lived child of `reelier ledger serve` speaking JSON
// lines (wire.VerifyRequest in, wire.VerifyAnswer out; the first answer
// says ready).
//
//	reelier-attest ledger-verify [--trust-key PUB]… [--trust-identity ID --trust-issuer ISSUER]… [--trusted-root FILE]
//
// Each --trust-identity pairs with the --trust-issuer given in the same
// position, or with the only one given.
func ledgerVerifyMain(args []string, stdin io.Reader, stdout io.Writer) error {
	var keys, ids, issuers repeated
	var rootFile string
	fs := flag.NewFlagSet("ledger-verify", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Var(&keys, "trust-key", "")
	fs.Var(&ids, "trust-identity", "")
	fs.Var(&issuers, "trust-issuer", "")
	fs.StringVar(&rootFile, "trusted-root", "", "")
	if err := fs.Parse(args); err != nil {
		return exitstatus.Usagef("ledger-verify: %v", err)
	}
	if fs.NArg() > 0 {
		return exitstatus.Usagef("ledger-verify takes no arguments, got %q", fs.Args())
	}
	trust, err := loadLedgerTrust(keys, ids, issuers, rootFile)
	if err != nil {
		return err
	}
	return ServeLedgerVerify(trust, stdin, stdout)
}

// loadLedgerTrust reads the keys and the trusted root the flags name.
func loadLedgerTrust(keys, ids, issuers []string, rootFile string) (*LedgerTrust, error) {
	t := &LedgerTrust{}
	for _, k := range keys {
		pub, err := LoadPublicKey(k)
		if err != nil {
			return nil, exitstatus.Usagef("--trust-key: %s", termtext.Line(err.Error()))
		}
		t.Keys = append(t.Keys, pub)
	}
	switch {
	case len(ids) == 0 && len(issuers) > 0:
		return nil, exitstatus.Usagef("--trust-issuer needs --trust-identity")
	case len(ids) > 0 && len(issuers) != len(ids) && len(issuers) != 1:
		return nil, exitstatus.Usagef("each --trust-identity needs its --trust-issuer (or give one --trust-issuer for all): %d identities, %d issuers", len(ids), len(issuers))
	case len(ids) > 0 && rootFile == "":
		return nil, exitstatus.Usagef("--trust-identity needs --trusted-root FILE (a Sigstore trusted_root.json) to check certificates against")
	case len(ids) == 0 && rootFile != "":
		return nil, exitstatus.Usagef("--trusted-root is only for --trust-identity: give the identities it vouches for")
	}
	for i, id := range ids {
		iss := issuers[0]
		if len(issuers) > 1 {
			iss = issuers[i]
		}
		if id == "" || iss == "" {
			return nil, exitstatus.Usagef("--trust-identity and --trust-issuer must not be empty")
		}
		t.Identities = append(t.Identities, Identity{Identity: id, Issuer: iss})
	}
	if rootFile != "" {
		tr, err := LoadTrustedRoot(rootFile)
		if err != nil {
			return nil, exitstatus.Usagef("--trusted-root: %s", termtext.Line(err.Error()))
		}
		t.Root = tr
	}
	return t, nil
}

// ServeLedgerVerify answers verify requests, one JSON line each, until
// stdin ends; it says ready first. A line longer than
// wire.MaxVerifyLine ends it with an error (the ledger starts another).
func ServeLedgerVerify(t *LedgerTrust, stdin io.Reader, stdout io.Writer) error {
	out := bufio.NewWriter(stdout)
	enc := json.NewEncoder(out)
	enc.SetEscapeHTML(false)
	send := func(a wire.VerifyAnswer) error {
		if err := enc.Encode(a); err != nil {
			return err
		}
		return out.Flush()
	}
	if err := send(wire.VerifyAnswer{Ready: true}); err != nil {
		return err
	}
	sc := bufio.NewScanner(stdin)
	sc.Buffer(make([]byte, 0, 64<<10), wire.MaxVerifyLine)
	for sc.Scan() {
		var req wire.VerifyRequest
		if err := json.Unmarshal(sc.Bytes(), &req); err != nil {
			if err := send(wire.VerifyAnswer{Reject: "the ledger sent a request that is not JSON: " + err.Error()}); err != nil {
				return err
			}
			continue
		}
		a := t.Check(req.Skill, req.Record, req.Bundle)
		a.ID = req.ID
		if err := send(a); err != nil {
			return err
		}
	}
	if err := sc.Err(); err != nil {
		return exitstatus.Usagef("ledger-verify: reading a request: %v", err)
	}
	return nil
}

// Check decides what a ledger does with a record pushed with a bundle:
// Reject set when the bundle is not a receipt, is not this record's, or
// its signature does not hold for the key or certificate it names;
// otherwise State verified (a trusted key or identity signed it) or
// untrusted, with the signer.
func (t *LedgerTrust) Check(skill string, record, bundleJSON []byte) wire.VerifyAnswer {
	reject := func(format string, args ...any) wire.VerifyAnswer {
		return wire.VerifyAnswer{Reject: fmt.Sprintf(format, args...)}
	}
	b, payload, err := ParseBundle(bundleJSON)
	if err != nil {
		return reject("the bundle is not a signed receipt: %v", err)
	}
	st, err := ParseStatement(payload)
	if err != nil {
		return reject("the bundle does not sign a Reelier receipt: %v", err)
	}
	if err := MatchRecord(st, skill, record); err != nil {
		return reject("%v", err)
	}
	if pk := b.GetVerificationMaterial().GetPublicKey(); pk != nil {
		hint := string(pk.GetHint())
		for _, k := range t.Keys {
			v, err := Verify(bundleJSON, Trust{Key: k})
			if err == nil {
				return wire.VerifyAnswer{State: wire.SignatureVerified, Signer: v.Signer}
			}
			if fp, _ := Fingerprint(k); fp == hint {
				return reject("the signature does not verify with the trusted key %s it names: %v", fp, err)
			}
		}
		signer := "an unnamed key"
		if hint != "" {
			signer = "key " + hint
		}
		return wire.VerifyAnswer{State: wire.SignatureUntrusted, Signer: signer}
	}
	for _, id := range t.Identities {
		v, err := Verify(bundleJSON, Trust{Identity: id.Identity, Issuer: id.Issuer, Root: t.Root})
		if err == nil {
			return wire.VerifyAnswer{State: wire.SignatureVerified, Signer: v.Signer}
		}
	}
	signer, err := selfSigned(b)
	if err != nil {
		return reject("%v", err)
	}
	return wire.VerifyAnswer{State: wire.SignatureUntrusted, Signer: signer}
}

// selfSigned checks a certificate-signed bundle against the certificate
// it carries (not against any root): an envelope changed after signing
// fails here whoever signed it. It returns who the certificate names.
func selfSigned(b *bundle.Bundle) (string, error) {
	vc, err := b.VerificationContent()
	if err != nil || vc.Certificate() == nil {
		return "", errors.New("the bundle names neither a key nor a certificate: it is not a signed receipt")
	}
	cert := vc.Certificate()
	env := b.GetDsseEnvelope()
	sv, err := signature.LoadVerifier(cert.PublicKey, crypto.SHA256)
	if err != nil {
		return "", fmt.Errorf("the bundle's certificate holds a key that cannot verify a receipt: %v", err)
	}
	pae := dssePAE(env.GetPayloadType(), env.GetPayload())
	if err := sv.VerifySignature(bytes.NewReader(env.GetSignatures()[0].GetSig()), bytes.NewReader(pae)); err != nil {
		return "", fmt.Errorf("the envelope's signature does not match the certificate in the bundle (it was changed after signing): %v", err)
	}
	names := append([]string{}, cert.EmailAddresses...)
	for _, u := range cert.URIs {
		names = append(names, u.String())
	}
	who := strings.Join(names, ", ")
	if who == "" {
		who = cert.Subject.String()
	}
	return "certificate " + who, nil
}

// dssePAE is DSSE's pre-authentication encoding, what the signature
// covers.
func dssePAE(payloadType string, payload []byte) []byte {
	return fmt.Appendf(nil, "DSSEv1 %d %s %d %s", len(payloadType), payloadType, len(payload), payload)
}

// MatchRecord checks that a receipt's statement is about record: the
// SHA-256 of its history line, its skill, verdict and each step's
// outcome, action and observation digests.
func MatchRecord(st *Statement, skill string, record []byte) error {
	p := &st.Predicate
	if got := wire.RecordSHA256(record); got != p.RecordSHA256 {
		return fmt.Errorf("the record is not the one the bundle signs: its sha256 is %s, the bundle signs %s (a byte of the record or of the bundle changed)", got, p.RecordSHA256)
	}
	if p.Skill != skill {
		return fmt.Errorf("the bundle is a receipt of skill %q, the record was pushed for %q", termtext.Line(p.Skill), termtext.Line(skill))
	}
	var rec runlog.Record
	if err := json.Unmarshal(record, &rec); err != nil {
		return fmt.Errorf("the record is not a run record: %v", err)
	}
	if v := rec.RunVerdict(); v != p.Verdict {
		return fmt.Errorf("the record's verdict is %q, the bundle signs %q", v, p.Verdict)
	}
	if len(rec.Steps) != len(p.Steps) {
		return fmt.Errorf("the record has %d steps, the bundle signs %d", len(rec.Steps), len(p.Steps))
	}
	for i, s := range rec.Steps {
		ps := p.Steps[i]
		action := ""
		if s.Action != nil {
			action = ActionDigest(s.Action)
		}
		var obs, pobs string
		if s.Observation != nil {
			obs = s.Observation.SHA256
		}
		if ps.Observation != nil {
			pobs = ps.Observation.SHA256
		}
		switch {
		case s.N != ps.N, s.Outcome != ps.Outcome:
			return fmt.Errorf("step %d of the record is %s, the bundle signs step %d %s", s.N, s.Outcome, ps.N, ps.Outcome)
		case action != ps.ActionSHA256:
			return fmt.Errorf("step %d's action digest is %s, the bundle signs %s", s.N, action, ps.ActionSHA256)
		case obs != pobs:
			return fmt.Errorf("step %d's observation digest is %s, the bundle signs %s", s.N, obs, pobs)
		}
	}
	return nil
}
