package attest_test

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sigstore/sigstore-go/pkg/sign"

	"github.com/reelier/reelier/lang/grammar"
	"github.com/reelier/reelier/replay/attest"
	"github.com/reelier/reelier/replay/runlog"
	"github.com/reelier/reelier/testkit/attesttest"
)

const skillSrc = `---
name: search
description: Search the graph
metadata:
  reelier-tools: |-
    search_nodes(query: string) in=1a2b3c4d out=89abcdef hints=readOnly
---

## Servers
- ` + "`memory`: `npx -y @modelcontextprotocol/server-memory`" + `

### Step 1 — Search
- intent: Find the node
- action: search_nodes {"query": "ada"}
- assert: status == 200
- bind: total = json.count
- effect: read
`

func record() *runlog.Record {
	r := &runlog.Record{
		Skill: "search", StartedAt: "2026-12-07T04:00:00.000Z", FinishedAt: "2026-12-07T04:00:01.000Z",
		Path: "search.skill.md", SkillSHA256: "x",
		Steps: []runlog.StepRecord{{N: 1, Title: "Search", Outcome: runlog.Passed, Ms: 3, Failures: []string{},
			Action:      &runlog.ActionRecord{Tool: "search_nodes", Args: json.RawMessage(`{"query":"ada"}`)},
			Observation: &runlog.Digest{SHA256: strings.Repeat("ab", 32), Size: 12, Status: 200}}},
		Provenance: &runlog.Provenance{Provider: "local"},
	}
	r.Finish(false)
	return r
}

