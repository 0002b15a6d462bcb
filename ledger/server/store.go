package server

import (
	"context"
	"errors"
	"time"

	"github.com/reelier/reelier/ledger/wire"
	"github.com/reelier/reelier/replay/runlog"
)

// Store keeps keys, skills and runs. Implementations run every write in a
// transaction and must be safe for concurrent use, also by several ledger
// processes at once where the database allows it.
type Store interface {
	// AddKey stores an API key's hash under k's unique name, with k's
	// scope and creation time; ErrKeyExists if the name is taken (revoked
	// keys included).
	AddKey(ctx context.Context, k Key, hash []byte) error
	// KeyByHash returns the key with this hash, revoked or not; ErrNotFound
	// if there is none. It reads the database on every call, so a key
	// revoked by any process is refused on the next request.
	KeyByHash(ctx context.Context, hash []byte) (Key, error)
	// Keys lists every key, revoked ones included, ordered by name.
	Keys(ctx context.Context) ([]Key, error)
	// RevokeKey marks the named key revoked at the given time and returns
	// it; ErrNotFound if there is no such key, and the key with
	// ErrKeyRevoked (its first revocation time kept) if it already was.
	RevokeKey(ctx context.Context, name string, at time.Time) (Key, error)
	// HasKeys reports whether any key is stored, revoked keys included:
	// once keyed, a ledger never falls back to its open mode.
	HasKeys(ctx context.Context) (bool, error)
	// PutSkill stores a skill upload, replacing the current file of the
	// same name, and returns the version its content is: a new version
	// (1, 2, …) when the content differs from the latest one, else the
	// latest.
	PutSkill(ctx context.Context, s Skill) (version int, err error)
	// SkillVersions returns every distinct content the skill was uploaded
	// with, oldest first; ErrUnknownSkill if there is no such skill.
	SkillVersions(ctx context.Context, name string) ([]SkillVersion, error)
	// AddRun stores a run unless a run with the same non-empty
	// IdempotencyKey exists, in which case it returns that run's id and
	// duplicate = true. ErrUnknownSkill if the skill was never uploaded.
	AddRun(ctx context.Context, r Run) (id string, duplicate bool, err error)
	// Skills summarises every skill, ordered by name.
	Skills(ctx context.Context) ([]SkillSummary, error)
	// Skill summarises one skill; ErrUnknownSkill if there is none.
	Skill(ctx context.Context, name string) (SkillSummary, error)
	// Runs pages through a skill's runs, newest first; ErrUnknownSkill if
	// there is no such skill.
	Runs(ctx context.Context, skill string, p Page) (RunPage, error)
	// Run returns one run by id; ErrNotFound if there is none.
	Run(ctx context.Context, id string) (Run, error)
	// Health makes the reads of HealthChecks, which a database whose
	// pages are damaged or whose tables are gone fails, and returns a
	// *HealthError naming the first that failed.
	Health(ctx context.Context) error
	// Close releases the store's resources.
	Close() error
}

// Sentinel errors a Store returns; any other error means the database is
// unavailable.
var (
	ErrNotFound     = errors.New("not found")
	ErrUnknownSkill = errors.New("unknown skill")
	ErrKeyExists    = errors.New("a key with this name exists")
	ErrKeyRevoked   = errors.New("the key is already revoked")
)

// Scope is what an API key may do.
type Scope string

// The scopes. A push key uploads skills and runs and reads everything; a
// read key only reads (the pages and the GET API). Keys created before
// scopes existed are push keys: they keep the power they had.
const (
	ScopePush Scope = "push"
	ScopeRead Scope = "read"
)

// Valid reports whether s is one of the scopes.
func (s Scope) Valid() bool { return s == ScopePush || s == ScopeRead }

// Allows reports whether a key of scope s may make a request that needs
// scope need.
func (s Scope) Allows(need Scope) bool { return s == ScopePush || s == need }

// Key is a stored API key, without its hash.
type Key struct {
	Name      string
	Scope     Scope
	CreatedAt time.Time
	// RevokedAt is when the key was revoked; zero while it is valid.
	RevokedAt time.Time
}

// Revoked reports whether the key was revoked.
func (k Key) Revoked() bool { return !k.RevokedAt.IsZero() }

// SkillVersion is one distinct content of a skill file, in upload order.
type SkillVersion struct {
	// Version counts from 1; UploadedAt is the first upload of this
	// content.
	Version    int
	SkillMd    string
	UploadedAt time.Time
}

