// Package signkey is the signing key's files: making a key (`reelier key
// init`), where it is kept, and reading it back. It needs nothing but the
// standard library, so `reelier` can check a key before a run without
// linking the signing stack, which lives in replay/attest and the
// reelier-attest program.
package signkey

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/reelier/reelier/internal/atomicfile"
)

// The key types.
const (
	Ed25519   = "ed25519"
	ECDSAP256 = "ecdsa-p256"
)

// The key files InitKey writes, in Dir.
const (
	KeyFile    = "signing.key"
	PubKeyFile = "signing.pub"
)

// maxKeyFile bounds a key file read.
const maxKeyFile = 64 << 10

// Dir is where `reelier key init` keeps the signing key: reelier/keys
// under the user configuration directory (os.UserConfigDir:
// $XDG_CONFIG_HOME or ~/.config on Linux, ~/Library/Application Support on
// macOS, %AppData% on Windows).
func Dir() (string, error) {
	dir, err := os.UserConfigDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, "reelier", "keys"), nil
}

// Generate makes a key of the given type and returns its private half as
// PKCS #8 PEM and its public half as PKIX PEM.
func Generate(typ string) (private, public []byte, err error) {
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

// Init makes a key of typ in dir: the private key (0600) and its public
// half (0644), written atomically. It refuses to replace an existing key
// unless force is set. It returns both paths.
func Init(dir, typ string, force bool) (private, public string, err error) {
	private, public = filepath.Join(dir, KeyFile), filepath.Join(dir, PubKeyFile)
	if !force {
		for _, p := range []string{private, public} {
			if _, err := os.Lstat(p); err == nil {
				return private, public, fmt.Errorf("%s already exists: a key there may have signed receipts; give --force to replace it", p)
			} else if !errors.Is(err, fs.ErrNotExist) {
				return private, public, err
			}
		}
	}
	priv, pub, err := Generate(typ)
	if err != nil {
		return private, public, err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return private, public, err
	}
	if err := atomicfile.Write(private, priv, 0o600); err != nil {
		return private, public, err
	}
	if err := os.Chmod(private, 0o600); err != nil {
		return private, public, err
	}
	return private, public, atomicfile.Write(public, pub, 0o644)
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

// LoadPrivate reads a PKCS #8 PEM private key: Ed25519 or ECDSA P-256.
func LoadPrivate(path string) (crypto.Signer, error) {
	der, err := readPEM(path, "PRIVATE KEY")
	if err != nil {
		return nil, err
	}
	k, err := x509.ParsePKCS8PrivateKey(der)
	if err != nil {
		return nil, fmt.Errorf("%s: not a PKCS #8 private key: %v", path, err)
	}
	switch k := k.(type) {
	case ed25519.PrivateKey:
		return k, nil
	case *ecdsa.PrivateKey:
		if k.Curve != elliptic.P256() {
			return nil, fmt.Errorf("%s: an ECDSA key on %s; reelier signs with Ed25519 or ECDSA P-256", path, k.Curve.Params().Name)
		}
		return k, nil
	}
	return nil, fmt.Errorf("%s: a %T key; reelier signs with Ed25519 or ECDSA P-256", path, k)
}

// LoadPublic reads a PKIX PEM public key: Ed25519 or ECDSA P-256.
func LoadPublic(path string) (crypto.PublicKey, error) {
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