func statement(t testing.TB) []byte {
	t.Helper()
	sk, diags := grammar.Parse("search.skill.md", []byte(skillSrc))
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	st, err := attest.BuildStatement(attest.Input{Record: record(), Skill: sk, Src: []byte(skillSrc), Name: "search.skill.md", Version: "v1.2.3"})
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// keyPair makes a key of typ and returns the loaded private key and the
// public key file.
func keyPair(t testing.TB, typ string) (*attest.Key, string) {
	t.Helper()
	priv, pub, err := attest.GenerateKey(typ)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	kp, pp := filepath.Join(dir, "k.key"), filepath.Join(dir, "k.pub")
	if err := os.WriteFile(kp, priv, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(pp, pub, 0o644); err != nil {
		t.Fatal(err)
	}
	k, err := attest.LoadKey(kp)
	if err != nil {
		t.Fatal(err)
	}
	return k, pp
}

func TestStatementContents(t *testing.T) {
	st, err := attest.ParseStatement(statement(t))
	if err != nil {
		t.Fatal(err)
	}
	p := st.Predicate
	checks := []struct {
		name      string
		got, want any
	}{
		{"subject", st.Subject, "search.skill.md"},
		{"verdict", p.Verdict, runlog.VerdictPassed},
		{"steps", len(p.Steps), 1},
		{"outcome", p.Steps[0].Outcome, runlog.Passed},
		{"tool", p.Steps[0].Tool, "search_nodes"},
		{"action digest", p.Steps[0].ActionSHA256, attest.ActionDigest(&runlog.ActionRecord{Tool: "search_nodes", Args: json.RawMessage(`{"query":"ada"}`)})},
		{"observation", p.Steps[0].Observation.SHA256, strings.Repeat("ab", 32)},
		{"asserts", strings.Join(p.Steps[0].Asserts, ";"), "status == 200"},
		{"binds", strings.Join(p.Steps[0].Binds, ";"), "total = json.count"},
		{"tools", len(p.Tools), 1},
		{"tool input digest", p.Tools[0].Input, "1a2b3c4d"},
		{"servers", len(p.Servers), 1},
		{"server target", p.Servers[0].Target, "npx"},
		{"server kind", p.Servers[0].Kind, "command"},
		{"provenance", p.Provenance.Provider, "local"},
		{"version", p.Reelier, "v1.2.3"},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("%s: got %v, want %v", c.name, c.got, c.want)
		}
	}
}

func TestRoundTripKey(t *testing.T) {
	for _, typ := range []string{attest.Ed25519, attest.ECDSAP256} {
		t.Run(typ, func(t *testing.T) {
			k, pubPath := keyPair(t, typ)
			b, err := attest.Sign(statement(t), k, sign.BundleOptions{})
			if err != nil {
				t.Fatal(err)
			}
			pub, err := attest.LoadPublicKey(pubPath)
			if err != nil {
				t.Fatal(err)
			}
			v, err := attest.Verify(b, attest.Trust{Key: pub})
			if err != nil {
				t.Fatal(err)
			}
			if v.Statement.Predicate.Verdict != runlog.VerdictPassed || !strings.HasPrefix(v.Signer, "key ") {
				t.Fatalf("verified %+v", v)
			}
			if err := attest.CheckSubject(v.Statement, "search.skill.md", []byte(skillSrc)); err != nil {
				t.Fatal(err)
			}
			err = attest.CheckSubject(v.Statement, "search.skill.md", []byte(skillSrc+"\n"))
			var f *attest.Failure
			if !errors.As(err, &f) || !strings.Contains(f.Reason, "changed since the receipt was signed") {
				t.Fatalf("changed skill: %v", err)
			}
		})
	}
}

// editPayload rewrites the signed statement inside a bundle.
func editPayload(t *testing.T, b []byte, edit func(st map[string]any)) []byte {
	t.Helper()
	var bundle map[string]any
	if err := json.Unmarshal(b, &bundle); err != nil {
		t.Fatal(err)
	}
	env := bundle["dsseEnvelope"].(map[string]any)
	raw, err := base64.StdEncoding.DecodeString(env["payload"].(string))
	if err != nil {
		t.Fatal(err)
	}
	var st map[string]any
	if err := json.Unmarshal(raw, &st); err != nil {
		t.Fatal(err)
	}
	edit(st)
	raw, _ = json.Marshal(st)
	env["payload"] = base64.StdEncoding.EncodeToString(raw)
	out, _ := json.Marshal(bundle)
	return out
}

func editBundle(t *testing.T, b []byte, edit func(bundle map[string]any)) []byte {
	t.Helper()
	var bundle map[string]any
	if err := json.Unmarshal(b, &bundle); err != nil {
		t.Fatal(err)
	}
	edit(bundle)
	out, _ := json.Marshal(bundle)
	return out
}

func pred(st map[string]any) map[string]any { return st["predicate"].(map[string]any) }
func step(st map[string]any) map[string]any {
	return pred(st)["steps"].([]any)[0].(map[string]any)
}

func TestTamper(t *testing.T) {
	k, pubPath := keyPair(t, attest.Ed25519)
	good, err := attest.Sign(statement(t), k, sign.BundleOptions{})
	if err != nil {
		t.Fatal(err)
	}
	pub, _ := attest.LoadPublicKey(pubPath)
	_, otherPub := keyPair(t, attest.Ed25519)
	other, _ := attest.LoadPublicKey(otherPub)
	cases := []struct {
		name   string
		bundle []byte
		key    any
		reason string
	}{
		{"verdict", editPayload(t, good, func(st map[string]any) { pred(st)["verdict"] = "failed" }), pub, "signature not verified"},
		{"step outcome", editPayload(t, good, func(st map[string]any) { step(st)["outcome"] = "unchecked" }), pub, "signature not verified"},
		{"action digest", editPayload(t, good, func(st map[string]any) { step(st)["actionSha256"] = strings.Repeat("0", 64) }), pub, "signature not verified"},
		{"observation digest", editPayload(t, good, func(st map[string]any) {
			step(st)["observation"].(map[string]any)["sha256"] = strings.Repeat("0", 64)
		}), pub, "signature not verified"},
		{"subject", editPayload(t, good, func(st map[string]any) {
			st["subject"].([]any)[0].(map[string]any)["digest"] = map[string]any{"sha256": strings.Repeat("1", 64)}
		}), pub, "signature not verified"},
		{"signature", editBundle(t, good, func(b map[string]any) {
			sig := b["dsseEnvelope"].(map[string]any)["signatures"].([]any)[0].(map[string]any)
			raw, _ := base64.StdEncoding.DecodeString(sig["sig"].(string))
			raw[0] ^= 1
			sig["sig"] = base64.StdEncoding.EncodeToString(raw)
		}), pub, "signature not verified"},
		{"another key", good, other, "signature not verified"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v, err := attest.Verify(c.bundle, attest.Trust{Key: c.key})
			var f *attest.Failure
			if !errors.As(err, &f) || !strings.Contains(f.Reason, c.reason) {
				t.Fatalf("got %+v, %v; want a failure saying %q", v, err, c.reason)
			}
		})
	}
}