// HealthChecks are the reads Store.Health makes, in order, each with what
// it is doing in words. They are real queries, not a ping: they read the
// schema version, count the API keys, and read the first and last rows of
// the skills and runs tables, so they go through each table's root page
// and both edges of its B-tree, run bodies included. That is a few dozen
// page reads however large the ledger is, cheap enough for a probe every
// second; a full check of every page is the database's own offline
// integrity check.
var HealthChecks = []HealthCheck{
	{"reading the schema version", `SELECT COALESCE(MAX(version), 0) FROM schema_migrations`},
	{"counting the API keys", `SELECT COUNT(*) FROM api_keys`},
	{"reading the first skill", `SELECT name, skill_md FROM skills ORDER BY name LIMIT 1`},
	{"reading the last skill", `SELECT name, skill_md FROM skills ORDER BY name DESC LIMIT 1`},
	{"reading the oldest run", `SELECT id, skill, record FROM runs ORDER BY seq LIMIT 1`},
	{"reading the newest run", `SELECT id, skill, record FROM runs ORDER BY seq DESC LIMIT 1`},
}

// HealthCheck is one read of a health check: what it does, and the SQL
// (the same in SQLite and PostgreSQL).
type HealthCheck struct {
	What, Query string
}

// HealthError is a failed health check: the read that failed and the
// database's reason, worded to be shown to anyone who can reach
// /healthz (no connection string, host or user name). Err is the error
// itself, for the log.
type HealthError struct {
	What, Reason string
	Err          error
}

func (e *HealthError) Error() string { return e.What + ": " + e.Reason }

func (e *HealthError) Unwrap() error { return e.Err }

// Skill is an uploaded skill file.
type Skill struct {
	// Name is the skill's name and SkillMd the file's source text.
	Name    string
	SkillMd string
	// UploadedAt is the time of the latest upload; Uploads counts them
	// (set by the store on read).
	UploadedAt time.Time
	Uploads    int
}

// Verdict is a run's honest one-word result: the run record's own
// (runlog.Verdict), so the ledger and every other output use one word.
type Verdict = runlog.Verdict

// The verdicts. A run whose steps were never checked is never shown as
// passed.
const (
	VerdictPassed      = runlog.VerdictPassed
	VerdictFailed      = runlog.VerdictFailed
	VerdictUnchecked   = runlog.VerdictUnchecked
	VerdictInterrupted = runlog.VerdictInterrupted
	VerdictConfig      = runlog.VerdictConfig
)

// VerdictOf derives the verdict from step counts.
func VerdictOf(t runlog.Totals) Verdict { return runlog.DeriveVerdict(t) }

// verdictOf is the verdict a received record earns: interrupted when it
// says so, failed when tool drift stopped it before step 1 (it keeps the
// drift, and every step is skipped), otherwise what its steps give (a
// record's own word is never trusted over its steps).
func verdictOf(rec *runlog.Record, t runlog.Totals) Verdict {
	switch {
	case rec.Verdict == VerdictInterrupted && t.Failed == 0:
		return VerdictInterrupted
	case stoppedByToolDrift(rec, t):
		return VerdictFailed
	case t.Failed > 0 && runlog.ConfigFailure(rec.Steps):
		// Every failed step failed for how the run was set up (a refused
		// write, an input that could not be sent): not drift.
		return VerdictConfig
	}
	return VerdictOf(t)
}

// stoppedByToolDrift says a record is a run the drift check stopped: it
// keeps drift that was not ignored, and no step ran.
func stoppedByToolDrift(rec *runlog.Record, t runlog.Totals) bool {
	return rec.ToolDrift != nil && !rec.ToolDrift.Ignored && len(rec.ToolDrift.Tools) > 0 && t.Skipped == t.Steps
}

// StoredVerdict is how a store writes a run's verdict: the verdict
// column's CHECK predates "interrupted" and "config", so an interrupted
// run is written with the verdict its steps earn (never failed: an
// interrupted run has no failed step) and interrupted = 1 (migration
// 0003), and a config run as failed with config = 1 (migration 0004).
func StoredVerdict(r Run) (v Verdict, interrupted, config int) {
	switch r.Verdict {
	case VerdictInterrupted:
		return VerdictOf(r.Totals), 1, 0
	case VerdictConfig:
		return VerdictFailed, 0, 1
	}
	return r.Verdict, 0, 0
}

// ReadVerdict is StoredVerdict undone.
func ReadVerdict(column string, interrupted, config int) Verdict {
	switch {
	case interrupted != 0:
		return VerdictInterrupted
	case config != 0:
		return VerdictConfig
	}
	return Verdict(column)
}

