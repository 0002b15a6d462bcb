package attest

import (
	"crypto"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/sigstore/sigstore-go/pkg/bundle"
	"github.com/sigstore/sigstore-go/pkg/root"
	"github.com/sigstore/sigstore-go/pkg/verify"
	"github.com/sigstore/sigstore/pkg/signature"
)

// MaxBundle bounds a bundle file read.
const MaxBundle = 16 << 20

// Trust is what a bundle is verified against: a public key, or a
// certificate identity and issuer under a trusted root.
type Trust struct {
	// Key is the signer's public key (Ed25519 or ECDSA P-256).
	Key crypto.PublicKey
	// Identity and Issuer are the certificate's expected subject
	// alternative name and OIDC issuer; Root the trusted root its chain
	// must end in.
	Identity, Issuer string
	Root             root.TrustedMaterial
}

// Verified is a bundle whose signature held.
type Verified struct {
	Statement *Statement
	// Signer says who signed: "key <fingerprint>", or the certificate's
	// identity and issuer.
	Signer string
}

// Failure is a verification that did not hold: the bundle is well formed,
// but what it claims is not so (exit status 1). Any other error from
// Verify is bad input (exit status 2).
type Failure struct{ Reason string }

func (f *Failure) Error() string { return f.Reason }

func failf(format string, args ...any) error {
	return &Failure{Reason: fmt.Sprintf(format, args...)}
}

// ReadBundle reads a bundle file, at most MaxBundle bytes.
func ReadBundle(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxBundle+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	if len(data) > MaxBundle {
		return nil, fmt.Errorf("%s: more than %d bytes: not a receipt bundle", path, MaxBundle)
	}
	return data, nil
}

// ParseBundle reads a Sigstore bundle that holds one DSSE envelope with
// one signature over an in-toto statement, and returns it with the
// envelope's payload. It checks the form only; Verify checks the
// signature.
func ParseBundle(data []byte) (*bundle.Bundle, []byte, error) {
	if len(data) > MaxBundle {
		return nil, nil, fmt.Errorf("bundle is %d bytes, more than the %d allowed", len(data), MaxBundle)
	}
	b := &bundle.Bundle{}
	if err := b.UnmarshalJSON(data); err != nil {
		return nil, nil, fmt.Errorf("not a Sigstore bundle: %v", err)
	}
	env := b.GetDsseEnvelope()
	switch {
	case env == nil:
		return nil, nil, errors.New("the bundle holds no DSSE envelope: it is not a signed receipt")
	case env.GetPayloadType() != PayloadType:
		return nil, nil, fmt.Errorf("the envelope's payload type is %q, not an in-toto statement (%s)", env.GetPayloadType(), PayloadType)
	case len(env.GetSignatures()) != 1:
		return nil, nil, fmt.Errorf("the envelope holds %d signatures; a receipt is signed exactly once", len(env.GetSignatures()))
	}
	return b, env.GetPayload(), nil
}

// Verify checks a bundle's signature against trust, offline, and returns
// the statement it signs. It does not look at the skill file: Subject
// does that.
func Verify(data []byte, trust Trust) (*Verified, error) {
	b, payload, err := ParseBundle(data)
	if err != nil {
		return nil, err
	}
	var v *verify.Verifier
	var policy []verify.PolicyOption
	switch {
	case trust.Key != nil:
		if b.GetVerificationMaterial().GetPublicKey() == nil {
			return nil, failf("the bundle was signed with a certificate, not a key: verify it with --certificate-identity, --certificate-oidc-issuer and --trusted-root")
		}
		sv, err := signature.LoadVerifier(trust.Key, crypto.SHA256)
		if err != nil {
			return nil, err
		}
		if _, ok := sv.(*signature.ED25519Verifier); !ok {
			if _, ok := sv.(*signature.ECDSAVerifier); !ok {
				return nil, fmt.Errorf("a %T key cannot verify a receipt", trust.Key)
			}
		}
		material := root.NewTrustedPublicKeyMaterial(func(string) (root.TimeConstrainedVerifier, error) {
			return root.NewExpiringKey(sv, time.Time{}, time.Time{}), nil
		})
		if v, err = verify.NewVerifier(material, verify.WithCurrentTime()); err != nil {
			return nil, err
		}
		policy = append(policy, verify.WithKey())
	case trust.Root != nil:
		if b.GetVerificationMaterial().GetPublicKey() != nil {
			return nil, failf("the bundle was signed with a key, not a certificate: verify it with --key")
		}
		id, err := verify.NewShortCertificateIdentity(trust.Issuer, "", trust.Identity, "")
		if err != nil {
			return nil, err
		}
		var opts []verify.VerifierOption
		tlog, _ := b.TlogEntries()
		stamps, _ := b.Timestamps()
		if len(tlog) > 0 {
			opts = append(opts, verify.WithTransparencyLog(1))
		}
		if len(tlog)+len(stamps) > 0 {
			opts = append(opts, verify.WithObserverTimestamps(1))
		} else {
			// No observer saw when it was signed: the certificate must be
			// valid now.
			opts = append(opts, verify.WithCurrentTime())
		}
		if v, err = verify.NewVerifier(trust.Root, opts...); err != nil {
			return nil, err
		}
		policy = append(policy, verify.WithCertificateIdentity(id))
	default:
		return nil, errors.New("nothing to verify against: give a public key, or a certificate identity, issuer and trusted root")
	}
	res, err := v.Verify(b, verify.NewPolicy(verify.WithoutArtifactUnsafe(), policy...))
	if err != nil {
		reason := err.Error()
		if vc, cerr := b.VerificationContent(); cerr == nil && vc.Certificate() != nil {
			c := vc.Certificate()
			reason += fmt.Sprintf(" (the certificate is valid from %s to %s", c.NotBefore.UTC().Format(time.RFC3339), c.NotAfter.UTC().Format(time.RFC3339))
			if tl, _ := b.TlogEntries(); len(tl) == 0 {
				if ts, _ := b.Timestamps(); len(ts) == 0 {
					reason += "; the bundle has no timestamp, so it must be valid now"
				}
			}
			reason += ")"
		}
		return nil, failf("signature not verified: %s", reason)
	}
	st, err := ParseStatement(payload)
	if err != nil {
		// Signed, but not a receipt Reelier can read.
		return nil, failf("%v", err)
	}
	out := &Verified{Statement: st}
	if c := res.Signature.Certificate; c != nil {
		out.Signer = fmt.Sprintf("certificate %s (issuer %s)", c.SubjectAlternativeName, c.Extensions.Issuer)
	} else {
		fp, err := Fingerprint(trust.Key)
		if err != nil {
			return nil, err
		}
		out.Signer = "key " + fp
	}
	return out, nil
}

// CheckSubject checks that the skill file's bytes still have the digest
// the statement signs.
func CheckSubject(st *Statement, path string, src []byte) error {
	sum := sha256.Sum256(src)
	if got := hex.EncodeToString(sum[:]); !strings.EqualFold(got, st.SubjectSHA256) {
		return failf("%s changed since the receipt was signed: sha256 %s on disk, %s signed", path, got, st.SubjectSHA256)
	}
	return nil
}

// LoadTrustedRoot reads a Sigstore trusted_root.json.
func LoadTrustedRoot(path string) (*root.TrustedRoot, error) {
	data, err := ReadBundle(path)
	if err != nil {
		return nil, err
	}
	tr, err := root.NewTrustedRootFromJSON(data)
	if err != nil {
		return nil, fmt.Errorf("%s: not a Sigstore trusted root: %v", path, err)
	}
	return tr, nil
}
