package push

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/reelier/reelier/internal/termtext"
	"github.com/reelier/reelier/ledger/wire"
	"github.com/reelier/reelier/redact"
)

// Kind classifies what happened to one run upload (§8.3a).
type Kind int

// The kinds of outcome.
const (
	// Pushed: the ledger answered 202; the cursor moves past the record.
	Pushed Kind = iota
	// Rejected: the ledger answered 400 or 413, a verdict on the record
	// itself that will not change on retry; the cursor moves past it too.
	Rejected
	// Blocked: a 401, any other status or a network error; nothing was
	// judged, the batch stops and the cursor stays on this record.
	Blocked
	// NotSent: the record is of a run given a failure on purpose
	// (reelier run --fail: its "injected" field); it says nothing about
	// the servers, so it is never sent, and the cursor moves past it.
	NotSent
)

// Outcome is the result of one run upload.
type Outcome struct {
	// Kind says whether the cursor moves past the record.
	Kind Kind
	// Status is the HTTP status, 0 when no answer arrived.
	Status int
	// ID is the ledger's id for a pushed record, when it sent one.
	ID string
	// Duplicate is true when the ledger already held the record.
	Duplicate bool
	// Reason explains a rejection: the field errors of a 400 as compact
	// JSON, or the ledger's size-limit message for a 413.
	Reason string
	// Signed is true when the record was sent with its bundle; Unsigned
	// says why a bundle found for it was not sent (the record had to be
	// redacted, so the bundle no longer binds it).
	Signed   bool
	Unsigned string
	// Signature and Signer are what the ledger made of the bundle
	// (wire.Accepted), "" from a ledger older than bundles.
	Signature, Signer string
	// Err explains a blocked upload.
	Err error
}

// bodyExcerpt is how much of an unexpected answer's body is quoted.
const bodyExcerpt = 500

// maxAnswer bounds how much of any answer is read.
const maxAnswer = 64 << 10

// Client speaks the two upload endpoints of a ledger. It is safe for
// concurrent use. It never retries: every call is exactly one request.
type Client struct {
	// Config is the ledger's address and key.
	Config Config
	// HTTP is the client used for requests; nil means a client with a 30 s
	// timeout.
	HTTP *http.Client
	// Redactor blanks secrets in every record and skill file sent, with
	// the rules and REELIER_REDACT values the recorder uses, so a record
	// written before failures were redacted, or by an older Reelier, leaves
	// this machine redacted too. Nil means the one the environment
	// configures (trace.RedactorFromEnv).
	Redactor *redact.Redactor
}

// redactor is the client's redactor, or the environment's.
func (c *Client) redactor() *redact.Redactor {
	if c.Redactor != nil {
		return c.Redactor
	}
	return redact.RedactorFromEnv()
}

// defaultHTTP bounds each request to 30 s.
var defaultHTTP = &http.Client{Timeout: 30 * time.Second}

// UploadSkill sends the skill file and returns the ledger's answer (its
// version number is 0 from a ledger older than upload histories). Any 2xx
// is success. A 401 or 403 is reported as the key's refusal with the
// ledger's reason; any other answer or a network error as an error
// quoting the start of the answer's body.
func (c *Client) UploadSkill(ctx context.Context, name string, skillMd []byte) (wire.SkillAccepted, error) {
	var acc wire.SkillAccepted
	body, _ := json.Marshal(wire.SkillUpload{Name: name, SkillMd: redact.Text(c.redactor(), "", string(skillMd))})
	status, answer, err := c.post(ctx, wire.SkillsPath, body, "")
	switch {
	case err != nil:
		return acc, fmt.Errorf("uploading skill %q: %w", name, err)
	case status == http.StatusUnauthorized, status == http.StatusForbidden:
		return acc, fmt.Errorf("uploading skill %q: %w", name, refused(status, answer))
	case status < 200 || status > 299:
		return acc, fmt.Errorf("uploading skill %q: the ledger answered %s: %s", name, statusText(status), excerpt(answer))
	}
	_ = json.Unmarshal(answer, &acc) // the version is optional to the client
	return acc, nil
}

// refused is the error of a 401 (the key is missing, unknown or revoked)
// or a 403 (the key may not push): the ledger's own reason, made safe for
// a terminal, and what to do. It points at the key without showing it.
func refused(status int, answer []byte) error {
	var eb wire.ErrorBody
	reason := ""
	if json.Unmarshal(answer, &eb) == nil && eb.Error != "" {
		reason = ": " + termtext.Line(eb.Error)
	}
	if status == http.StatusForbidden {
		return fmt.Errorf("the ledger refused to let this key push (403)%s; set %s to a key with scope push", reason, EnvKey)
	}
	return fmt.Errorf("the ledger refused the API key (401)%s; check %s", reason, EnvKey)
}

