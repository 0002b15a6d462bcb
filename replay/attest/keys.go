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
	"io"
	"os"

	protocommon "github.com/sigstore/protobuf-specs/gen/pb-go/common/v1"
	"github.com/sigstore/sigstore/pkg/signature"
)

// The key types `reelier key init --type` makes.
const (
	Ed25519   = "ed25519"
	ECDSAP256 = "ecdsa-p256"
)

// maxKeyFile bounds a key file read.
const maxKeyFile = 64 << 10

// GenerateKey makes a key of the given type and returns its private half
// as PKCS #8 PEM and its public half as PKIX PEM.
func GenerateKey(typ string) (private, public []byte, err error) {
	var key crypto.Signer
	switch typ {
	case Ed25519:
		_, key, err = ed25519.GenerateKey(rand.Reader)
	case ECDSAP256:
		key, err = ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	default:
		return nil, nil, fmt.Errorf("key type %q is not %s or %s", typ, Ed25519, ECDSAP256)
	}
	if err != nil {
		return nil, nil, err
	}
	der, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return nil, nil, err
	}
	pub, err := x509.MarshalPKIXPublicKey(key.Public())
	if err != nil {
		return nil, nil, err
	}
	return pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}),
		pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: pub}), nil
}

// readPEM reads the one PEM block of the given type in a key file.
func readPEM(path, typ string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	buf, err := io.ReadAll(io.LimitReader(f, maxKeyFile+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	if len(buf) > maxKeyFile {
		return nil, fmt.Errorf("%s: more than %d bytes: not a key file", path, maxKeyFile)
	}
	block, _ := pem.Decode(buf)
	switch {
	case block == nil:
		return nil, fmt.Errorf("%s: not a PEM key file", path)
	case block.Type != typ:
		return nil, fmt.Errorf("%s: holds a %q PEM block, not a %q one", path, block.Type, typ)
	}
	return block.Bytes, nil
}

// Key is a private signing key loaded from a file; it is a sigstore-go
// sign.Keypair.
type Key struct {
	signer  crypto.Signer
	details signature.AlgorithmDetails
	hint    []byte
}

// LoadKey reads a PKCS #8 PEM private key (Ed25519 or ECDSA P-256).
func LoadKey(path string) (*Key, error) {
	der, err := readPEM(path, "PRIVATE KEY")
	if err != nil {
		return nil, err
	}
	k, err := x509.ParsePKCS8PrivateKey(der)
	if err != nil {
		return nil, fmt.Errorf("%s: not a PKCS #8 private key: %v", path, err)
	}
	var alg protocommon.PublicKeyDetails
	var signer crypto.Signer
	switch k := k.(type) {
	case ed25519.PrivateKey:
		alg, signer = protocommon.PublicKeyDetails_PKIX_ED25519, k
	case *ecdsa.PrivateKey:
		if k.Curve != elliptic.P256() {
			return nil, fmt.Errorf("%s: an ECDSA key on %s; reelier signs with Ed25519 or ECDSA P-256", path, k.Curve.Params().Name)
		}
		alg, signer = protocommon.PublicKeyDetails_PKIX_ECDSA_P256_SHA_256, k
	default:
		return nil, fmt.Errorf("%s: a %T key; reelier signs with Ed25519 or ECDSA P-256", path, k)
	}
	return newKey(signer, alg)
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
func LoadPublicKey(path string) (crypto.PublicKey, error) {
	der, err := readPEM(path, "PUBLIC KEY")
	if err != nil {
		return nil, err
	}
	pub, err := x509.ParsePKIXPublicKey(der)
	if err != nil {
		return nil, fmt.Errorf("%s: not a PKIX public key: %v", path, err)
	}
	switch p := pub.(type) {
	case ed25519.PublicKey:
	case *ecdsa.PublicKey:
		if p.Curve != elliptic.P256() {
			return nil, fmt.Errorf("%s: an ECDSA key on %s; reelier verifies Ed25519 or ECDSA P-256 keys", path, p.Curve.Params().Name)
		}
	default:
		return nil, fmt.Errorf("%s: a %T key; reelier verifies Ed25519 or ECDSA P-256 keys", path, pub)
	}
	return pub, nil
}

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
