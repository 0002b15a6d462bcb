package attest

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/pem"
	"fmt"

	protocommon "github.com/sigstore/protobuf-specs/gen/pb-go/common/v1"
	"github.com/sigstore/sigstore/pkg/signature"

	"github.com/reelier/reelier/replay/signkey"
)

// The key types, as signkey names them.
const (
	Ed25519   = signkey.Ed25519
	ECDSAP256 = signkey.ECDSAP256
)

// GenerateKey is signkey.Generate.
func GenerateKey(typ string) (private, public []byte, err error) { return signkey.Generate(typ) }

// Key is a private signing key loaded from a file; it is a sigstore-go
// sign.Keypair.
type Key struct {
	signer  crypto.Signer
	details signature.AlgorithmDetails
	hint    []byte
}

// LoadKey reads a PKCS #8 PEM private key (Ed25519 or ECDSA P-256).
func LoadKey(path string) (*Key, error) {
	signer, err := signkey.LoadPrivate(path)
	if err != nil {
		return nil, err
	}
	return NewKey(signer)
}

// NewKey wraps a signer (Ed25519 or ECDSA P-256) as a Key.
func NewKey(signer crypto.Signer) (*Key, error) {
	switch k := signer.(type) {
	case ed25519.PrivateKey:
		return newKey(k, protocommon.PublicKeyDetails_PKIX_ED25519)
	case *ecdsa.PrivateKey:
		if k.Curve == elliptic.P256() {
			return newKey(k, protocommon.PublicKeyDetails_PKIX_ECDSA_P256_SHA_256)
		}
	}
	return nil, fmt.Errorf("a %T key; reelier signs with Ed25519 or ECDSA P-256", signer)
}

func newKey(signer crypto.Signer, alg protocommon.PublicKeyDetails) (*Key, error) {
	details, err := signature.GetAlgorithmDetails(alg)
	if err != nil {
		return nil, err
	}
	hint, err := Fingerprint(signer.Public())
	if err != nil {
		return nil, err
	}
	return &Key{signer: signer, details: details, hint: []byte(hint)}, nil
}

// Fingerprint is a public key's hint: the base64 SHA-256 of its PKIX DER.
func Fingerprint(pub crypto.PublicKey) (string, error) {
	der, err := x509.MarshalPKIXPublicKey(pub)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(der)
	return base64.StdEncoding.EncodeToString(sum[:]), nil
}

// LoadPublicKey reads a PKIX PEM public key (Ed25519 or ECDSA P-256).
func LoadPublicKey(path string) (crypto.PublicKey, error) { return signkey.LoadPublic(path) }

// GetHashAlgorithm is the hash the key signs with.
func (k *Key) GetHashAlgorithm() protocommon.HashAlgorithm { return k.details.GetProtoHashType() }

// GetSigningAlgorithm is the key's algorithm.
func (k *Key) GetSigningAlgorithm() protocommon.PublicKeyDetails {
	return k.details.GetSignatureAlgorithm()
}

// GetHint is the key's fingerprint.
func (k *Key) GetHint() []byte { return k.hint }

// GetKeyAlgorithm is the key's family.
func (k *Key) GetKeyAlgorithm() string {
	if _, ok := k.signer.(ed25519.PrivateKey); ok {
		return "ED25519"
	}
	return "ECDSA"
}

// GetPublicKey is the key's public half.
func (k *Key) GetPublicKey() crypto.PublicKey { return k.signer.Public() }

// GetPublicKeyPem is the key's public half as PKIX PEM.
func (k *Key) GetPublicKeyPem() (string, error) {
	der, err := x509.MarshalPKIXPublicKey(k.signer.Public())
	if err != nil {
		return "", err
	}
	return string(pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der})), nil
}

// SignData signs data: a digest of it for ECDSA, the data itself for
// Ed25519, which hashes as it signs.
func (k *Key) SignData(_ context.Context, data []byte) ([]byte, []byte, error) {
	hf := k.details.GetHashType()
	msg := data
	if hf != crypto.Hash(0) {
		h := hf.New()
		h.Write(data)
		msg = h.Sum(nil)
	}
	sig, err := k.signer.Sign(rand.Reader, msg, hf)
	if err != nil {
		return nil, nil, err
	}
	return sig, msg, nil
}
