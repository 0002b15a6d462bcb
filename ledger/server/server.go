package server

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base32"
	"encoding/json"
	"errors"
	"fmt"
	"log"
	"mime"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"time"

	"github.com/reelier/reelier/ledger/wire"
	"github.com/reelier/reelier/redact"
)

// DefaultMaxBody is the largest request body the ledger reads: a run upload
// or skill upload above it is answered 413, which the push client records
// as a permanent rejection.
const DefaultMaxBody = 1 << 20

// Config configures a Server.
type Config struct {
	// Store is where keys, skills and runs are kept.
	Store Store
	// MaxBody overrides DefaultMaxBody when positive.
	MaxBody int64
	// Now is the clock for arrival times; nil means time.Now.
	Now func() time.Time
	// Logf logs what clients are not told (database errors); nil means
	// log.Printf.
	Logf func(format string, args ...any)
	// Redactor blanks secrets in every run record and skill file before it
	// is stored, so the pages and the read API never show one, even from a
	// client that pushed without redacting. Nil means the one the
	// ledger's environment configures (trace.RedactorFromEnv): the
	// recorder's rules, and the values REELIER_REDACT names there.
	Redactor *redact.Redactor
	// VerifyRecord checks a pushed record's bundle before the record is
	// stored (#30: signed receipts, verified on push; 'reelier ledger
	// serve' runs reelier-attest for it, ledger/verifyproc). It gets the
	// skill's name, the record and its bundle as received, after the
	// record passed validation, and is called only for a record sent with
	// a bundle. A *Rejection refuses the record permanently (400, field
	// "record.signature", its reason); any other error is the verifier's
	// failure, answered 503 so the pusher tries again. Nil stores a
	// signed record as signed, not trusted: this ledger trusts no signer.
	VerifyRecord func(ctx context.Context, skill string, record, bundle []byte) (Signature, error)
	// RequireSigned refuses a record sent without a bundle (400, field
	// "bundle").
	RequireSigned bool
}

// Server serves the ledger's API and pages.
type Server struct {
	store   Store
	maxBody int64
	now     func() time.Time
	logf    func(string, ...any)
	// redactor blanks secrets in what is stored (Config.Redactor).
	redactor *redact.Redactor
	// verify is Config.VerifyRecord.
	verify func(ctx context.Context, skill string, record, bundle []byte) (Signature, error)
	// requireSigned is Config.RequireSigned.
	requireSigned bool
	// keyed caches HasKeys once true: keys are never removed (a revoked
	// key keeps its row). Whether a key is valid is never cached.
	keyed atomic.Bool
	mux   *http.ServeMux
}

// NewServer returns a Server over cfg.Store.
func NewServer(cfg Config) *Server {
	s := &Server{store: cfg.Store, maxBody: cfg.MaxBody, now: cfg.Now, logf: cfg.Logf, redactor: cfg.Redactor, verify: cfg.VerifyRecord, requireSigned: cfg.RequireSigned, mux: http.NewServeMux()}
	if s.redactor == nil {
		s.redactor = redact.RedactorFromEnv()
	}
	if s.maxBody <= 0 {
		s.maxBody = DefaultMaxBody
	}
	if s.now == nil {
		s.now = time.Now
	}
	if s.logf == nil {
		s.logf = log.Printf
	}
	s.mux.HandleFunc("GET /healthz", s.health)
	s.mux.HandleFunc("GET "+wire.InfoPath, s.info)
	s.mux.Handle("POST "+wire.SkillsPath, s.api(ScopePush, s.postSkill))
	s.mux.Handle("GET "+wire.SkillsPath, s.api(ScopeRead, s.listSkills))
	s.mux.Handle("GET "+wire.SkillsPath+"/{name}/runs", s.api(ScopeRead, s.listRuns))
	s.mux.Handle("GET "+wire.SkillsPath+"/{name}/versions", s.api(ScopeRead, s.listVersions))
	s.mux.Handle("POST "+wire.RunsPath, s.api(ScopePush, s.postRun))
	s.mux.Handle("GET /{$}", s.page(s.indexPage))
	s.mux.Handle("GET /skills/{name}", s.page(s.skillPage))
	s.mux.Handle("GET /skills/{name}/file", s.page(s.skillFilePage))
	s.mux.Handle("GET /runs/{id}", s.page(s.runPage))
	return s
}

