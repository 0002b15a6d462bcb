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
)

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
}

// Accepted is the body of a 202 answer to a run upload.
type Accepted struct {
	// ID is the ledger's identifier for the stored run.
	ID string `json:"id"`
	// Duplicate is true when the ledger already held this record (same
	// idempotency key) and stored nothing new; ID is then the first copy's.
	Duplicate bool `json:"duplicate,omitempty"`
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
	name, _ := json.Marshal(skill) // a string always marshals
	var b bytes.Buffer
	b.Grow(len(name) + len(record) + 28)
	b.WriteString(`{"skillName":`)
	b.Write(name)
	b.WriteString(`,"record":`)
	b.Write(bytes.TrimSpace(record))
	b.WriteString("}")
	return b.Bytes()
}