func TestBadInput(t *testing.T) {
	k, pubPath := keyPair(t, attest.ECDSAP256)
	good, err := attest.Sign(statement(t), k, sign.BundleOptions{})
	if err != nil {
		t.Fatal(err)
	}
	pub, _ := attest.LoadPublicKey(pubPath)
	cases := []struct {
		name   string
		bundle []byte
		want   string
	}{
		{"truncated", good[:len(good)/2], "not a Sigstore bundle"},
		{"not JSON", []byte("PASSED\n"), "not a Sigstore bundle"},
		{"empty", nil, "not a Sigstore bundle"},
		{"signed twice", editBundle(t, good, func(b map[string]any) {
			env := b["dsseEnvelope"].(map[string]any)
			sigs := env["signatures"].([]any)
			env["signatures"] = append(sigs, sigs[0])
		}), "signed exactly once"},
		{"payload type", editBundle(t, good, func(b map[string]any) {
			b["dsseEnvelope"].(map[string]any)["payloadType"] = "text/plain"
		}), "payload type"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := attest.Verify(c.bundle, attest.Trust{Key: pub})
			var f *attest.Failure
			if err == nil || errors.As(err, &f) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v; want bad input saying %q", err, c.want)
			}
		})
	}
}

func writePEM(t *testing.T, typ string, der []byte) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "key.pem")
	if err := os.WriteFile(p, pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestBadKeys(t *testing.T) {
	rsaKey, _ := rsa.GenerateKey(rand.Reader, 1024)
	p384, _ := ecdsa.GenerateKey(elliptic.P384(), rand.Reader)
	rsaPriv, _ := x509.MarshalPKCS8PrivateKey(rsaKey)
	rsaPub, _ := x509.MarshalPKIXPublicKey(rsaKey.Public())
	p384Priv, _ := x509.MarshalPKCS8PrivateKey(p384)
	p384Pub, _ := x509.MarshalPKIXPublicKey(p384.Public())
	_, pub, _ := attest.GenerateKey(attest.Ed25519)
	pubFile := filepath.Join(t.TempDir(), "k.pub")
	os.WriteFile(pubFile, pub, 0o644)
	garbage := filepath.Join(t.TempDir(), "garbage")
	os.WriteFile(garbage, []byte("not a key"), 0o600)
	cases := []struct {
		name, path string
		public     bool
		want       string
	}{
		{"missing private", filepath.Join(t.TempDir(), "none.key"), false, "no such file"},
		{"missing public", filepath.Join(t.TempDir(), "none.pub"), true, "no such file"},
		{"not PEM", garbage, false, "not a PEM key file"},
		{"public as private", pubFile, false, `holds a "PUBLIC KEY" PEM block`},
		{"RSA private", writePEM(t, "PRIVATE KEY", rsaPriv), false, "Ed25519 or ECDSA P-256"},
		{"RSA public", writePEM(t, "PUBLIC KEY", rsaPub), true, "Ed25519 or ECDSA P-256"},
		{"P-384 private", writePEM(t, "PRIVATE KEY", p384Priv), false, "P-384"},
		{"P-384 public", writePEM(t, "PUBLIC KEY", p384Pub), true, "P-384"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var err error
			if c.public {
				_, err = attest.LoadPublicKey(c.path)
			} else {
				_, err = attest.LoadKey(c.path)
			}
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v, want %q", err, c.want)
			}
		})
	}
	if _, _, err := attest.GenerateKey("rsa"); err == nil {
		t.Fatal("GenerateKey(rsa) made a key")
	}
}