// ServeHTTP answers one request. A panic is answered 500 and logged: it is
// a bug, never an expected answer.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	defer func() {
		if v := recover(); v != nil {
			if v == http.ErrAbortHandler {
				panic(v)
			}
			s.logf("ledger: panic serving %s %s: %v", r.Method, r.URL.Path, v)
			writeError(w, http.StatusInternalServerError, "internal error; see the ledger's log", nil)
		}
	}()
	s.mux.ServeHTTP(w, r)
}

// healthTimeout bounds a health check: a probe must get an answer.
const healthTimeout = 5 * time.Second

// health answers 200 when the store passes its health check (real reads
// of every table, Store.Health) and 503 with the failed read and its
// reason when it does not.
func (s *Server) health(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), healthTimeout)
	defer cancel()
	err := s.store.Health(ctx)
	if err == nil {
		writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
		return
	}
	s.logf("ledger: health check failed: %v", err)
	reason := "the database did not answer"
	var he *HealthError
	switch {
	case errors.As(err, &he):
		reason = he.Error()
	case ctx.Err() != nil:
		reason = fmt.Sprintf("the database did not answer within %v", healthTimeout)
	}
	w.Header().Set("Retry-After", "5")
	writeJSON(w, http.StatusServiceUnavailable, map[string]string{"status": "unavailable", "error": "the ledger's database failed its health check: " + reason})
}

// info answers what the ledger asks of a pusher (wire.Info): whether it
// needs a key, checks signatures, refuses unsigned records. It needs no
// key itself: it says nothing a pusher could not learn by trying, and an
// open ledger answers loopback clients only anyway.
func (s *Server) info(w http.ResponseWriter, r *http.Request) {
	keyed, err := s.hasKeys(r.Context())
	if err != nil {
		s.unavailable(w, err)
		return
	}
	writeJSON(w, http.StatusOK, wire.Info{Keys: keyed, VerifiesSignatures: s.verify != nil, RequireSigned: s.requireSigned})
}

// hasKeys reports whether the store holds an API key, remembering a yes.
func (s *Server) hasKeys(ctx context.Context) (bool, error) {
	if s.keyed.Load() {
		return true, nil
	}
	has, err := s.store.HasKeys(ctx)
	if has {
		s.keyed.Store(true)
	}
	return has, err
}

// api wraps a JSON API handler with authentication: the key must allow
// need.
func (s *Server) api(need Scope, h http.HandlerFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if status, msg, err := s.authorize(r, need); err != nil {
			s.unavailable(w, err)
		} else if status != 0 {
			if status == http.StatusUnauthorized {
				w.Header().Set("WWW-Authenticate", `Bearer realm="reelier ledger"`)
			}
			writeError(w, status, msg, nil)
		} else {
			h(w, r)
		}
	})
}

