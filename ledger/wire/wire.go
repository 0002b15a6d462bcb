package wire

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
)

// Endpoint paths, relative to the ledger's base URL.
const (
	// SkillsPath receives a skill upload (POST) and lists skills (GET).
	SkillsPath = "/api/v1/skills"
	// RunsPath receives one run record per POST.
	RunsPath = "/api/v1/runs"
	// InfoPath answers GET with Info: what the ledger asks of a pusher.
	// It needs no key, so a pusher can ask before it has one.
	InfoPath = "/api/v1/info"
)

// Info is the body of GET InfoPath. A ledger older than it answers 404;
// push then assumes it needs a key, as it always did.
type Info struct {
	// Keys is true when the ledger holds an API key: every request then
	// needs one (REELIER_CLOUD_KEY). False for an open ledger, which
	// answers loopback clients only and needs no key.
	Keys bool `json:"keys"`
	// VerifiesSignatures is true when the ledger checks each pushed
	// record's bundle against signers it trusts ('reelier ledger serve
	// --trust-key' and friends).
	VerifiesSignatures bool `json:"verifiesSignatures"`
	// RequireSigned is true when the ledger refuses a record sent without
	// a bundle.
	RequireSigned bool `json:"requireSigned"`
}

// IdempotencyHeader carries IdempotencyKey(skill, record) on every run
// upload, so a ledger can recognise a record it already stored.
const IdempotencyHeader = "Idempotency-Key"

// SkillUpload is the body of POST SkillsPath.
type SkillUpload struct {
	// Name is the skill's frontmatter name.
	Name string `json:"name"`
	// SkillMd is the skill file's full source text.
	SkillMd string `json:"skillMd"`
}

// SkillAccepted is the body of a 200 answer to a skill upload.
type SkillAccepted struct {
	// Name is the skill's name.
	Name string `json:"name"`
	// Version numbers the distinct contents the ledger holds of the skill
	// from 1; an upload of the latest content again keeps its number.
	// Absent from ledgers older than upload histories.
	Version int `json:"version,omitempty"`
	// SHA256 is the lowercase hex SHA-256 of the file as stored (after the
	// ledger's redaction).
	SHA256 string `json:"sha256,omitempty"`
}

// SkillHash is the content hash push compares to decide whether the skill
// file changed since it was last uploaded: the lowercase hex SHA-256 of
// the file's bytes, the same hash run records carry as skillSha256.
func SkillHash(skillMd []byte) string {
	sum := sha256.Sum256(skillMd)
	return hex.EncodeToString(sum[:])
}

// RunUpload is the body of POST RunsPath.
type RunUpload struct {
	// SkillName names the skill the record belongs to.
	SkillName string `json:"skillName"`
	// Record is one run record, byte for byte as it is in the history file.
	Record json.RawMessage `json:"record"`
	// Bundle is the Sigstore bundle 'reelier run --sign' wrote for this
	// record (<runs-dir>/<skill>.bundles/…), as the file holds it; absent
	// for a record that was not signed. Its statement binds the record by
	// the SHA-256 of the history line, so the record must be sent byte
	// for byte. A ledger older than bundles ignores the field.
	Bundle json.RawMessage `json:"bundle,omitempty"`
}

// Accepted is the body of a 202 answer to a run upload.
type Accepted struct {
	// ID is the ledger's identifier for the stored run.
	ID string `json:"id"`
	// Duplicate is true when the ledger already held this record (same
	// idempotency key) and stored nothing new; ID is then the first copy's.
	Duplicate bool `json:"duplicate,omitempty"`
	// Signature is what the ledger made of the record's bundle
	// (SignatureVerified, SignatureUntrusted, SignatureUnsigned) and
	// Signer who signed it; absent from ledgers older than bundles, and
	// from a duplicate's answer.
	Signature string `json:"signature,omitempty"`
	Signer    string `json:"signer,omitempty"`
}

// ErrorBody is the body of every error answer from the ledger.
type ErrorBody struct {
	// Error says what went wrong and, where there is one, what to do.
	Error string `json:"error"`
	// FieldErrors maps a JSON path in the request (such as
	// "record.steps[0].outcome") to what is wrong there; present on 400.
	FieldErrors map[string]string `json:"fieldErrors,omitempty"`
}

// IdempotencyKey returns the stable content hash of a run upload: the
// lowercase hex SHA-256 of a version tag, the skill name and the record
// with insignificant JSON whitespace removed. The same record of the same
// skill always yields the same key, however often it is sent; any change
// to either yields another.
func IdempotencyKey(skill string, record []byte) string {
	var compact bytes.Buffer
	if json.Compact(&compact, record) != nil {
		compact.Reset()
		compact.Write(bytes.TrimSpace(record))
	}
	h := sha256.New()
	h.Write([]byte("reelier-run-v1\x00"))
	h.Write([]byte(skill))
	h.Write([]byte{0})
	h.Write(compact.Bytes())
	return hex.EncodeToString(h.Sum(nil))
}

// EncodeRunUpload builds the body of a run upload around record without
// re-encoding it, so the ledger receives the record exactly as the history
// file holds it. record must be valid JSON.
func EncodeRunUpload(skill string, record []byte) []byte {
	return EncodeSignedRunUpload(skill, record, nil)
}

// EncodeSignedRunUpload is EncodeRunUpload with the record's bundle, sent
// as it is; an empty bundle is left out. record and bundle must be valid
// JSON.
func EncodeSignedRunUpload(skill string, record, bundle []byte) []byte {
	name, _ := json.Marshal(skill) // a string always marshals
	bundle = bytes.TrimSpace(bundle)
	var b bytes.Buffer
	b.Grow(len(name) + len(record) + len(bundle) + 40)
	b.WriteString(`{"skillName":`)
	b.Write(name)
	b.WriteString(`,"record":`)
	b.Write(bytes.TrimSpace(record))
	if len(bundle) > 0 {
		b.WriteString(`,"bundle":`)
		b.Write(bundle)
	}
	b.WriteString("}")
	return b.Bytes()
}

// RecordSHA256 is the hex SHA-256 a signed receipt binds its record by
// (the predicate's recordSha256): the history line, a newline ending it.
func RecordSHA256(record []byte) string {
	h := sha256.New()
	h.Write(bytes.TrimSpace(record))
	h.Write([]byte{'\n'})
	return hex.EncodeToString(h.Sum(nil))
}
