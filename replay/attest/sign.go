package attest

import (
	"errors"

	protobundle "github.com/sigstore/protobuf-specs/gen/pb-go/bundle/v1"
	"github.com/sigstore/sigstore-go/pkg/sign"
	"google.golang.org/protobuf/encoding/protojson"
)

// Sign signs a statement (BuildStatement's bytes) with key as a DSSE
// envelope inside a Sigstore bundle and returns the bundle's JSON. opts
// may name a certificate provider (keyless signing); Reelier's own
// signing passes none, and the bundle names the key by its fingerprint.
func Sign(statement []byte, key sign.Keypair, opts sign.BundleOptions) ([]byte, error) {
	b, err := SignBundle(statement, key, opts)
	if err != nil {
		return nil, err
	}
	return protojson.Marshal(b)
}

// SignBundle is Sign, returning the bundle itself.
func SignBundle(statement []byte, key sign.Keypair, opts sign.BundleOptions) (*protobundle.Bundle, error) {
	if key == nil {
		return nil, errors.New("no signing key")
	}
	if _, err := ParseStatement(statement); err != nil {
		return nil, err
	}
	return sign.Bundle(&sign.DSSEData{Data: statement, PayloadType: PayloadType}, key, opts)
}