// authorize decides whether a request that needs scope need may go on:
// status 0 means yes, else the status and message to answer; err means
// the store failed. The key is looked up in the database on every
// request, so a revocation made by any process (another ledger instance,
// 'reelier ledger key revoke') is enforced on the next one.
func (s *Server) authorize(r *http.Request, need Scope) (int, string, error) {
	keyed, err := s.hasKeys(r.Context())
	if err != nil {
		return 0, "", err
	}
	if !keyed {
		if !loopbackRequest(r) {
			return http.StatusForbidden, "this ledger has no API keys, so it only answers loopback clients addressed as localhost or a loopback IP; create a key with 'reelier ledger key create NAME'", nil
		}
		return 0, "", nil
	}
	key := presentedKey(r)
	if key == "" {
		return http.StatusUnauthorized, "missing API key: send 'Authorization: Bearer <key>' (keys come from 'reelier ledger key create NAME')", nil
	}
	k, err := s.store.KeyByHash(r.Context(), HashKey(key))
	switch {
	case errors.Is(err, ErrNotFound):
		return http.StatusUnauthorized, "unknown API key: the ledger holds no key with this value", nil
	case err != nil:
		return 0, "", err
	case k.Revoked():
		return http.StatusUnauthorized, fmt.Sprintf("API key %q was revoked at %s: ask the ledger's admin for a new key ('reelier ledger key create NAME')", k.Name, stamp(k.RevokedAt)), nil
	case !k.Scope.Allows(need):
		return http.StatusForbidden, fmt.Sprintf("API key %q has scope %q: it can list and view receipts but cannot push; pushing needs a key created with '--scope push'", k.Name, k.Scope), nil
	}
	return 0, "", nil
}

// presentedKey returns the key of a Bearer header, or the password of a
// Basic one (what a browser sends after prompting), or "".
func presentedKey(r *http.Request) string {
	h := r.Header.Get("Authorization")
	if scheme, rest, ok := strings.Cut(h, " "); ok && strings.EqualFold(scheme, "Bearer") {
		return strings.TrimSpace(rest)
	}
	if _, pw, ok := r.BasicAuth(); ok {
		return pw
	}
	return ""
}

// loopbackRequest reports whether a request came from a loopback address
// and was addressed to a loopback name, so a web page elsewhere cannot use
// a browser on this machine to reach an open ledger by DNS rebinding.
func loopbackRequest(r *http.Request) bool {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if ip := net.ParseIP(host); err != nil || ip == nil || !ip.IsLoopback() {
		return false
	}
	h := r.Host
	if _, _, err := net.SplitHostPort(h); err == nil {
		return IsLoopback(h)
	}
	return IsLoopback(net.JoinHostPort(strings.Trim(h, "[]"), "0"))
}

// readJSONBody reads a request body of at most maxBody bytes that is
// declared as JSON. On failure it has answered and returns false.
func (s *Server) readJSONBody(w http.ResponseWriter, r *http.Request) ([]byte, bool) {
	if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || mt != "application/json" {
		writeError(w, http.StatusUnsupportedMediaType, "the body must be sent as 'Content-Type: application/json'", nil)
		return nil, false
	}
	tooLarge := fmt.Sprintf("the body is larger than this ledger's limit of %d bytes; the record will never be accepted as it is", s.maxBody)
	if r.ContentLength > s.maxBody {
		writeError(w, http.StatusRequestEntityTooLarge, tooLarge, nil)
		return nil, false
	}
	var body bytes.Buffer
	_, err := body.ReadFrom(http.MaxBytesReader(w, r.Body, s.maxBody))
	var mbe *http.MaxBytesError
	switch {
	case errors.As(err, &mbe):
		writeError(w, http.StatusRequestEntityTooLarge, tooLarge, nil)
		return nil, false
	case err != nil:
		writeError(w, http.StatusBadRequest, "could not read the request body: "+err.Error(), nil)
		return nil, false
	}
	return body.Bytes(), true
}

// unavailable answers 503 for a store failure and logs the cause.
func (s *Server) unavailable(w http.ResponseWriter, err error) {
	s.logf("ledger: database error: %v", err)
	w.Header().Set("Retry-After", "5")
	writeError(w, http.StatusServiceUnavailable, "the ledger's database is unavailable; try again later", nil)
}

// writeJSON answers with a JSON body.
func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.Encode(v)
}

// writeError answers with a cloud.ErrorBody.
func writeError(w http.ResponseWriter, status int, msg string, fe fieldErrors) {
	writeJSON(w, status, wire.ErrorBody{Error: msg, FieldErrors: fe})
}

// newID returns a fresh run id.
func newID() string {
	b := make([]byte, 10)
	rand.Read(b)
	return "run_" + strings.ToLower(base32.StdEncoding.EncodeToString(b))
}
