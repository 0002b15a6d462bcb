package wire

import "encoding/json"

// The ledger's verifier: 'reelier ledger serve' with trust flags runs
// 'reelier-attest ledger-verify' as one long-lived child and talks to it
// in JSON lines on its stdin and stdout, one VerifyRequest and one
// VerifyAnswer a line. The child's first line is a VerifyAnswer with
// Ready set (or it exits 2 with the reason on stderr). The verifier
// lives in its own program so that the signing stack (sigstore-go) is
// never linked into reelier.

// MaxVerifyLine bounds one line either way: a request holds a record and
// a bundle, each at most a ledger's body limit.
const MaxVerifyLine = 40 << 20

// VerifyRequest asks whether Bundle signs Record of Skill.
type VerifyRequest struct {
	// ID is echoed in the answer.
	ID uint64 `json:"id"`
	// Skill is the upload's skillName; Record the record as received.
	Skill  string          `json:"skill"`
	Record json.RawMessage `json:"record"`
	// Bundle is the record's Sigstore bundle.
	Bundle json.RawMessage `json:"bundle"`
}

// The signature states a ledger stores for a run.
const (
	// SignatureVerified: the bundle's signature holds for a key or
	// identity the ledger trusts, and its statement is this record.
	SignatureVerified = "verified"
	// SignatureUntrusted: the bundle is this record's, signed by a signer
	// the ledger does not trust (or a ledger that trusts no signer).
	SignatureUntrusted = "untrusted"
	// SignatureUnsigned: the record came without a bundle.
	SignatureUnsigned = "unsigned"
)

// VerifyAnswer is the child's answer to one VerifyRequest.
type VerifyAnswer struct {
	// Ready is set on the child's first line only.
	Ready bool `json:"ready,omitempty"`
	// ID is the request's.
	ID uint64 `json:"id,omitempty"`
	// State is SignatureVerified or SignatureUntrusted when the record is
	// accepted; empty when Reject is set.
	State string `json:"state,omitempty"`
	// Signer says who signed: "key <fingerprint>", or a certificate's
	// identity and issuer (as the bundle claims it when not trusted).
	Signer string `json:"signer,omitempty"`
	// Reject says why the record or its bundle is forged, altered or not
	// a receipt: the ledger refuses it permanently (400).
	Reject string `json:"reject,omitempty"`
}