// Run is one stored run record.
type Run struct {
	// ID is the ledger's identifier; Seq orders runs by arrival and is the
	// paging cursor. Both are set by the store.
	ID  string
	Seq int64
	// Skill names the skill; IdempotencyKey is the client's content hash
	// ("" when the client sent none).
	Skill          string
	IdempotencyKey string
	// Record is the run record as received, redacted (Config.Redactor):
	// byte for byte when nothing in it was blanked.
	Record []byte
	// StartedAt and FinishedAt come from the record.
	StartedAt, FinishedAt time.Time
	// Verdict and Totals are derived from the record's step outcomes, never
	// copied from its own totals; Healed counts its steps that healed
	// (level 1 or 2).
	Verdict Verdict
	Totals  runlog.Totals
	Healed  int
	// Mock says the run was against `reelier mock` (a server of its
	// record's servers was): labelled on the pages, and left out of pass
	// rates unless asked for.
	Mock bool
	// Signature is what the ledger made of the record's signature
	// (SignatureVerified, SignatureUntrusted, SignatureUnsigned; "" reads
	// as unsigned) and Signer who signed it, "" for an unsigned record.
	Signature SignatureState
	Signer    string
	// ReceivedAt is when the ledger stored it.
	ReceivedAt time.Time
}

// SignatureState is what the ledger made of a run's signature.
type SignatureState string

// The signature states (the values of wire's Signature* constants).
const (
	SignatureVerified  SignatureState = wire.SignatureVerified
	SignatureUntrusted SignatureState = wire.SignatureUntrusted
	SignatureUnsigned  SignatureState = wire.SignatureUnsigned
)

// Signature is a run's signature state and signer.
type Signature struct {
	State  SignatureState
	Signer string
}

// Rejection is VerifyRecord's refusal of a record: its bundle is not a
// receipt, not this record's, or forged. The ledger answers 400.
type Rejection struct{ Reason string }

func (r *Rejection) Error() string { return r.Reason }

// SignatureState is the run's signature state, unsigned when unset.
func (r Run) SignatureState() SignatureState {
	if r.Signature == "" {
		return SignatureUnsigned
	}
	return r.Signature
}

// SkillSummary is a skill with figures over its runs.
type SkillSummary struct {
	// Name, UploadedAt and Uploads are the skill's, as in Skill.
	Name       string
	UploadedAt time.Time
	Uploads    int
	// Runs counts all runs. Passed, Failed, Config, Unchecked and
	// Interrupted count the runs against live servers by verdict (Failed
	// does not count config runs: a refused write or an input that could
	// not be sent is not drift); Mock counts the runs against `reelier
	// mock`, MockPassed and MockConfig those of them passed and config.
	// HealedRuns counts the runs in which a step healed.
	Runs, Passed, Failed, Config, Unchecked, Interrupted, HealedRuns int
	Mock, MockPassed, MockConfig                                     int
	// Tokens is the LLM tokens (input + output) of all runs.
	Tokens int64
	// Latest is the newest run by arrival, nil when there is none; its
	// Totals and Healed are set, its Record is not.
	Latest *Run
}

// PassRate is the share of the runs against live servers that passed,
// config runs left out (they tested nothing about the servers); unchecked
// runs do not count as passed. 0 when there is no such run.
func (s SkillSummary) PassRate() float64 {
	return rate(s.Passed, s.Runs-s.Mock-s.Config)
}

// PassRateWithMock is PassRate with the runs against `reelier mock`
// counted too (the pages' "include mock runs" filter).
func (s SkillSummary) PassRateWithMock() float64 {
	return rate(s.Passed+s.MockPassed, s.Runs-s.Config-s.MockConfig)
}

// RatedRuns is the number of runs PassRate (withMock: PassRateWithMock)
// is taken over.
func (s SkillSummary) RatedRuns(withMock bool) int {
	if withMock {
		return s.Runs - s.Config - s.MockConfig
	}
	return s.Runs - s.Mock - s.Config
}

func rate(n, of int) float64 {
	if of <= 0 {
		return 0
	}
	return float64(n) / float64(of)
}

// Page selects runs: at most Limit of them, all older than Before (a Seq;
// 0 means from the newest).
type Page struct {
	Limit  int
	Before int64
}

// RunPage is one page of runs, newest first. Next is the Before of the
// following page, 0 when this is the last.
type RunPage struct {
	Runs []Run
	Next int64
}