func TestKeyless(t *testing.T) {
	ca, err := attesttest.New()
	if err != nil {
		t.Fatal(err)
	}
	const id, issuer = "https://github.com/acme/app/.github/workflows/nightly.yml@refs/heads/main", "https://token.actions.githubusercontent.com"
	stmt := statement(t)
	stamped, err := ca.Sign(stmt, id, issuer, attesttest.Options{Timestamp: true})
	if err != nil {
		t.Fatal(err)
	}
	plain, err := ca.Sign(stmt, id, issuer, attesttest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	expired, err := ca.Sign(stmt, id, issuer, attesttest.Options{NotBefore: time.Now().Add(-time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	expiredStamped, err := ca.Sign(stmt, id, issuer, attesttest.Options{NotBefore: time.Now().Add(-time.Hour), Timestamp: true})
	if err != nil {
		t.Fatal(err)
	}
	// The trusted root goes through its file form, as verify reads it.
	rootJSON, err := ca.RootJSON()
	if err != nil {
		t.Fatal(err)
	}
	rootFile := filepath.Join(t.TempDir(), "trusted_root.json")
	os.WriteFile(rootFile, rootJSON, 0o644)
	tr, err := attest.LoadTrustedRoot(rootFile)
	if err != nil {
		t.Fatal(err)
	}
	otherCA, _ := attesttest.New()
	k, _ := keyPair(t, attest.Ed25519)
	keyed, _ := attest.Sign(stmt, k, sign.BundleOptions{})
	cases := []struct {
		name, identity, issuer string
		bundle                 []byte
		root                   bool
		want                   string // "" verified
	}{
		{"timestamped", id, issuer, stamped, true, ""},
		{"no timestamp, certificate still valid", id, issuer, plain, true, ""},
		{"wrong identity", "https://github.com/evil/app/.github/workflows/x.yml@refs/heads/main", issuer, stamped, true, "signature not verified"},
		{"wrong issuer", id, "https://accounts.google.com", stamped, true, "signature not verified"},
		{"expired certificate", id, issuer, expired, true, "signature not verified"},
		{"timestamp after the certificate expired", id, issuer, expiredStamped, true, "signature not verified"},
		{"another root", id, issuer, stamped, false, "signature not verified"},
		{"signed with a key", id, issuer, keyed, true, "signed with a key"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			trust := attest.Trust{Identity: c.identity, Issuer: c.issuer, Root: tr}
			if !c.root {
				trust.Root = otherCA.Root()
			}
			v, err := attest.Verify(c.bundle, trust)
			if c.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				if !strings.Contains(v.Signer, id) {
					t.Fatalf("signer %q", v.Signer)
				}
				return
			}
			var f *attest.Failure
			if !errors.As(err, &f) || !strings.Contains(f.Reason, c.want) {
				t.Fatalf("got %+v, %v; want a failure saying %q", v, err, c.want)
			}
			t.Log(f.Reason)
		})
	}
	// A keyless bundle given to --key is refused with its reason.
	_, pubPath := keyPair(t, attest.Ed25519)
	pub, _ := attest.LoadPublicKey(pubPath)
	if _, err := attest.Verify(stamped, attest.Trust{Key: pub}); err == nil || !strings.Contains(err.Error(), "signed with a certificate") {
		t.Fatalf("keyless bundle with --key: %v", err)
	}
}

// TestWriteBundle: one bundle per record, never written over.
func TestWriteBundle(t *testing.T) {
	p, err := attest.BuildPredicate(attest.Input{Record: record()})
	if err != nil {
		t.Fatal(err)
	}
	dir := attest.BundleDir(t.TempDir(), "../search")
	if strings.Contains(filepath.Base(dir), "/") || !strings.HasSuffix(dir, ".._search.bundles") {
		t.Fatalf("bundle dir %q", dir)
	}
	name := attest.BundleName(p)
	if want := "20261207T040000000Z-" + p.RecordSHA256[:12] + ".sigstore.json"; name != want {
		t.Fatalf("bundle name %q, want %q", name, want)
	}
	path, err := attest.WriteBundle(dir, name, []byte("first"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := attest.WriteBundle(dir, name, []byte("second")); err == nil || !strings.Contains(err.Error(), "signed already") {
		t.Fatalf("a second bundle for the record: %v", err)
	}
	if b, _ := os.ReadFile(path); string(b) != "first" {
		t.Fatalf("the bundle was overwritten: %q", b)
	}
}
