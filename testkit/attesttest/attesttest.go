// Package attesttest is test support for signed receipts: a certificate
// authority and a timestamp authority made on the spot (sigstore-go's
// testing/ca helpers), the trusted root that names them, and keyless
// signing with a short-lived certificate they issue — the way a CI
// signs through Fulcio, without the network.
package attesttest

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"fmt"
	"time"

	protobundle "github.com/sigstore/protobuf-specs/gen/pb-go/bundle/v1"
	protocommon "github.com/sigstore/protobuf-specs/gen/pb-go/common/v1"
	"github.com/sigstore/sigstore-go/pkg/root"
	"github.com/sigstore/sigstore-go/pkg/sign"
	"github.com/sigstore/sigstore-go/pkg/testing/ca"
	"google.golang.org/protobuf/encoding/protojson"

	"github.com/reelier/reelier/replay/attest"
)

// CA is a certificate authority and a timestamp authority.
type CA struct {
	fulcio *root.FulcioCertificateAuthority
	key    *ecdsa.PrivateKey
	tsa    *ca.VirtualSigstore
	root   *root.TrustedRoot
}

// New makes a CA valid from five hours ago to an hour from now.
func New() (*CA, error) {
	rootCert, rootKey, err := ca.GenerateRootCa()
	if err != nil {
		return nil, err
	}
	inter, interKey, err := ca.GenerateFulcioIntermediate(rootCert, rootKey)
	if err != nil {
		return nil, err
	}
	vs, err := ca.NewVirtualSigstore()
	if err != nil {
		return nil, err
	}
	c := &CA{fulcio: &root.FulcioCertificateAuthority{
		Root: rootCert, Intermediates: []*x509.Certificate{inter},
		ValidityPeriodStart: time.Now().Add(-5 * time.Hour), ValidityPeriodEnd: time.Now().Add(time.Hour),
		URI: "https://fulcio.test.invalid",
	}, key: interKey, tsa: vs}
	c.root, err = root.NewTrustedRoot(root.TrustedRootMediaType01, []root.CertificateAuthority{c.fulcio}, nil, vs.TimestampingAuthorities(), nil)
	if err != nil {
		return nil, err
	}
	return c, nil
}

// Root is the trusted root naming the CA and the timestamp authority.
func (c *CA) Root() *root.TrustedRoot { return c.root }

// RootJSON is Root as a trusted_root.json file holds it.
func (c *CA) RootJSON() ([]byte, error) { return c.root.MarshalJSON() }

// Options say how a keyless signature is made.
type Options struct {
	// NotBefore starts the certificate's ten minutes (now when zero).
	NotBefore time.Time
	// Timestamp adds the timestamp authority's RFC 3161 timestamp of the
	// signature, as a CI's signing does.
	Timestamp bool
}

// Sign signs statement keyless: a fresh key, a certificate for identity
// and issuer, and the bundle's JSON.
func (c *CA) Sign(statement []byte, identity, issuer string, o Options) ([]byte, error) {
	if o.NotBefore.IsZero() {
		o.NotBefore = time.Now().Add(-time.Minute)
	}
	priv, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	cert, err := ca.GenerateLeafCert(identity, issuer, o.NotBefore, priv, c.fulcio.Intermediates[0], c.key)
	if err != nil {
		return nil, err
	}
	key, err := attest.NewKey(priv)
	if err != nil {
		return nil, err
	}
	b, err := attest.SignBundle(statement, key, sign.BundleOptions{CertificateProvider: certProvider(cert.Raw)})
	if err != nil {
		return nil, err
	}
	if o.Timestamp {
		sigs := b.GetDsseEnvelope().GetSignatures()
		if len(sigs) != 1 {
			return nil, fmt.Errorf("bundle holds %d signatures", len(sigs))
		}
		ts, err := c.tsa.TimestampResponse(sigs[0].GetSig())
		if err != nil {
			return nil, err
		}
		vm := b.GetVerificationMaterial()
		vm.TimestampVerificationData = &protobundle.TimestampVerificationData{
			Rfc3161Timestamps: []*protocommon.RFC3161SignedTimestamp{{SignedTimestamp: ts}},
		}
	}
	return protojson.Marshal(b)
}

// certProvider hands out one certificate.
type certProvider []byte

func (p certProvider) GetCertificate(context.Context, sign.Keypair, *sign.CertificateProviderOptions) ([]byte, error) {
	return p, nil
}

var _ crypto.Signer = (*ecdsa.PrivateKey)(nil)
