package server

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"time"
	"unicode"

	"github.com/reelier/reelier/ledger/wire"
	"github.com/reelier/reelier/redact"
	"github.com/reelier/reelier/replay/runlog"
)

// Paging bounds for GET …/runs.
const (
	defaultPageSize = 50
	maxPageSize     = 200
)

// maxIdemKey bounds the Idempotency-Key header.
const maxIdemKey = 200

// postRun stores one run record: 202 {id}, 400 {fieldErrors}, 404 for a
// skill never uploaded, 413 above the size limit.
func (s *Server) postRun(w http.ResponseWriter, r *http.Request) {
	body, ok := s.readJSONBody(w, r)
	if !ok {
		return
	}
	up, fe := parseRunUpload(body)
	idem := r.Header.Get(wire.IdempotencyHeader)
	if msg := idemKeyProblem(idem); msg != "" {
		if fe == nil {
			fe = fieldErrors{}
		}
		fe.add(wire.IdempotencyHeader+" header", "%s", msg)
	}
	if len(fe) > 0 {
		writeError(w, http.StatusBadRequest, fmt.Sprintf("the run upload was rejected: %d field error(s); fix the record, it will not be accepted as it is", len(fe)), fe)
		return
	}
	sig, ok := s.signature(w, r, up)
	if !ok {
		return
	}
	record, err := redact.JSON(s.redactor, up.record)
	if err != nil {
		writeError(w, http.StatusBadRequest, "the run upload was rejected: the record is not valid JSON", nil)
		return
	}
	run := Run{
		ID: newID(), Skill: up.skill, IdempotencyKey: idem, Record: record,
		StartedAt: up.startedAt, FinishedAt: up.finishedAt,
		Verdict: verdictOf(&up.rec, up.totals), Totals: up.totals, Healed: healedSteps(up.rec.Steps), Mock: up.rec.Mock(), ReceivedAt: s.now().UTC(),
		Signature: sig.State, Signer: redact.Text(s.redactor, "", sig.Signer),
	}
	id, dup, err := s.store.AddRun(r.Context(), run)
	switch {
	case errors.Is(err, ErrUnknownSkill):
		writeError(w, http.StatusNotFound, unknownSkill(up.skill), nil)
	case err != nil:
		s.unavailable(w, err)
	default:
		a := wire.Accepted{ID: id, Duplicate: dup}
		if !dup {
			a.Signature, a.Signer = string(run.Signature), run.Signer
		}
		writeJSON(w, http.StatusAccepted, a)
	}
}

// signature decides a record's signature state: unsigned without a bundle
// (refused under RequireSigned), else what the verifier says. On refusal
// it has answered and returns false.
func (s *Server) signature(w http.ResponseWriter, r *http.Request, up *runUpload) (Signature, bool) {
	switch {
	case up.bundle == nil && s.requireSigned:
		writeError(w, http.StatusBadRequest, "the run upload was rejected: this ledger accepts signed records only", fieldErrors{"bundle": "is required: sign the run (reelier run --sign) and push again"})
		return Signature{}, false
	case up.bundle == nil:
		return Signature{State: SignatureUnsigned}, true
	case s.verify == nil:
		return Signature{State: SignatureUntrusted}, true
	}
	sig, err := s.verify(r.Context(), up.skill, up.record, up.bundle)
	var rej *Rejection
	switch {
	case errors.As(err, &rej):
		writeError(w, http.StatusBadRequest, "the run upload was rejected: its signature does not verify", fieldErrors{"record.signature": rej.Reason})
		return Signature{}, false
	case err != nil:
		s.logf("ledger: verifying a signed record: %v", err)
		w.Header().Set("Retry-After", "5")
		writeError(w, http.StatusServiceUnavailable, "the ledger's signature verifier is unavailable; try again later", nil)
		return Signature{}, false
	}
	return sig, true
}

// unknownSkill is the message for a skill the ledger has never seen.
func unknownSkill(name string) string {
	return fmt.Sprintf("unknown skill %q: the ledger has no skill file of that name; upload it first ('reelier push --with-skill' sends it again)", name)
}