// PushRun sends one run record, redacted, and classifies the answer. A
// record with nothing to blank is sent byte for byte; the idempotency key
// is the hash of what is sent.
func (c *Client) PushRun(ctx context.Context, skill string, record []byte) Outcome {
	return c.PushSignedRun(ctx, skill, record, nil)
}

// PushSignedRun is PushRun with the record's bundle (nil: none). The
// bundle binds the record's exact bytes, so it is sent only when
// redaction left the record as it was; otherwise the record goes
// unsigned and Outcome.Unsigned says why.
func (c *Client) PushSignedRun(ctx context.Context, skill string, record, bundle []byte) Outcome {
	redacted, err := redact.JSON(c.redactor(), record)
	if err != nil {
		return Outcome{Kind: Rejected, Reason: fmt.Sprintf("the record is not valid JSON (%v); it was not sent", err)}
	}
	unsigned := ""
	if bundle != nil && !bytes.Equal(bytes.TrimSpace(redacted), bytes.TrimSpace(record)) {
		bundle, unsigned = nil, "a secret in the record was blanked before sending, so its signature no longer binds it; it was sent unsigned"
	}
	record = redacted
	status, answer, err := c.post(ctx, wire.RunsPath, wire.EncodeSignedRunUpload(skill, record, bundle), wire.IdempotencyKey(skill, record))
	if err != nil {
		return Outcome{Kind: Blocked, Err: err}
	}
	out := c.classify(status, answer)
	out.Signed, out.Unsigned = bundle != nil, unsigned
	return out
}

// classify reads the ledger's answer to a run upload.
func (c *Client) classify(status int, answer []byte) Outcome {
	var eb wire.ErrorBody
	switch status {
	case http.StatusAccepted:
		var a wire.Accepted
		_ = json.Unmarshal(answer, &a) // the id is optional to the client
		return Outcome{Kind: Pushed, Status: status, ID: a.ID, Duplicate: a.Duplicate, Signature: a.Signature, Signer: a.Signer}
	case http.StatusBadRequest:
		reason := excerpt(answer)
		var raw struct {
			FieldErrors json.RawMessage `json:"fieldErrors"`
		}
		if json.Unmarshal(answer, &raw) == nil && len(raw.FieldErrors) > 0 {
			var buf bytes.Buffer
			if json.Compact(&buf, raw.FieldErrors) == nil {
				reason = buf.String()
			}
		}
		return Outcome{Kind: Rejected, Status: status, Reason: reason}
	case http.StatusRequestEntityTooLarge:
		reason := "the record is larger than the ledger accepts (413)"
		if json.Unmarshal(answer, &eb) == nil && eb.Error != "" {
			reason = eb.Error
		}
		return Outcome{Kind: Rejected, Status: status, Reason: reason}
	case http.StatusUnauthorized, http.StatusForbidden:
		return Outcome{Kind: Blocked, Status: status, Err: refused(status, answer)}
	}
	return Outcome{Kind: Blocked, Status: status, Err: fmt.Errorf("the ledger answered %s: %s", statusText(status), excerpt(answer))}
}

// post sends one JSON body with the bearer key and returns the status and
// the start of the answer.
func (c *Client) post(ctx context.Context, path string, body []byte, idemKey string) (int, []byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.Config.BaseURL+path, bytes.NewReader(body))
	if err != nil {
		return 0, nil, err
	}
	// Without GetBody the transport cannot replay the request: Go would
	// otherwise resend a POST carrying an Idempotency-Key on its own after
	// a dropped connection, and the contract is one attempt per request.
	req.GetBody = nil
	if c.Config.Key != "" {
		req.Header.Set("Authorization", "Bearer "+c.Config.Key)
	}
	req.Header.Set("Content-Type", "application/json")
	if idemKey != "" {
		req.Header.Set(wire.IdempotencyHeader, idemKey)
	}
	hc := c.HTTP
	if hc == nil {
		hc = defaultHTTP
	}
	resp, err := hc.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	// The status is the verdict; the body only explains it, so a body cut
	// short is quoted as far as it came.
	answer, _ := io.ReadAll(io.LimitReader(resp.Body, maxAnswer))
	return resp.StatusCode, answer, nil
}

// statusText renders a status as "503 Service Unavailable".
func statusText(status int) string {
	if t := http.StatusText(status); t != "" {
		return fmt.Sprintf("%d %s", status, t)
	}
	return fmt.Sprint(status)
}

// excerpt quotes the first bodyExcerpt characters of an answer on one line.
func excerpt(b []byte) string {
	s := termtext.Line(strings.Join(strings.Fields(string(b)), " "))
	if s == "" {
		return "(empty body)"
	}
	if utf8.RuneCountInString(s) > bodyExcerpt {
		r := []rune(s)
		s = string(r[:bodyExcerpt]) + "…"
	}
	return s
}