// idemKeyProblem says what is wrong with an Idempotency-Key value, or "".
func idemKeyProblem(k string) string {
	if len(k) > maxIdemKey {
		return fmt.Sprintf("must be at most %d characters, got %d", maxIdemKey, len(k))
	}
	for _, c := range k {
		if c > unicode.MaxASCII || !unicode.IsPrint(c) {
			return "must be printable ASCII"
		}
	}
	return ""
}

// postSkill stores a skill upload: 200 {name}, 400 {fieldErrors}, 413.
func (s *Server) postSkill(w http.ResponseWriter, r *http.Request) {
	body, ok := s.readJSONBody(w, r)
	if !ok {
		return
	}
	up, fe := parseSkillUpload(body)
	if len(fe) > 0 {
		writeError(w, http.StatusBadRequest, fmt.Sprintf("the skill upload was rejected: %d field error(s)", len(fe)), fe)
		return
	}
	md := redact.Text(s.redactor, "", up.skillMd)
	version, err := s.store.PutSkill(r.Context(), Skill{Name: up.name, SkillMd: md, UploadedAt: s.now().UTC()})
	if err != nil {
		s.unavailable(w, err)
		return
	}
	writeJSON(w, http.StatusOK, wire.SkillAccepted{Name: up.name, Version: version, SHA256: contentHash(md)})
}

// healedSteps counts the steps that healed.
func healedSteps(steps []runlog.StepRecord) int {
	n := 0
	for _, st := range steps {
		if st.Level > 0 {
			n++
		}
	}
	return n
}

// contentHash is the lowercase hex SHA-256 of a skill file's text, the
// hash run records carry as skillSha256.
func contentHash(md string) string {
	sum := sha256.Sum256([]byte(md))
	return hex.EncodeToString(sum[:])
}

// versionJSON is a skill version in GET …/versions.
type versionJSON struct {
	Version    int    `json:"version"`
	UploadedAt string `json:"uploadedAt"`
	SHA256     string `json:"sha256"`
	SkillMd    string `json:"skillMd"`
}

// skillFailed answers a store error of a skill's read: 404 for a skill
// the ledger does not know, 503 for any other; false when err is nil.
func (s *Server) skillFailed(w http.ResponseWriter, name string, err error) bool {
	switch {
	case errors.Is(err, ErrUnknownSkill):
		writeError(w, http.StatusNotFound, unknownSkill(name), nil)
		return true
	case err != nil:
		s.unavailable(w, err)
		return true
	}
	return false
}

// listVersions answers a skill's upload history, oldest first, each
// distinct content with its text.
func (s *Server) listVersions(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("name")
	vs, err := s.store.SkillVersions(r.Context(), name)
	if s.skillFailed(w, name, err) {
		return
	}
	out := make([]versionJSON, len(vs))
	for i, v := range vs {
		out[i] = versionJSON{Version: v.Version, UploadedAt: stamp(v.UploadedAt), SHA256: contentHash(v.SkillMd), SkillMd: v.SkillMd}
	}
	writeJSON(w, http.StatusOK, map[string]any{"skill": name, "versions": out})
}

// skillJSON is a skill in GET /api/v1/skills.
type skillJSON struct {
	Name        string   `json:"name"`
	UploadedAt  string   `json:"uploadedAt"`
	Uploads     int      `json:"uploads"`
	Runs        int      `json:"runs"`
	Passed      int      `json:"passed"`
	Failed      int      `json:"failed"`
	Unchecked   int      `json:"unchecked"`
	Interrupted int      `json:"interrupted"`
	Config      int      `json:"config"`
	Mock        int      `json:"mock"`
	MockPassed  int      `json:"mockPassed"`
	MockConfig  int      `json:"mockConfig"`
	HealedRuns  int      `json:"healedRuns"`
	Tokens      int64    `json:"tokens"`
	PassRate    float64  `json:"passRate"`
	Latest      *runJSON `json:"latest,omitempty"`
}

// runJSON is a run in the read API; Record is omitted from summaries.
type runJSON struct {
	ID         string  `json:"id"`
	Verdict    Verdict `json:"verdict"`
	Mock       bool    `json:"mock,omitempty"`
	Signature  string  `json:"signature"`
	Signer     string  `json:"signer,omitempty"`
	StartedAt  string  `json:"startedAt"`
	FinishedAt string  `json:"finishedAt"`
	ReceivedAt string  `json:"receivedAt"`
	Record     rawJSON `json:"record,omitempty"`
}

// rawJSON embeds stored record bytes as they are.
type rawJSON []byte

// MarshalJSON returns the bytes unchanged.
func (r rawJSON) MarshalJSON() ([]byte, error) { return r, nil }

func toRunJSON(r *Run, withRecord bool) *runJSON {
	j := &runJSON{ID: r.ID, Verdict: r.Verdict, Mock: r.Mock, Signature: string(r.SignatureState()), Signer: r.Signer, StartedAt: stamp(r.StartedAt), FinishedAt: stamp(r.FinishedAt), ReceivedAt: stamp(r.ReceivedAt)}
	if withRecord {
		j.Record = r.Record
	}
	return j
}

// stamp formats a time like the run records do.
func stamp(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z") }

// withMock reads the ?mock= filter of the skills list and pages:
// "include" counts the runs against `reelier mock` in pass rates, which
// leave them out otherwise.
func withMock(r *http.Request) bool { return r.URL.Query().Get("mock") == "include" }

// listSkills answers every skill with its figures; passRate leaves the
// runs against `reelier mock` out unless ?mock=include.
func (s *Server) listSkills(w http.ResponseWriter, r *http.Request) {
	sums, err := s.store.Skills(r.Context())
	if err != nil {
		s.unavailable(w, err)
		return
	}
	out := make([]skillJSON, 0, len(sums))
	for _, k := range sums {
		j := skillJSON{Name: k.Name, UploadedAt: stamp(k.UploadedAt), Uploads: k.Uploads, Runs: k.Runs,
			Passed: k.Passed, Failed: k.Failed, Unchecked: k.Unchecked, Interrupted: k.Interrupted,
			Config: k.Config, Mock: k.Mock, MockPassed: k.MockPassed, MockConfig: k.MockConfig,
			HealedRuns: k.HealedRuns, Tokens: k.Tokens, PassRate: k.PassRate()}
		if withMock(r) {
			j.PassRate = k.PassRateWithMock()
		}
		if k.Latest != nil {
			j.Latest = toRunJSON(k.Latest, false)
		}
		out = append(out, j)
	}
	writeJSON(w, http.StatusOK, map[string]any{"skills": out})
}

// listRuns answers one page of a skill's runs, newest first, with the
// cursor of the next page.
func (s *Server) listRuns(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("name")
	p, fe := parsePage(r)
	if len(fe) > 0 {
		writeError(w, http.StatusBadRequest, "bad paging parameters", fe)
		return
	}
	page, err := s.store.Runs(r.Context(), name, p)
	if s.skillFailed(w, name, err) {
		return
	}
	runs := make([]*runJSON, 0, len(page.Runs))
	for i := range page.Runs {
		runs = append(runs, toRunJSON(&page.Runs[i], true))
	}
	out := map[string]any{"skill": name, "runs": runs}
	if page.Next > 0 {
		out["next"] = strconv.FormatInt(page.Next, 10)
	}
	writeJSON(w, http.StatusOK, out)
}

// parsePage reads ?limit= (1…maxPageSize, default defaultPageSize) and
// ?before= (a cursor from an earlier page's "next").
func parsePage(r *http.Request) (Page, fieldErrors) {
	fe := fieldErrors{}
	p := Page{Limit: defaultPageSize}
	q := r.URL.Query()
	if v := q.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > maxPageSize {
			fe.add("limit", "must be a whole number from 1 to %d, got %q", maxPageSize, v)
		}
		p.Limit = n
	}
	if v := q.Get("before"); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 1 {
			fe.add("before", "must be the \"next\" value of an earlier page, got %q", v)
		}
		p.Before = n
	}
	return p, fe
}
