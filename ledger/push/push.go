package push

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/reelier/reelier/ledger/wire"
	"github.com/reelier/reelier/replay/runlog"
)

// Options says what to push and how.
type Options struct {
	// Skill is the skill's frontmatter name and SkillMd its source text.
	Skill   string
	SkillMd []byte
	// RunsFile is the skill's history file (one run record per line).
	RunsFile string
	// StatePath is the cursor file, normally DefaultStatePath.
	StatePath string
	// BundlesDir is the folder of the skill's signed receipts
	// (runlog.BundleDir); "" sends no bundle. A record whose bundle is
	// there (runlog.BundleName) is sent with it.
	BundlesDir string
	// Root, when set, is the directory RunsFile and StatePath are names
	// in: every file the push reads or writes (the history, the state, its
	// lock, a corrupt state set aside) is reached through it, so no
	// symbolic link, even one swapped in after the caller checked the
	// paths, leads outside it. Paths in Events are then names in Root too.
	Root *os.Root
	// All reconsiders every record from the start instead of the cursor.
	All bool
	// WithSkill uploads the skill file even if it was uploaded before and
	// has not changed since.
	WithSkill bool
	// Client sends the requests.
	Client *Client
	// Ledger keys the state file's cursors: the ledger's base URL without
	// a trailing slash; "" means Client's. DryRun, which has no client,
	// reads it ("" there: the only ledger the state file knows).
	Ledger string
	// Now is the clock for rejection timestamps; nil means time.Now.
	Now func() time.Time
	// Report, when set, is told of each step as it happens.
	Report func(Event)
}

// EventKind says what an Event reports.
type EventKind int

// The events of a push, in the order they can happen.
const (
	// Waiting: another push holds the state file's lock; this one waits.
	Waiting EventKind = iota
	// StateSetAside: the state file was corrupt; Path is where it went
	// ("" if it could not be renamed) and Err why it was unreadable.
	StateSetAside
	// CursorPastEnd: the cursor is beyond the history file's last record
	// (the file was truncated or replaced); nothing is pushed.
	CursorPastEnd
	// SkillUploaded: the skill file was accepted.
	SkillUploaded
	// RecordDone: a record was pushed, rejected or blocked (see Outcome).
	RecordDone
)

// Event is one step of a push, for progress output.
type Event struct {
	Kind EventKind
	// Index is the record's 0-based index and Outcome what became of it
	// (RecordDone).
	Index   int
	Outcome Outcome
	// Path is the lock file (Waiting) or where a corrupt state file went
	// (StateSetAside).
	Path string
	// Why says why the skill file was sent and Version is the ledger's
	// number for its content, 0 when the ledger gave none (SkillUploaded).
	Why     UploadReason
	Version int
	// Err is why the state file was unreadable (StateSetAside).
	Err error
}

// UploadReason says why the skill file was sent.
type UploadReason int

// The reasons to upload the skill file.
const (
	// FirstUpload: this state file never saw it accepted.
	FirstUpload UploadReason = iota
	// ContentChanged: its content hash differs from the last upload's (a
	// heal or an edit rewrote it).
	ContentChanged
	// Forced: --with-skill.
	Forced
)

// uploadReason says whether and why the skill file must be sent.
func uploadReason(ss *SkillState, skillMd []byte, force bool) (UploadReason, bool) {
	switch {
	case !ss.SkillUploaded:
		return FirstUpload, true
	case ss.SkillSHA256 != wire.SkillHash(skillMd):
		return ContentChanged, true
	case force:
		return Forced, true
	}
	return 0, false
}

// UploadStatus says what became of the skill file.
type UploadStatus int

// The skill file's possible fates.
const (
	// AlreadyUploaded: an earlier push uploaded it; it was not sent.
	AlreadyUploaded UploadStatus = iota
	// Uploaded: it was sent and accepted.
	Uploaded
	// UploadFailed: it was sent and not accepted; no record was attempted.
	UploadFailed
)

// Result sums up a push.
type Result struct {
	// Skill is the skill pushed and Upload what became of its file.
	Skill  string
	Upload UploadStatus
	// Pushed counts records answered 202, Duplicates those of them the
	// ledger already held, Rejected the permanent rejections.
	Pushed, Duplicates, Rejected int
	// NotSent counts the records of runs with an injected failure
	// (reelier run --fail), which are never sent.
	NotSent int
	// RejectedIndexes are the indexes of the records rejected permanently
	// in this push, in file order.
	RejectedIndexes []int
	// Records is the number of records in the history file.
	Records int
	// CursorBefore and CursorAfter bracket this push; the state file holds
	// CursorAfter.
	CursorBefore, CursorAfter int
	// Stopped is non-nil when the push ended early on a transient outcome
	// (the skill upload failed or a record was blocked); running push again
	// resumes at CursorAfter.
	Stopped error
}

// Push sends the skill file when needed and then every record from the
// cursor on, strictly in order, saving the cursor after each record that
// is consumed. The history file is read before anything is locked or
// written, so a missing one (an error wrapping fs.ErrNotExist) changes
// nothing. The returned error is a local failure (history unreadable,
// state file unwritable, lock unavailable); what the ledger said is in the
// Result.
func Push(ctx context.Context, opts Options) (Result, error) {
	res := Result{Skill: opts.Skill}
	now := opts.Now
	if now == nil {
		now = time.Now
	}
	report := opts.Report
	if report == nil {
		report = func(Event) {}
	}
	fsys := place{opts.Root}
	recs, err := readRecords(fsys, opts.RunsFile)
	if err != nil {
		return res, err
	}
	unlock, err := lockState(fsys, opts.StatePath, report)
	if err != nil {
		return res, err
	}
	defer unlock()
	file, err := readState(fsys, opts.StatePath)
	if IsCorrupt(err) {
		report(Event{Kind: StateSetAside, Path: setAside(fsys, opts.StatePath, now()), Err: err})
	} else if err != nil {
		return res, fmt.Errorf("reading the push state: %w", err)
	}
	ledger := opts.Ledger
	if ledger == "" && opts.Client != nil {
		ledger = opts.Client.Config.BaseURL
	}
	st := file.ledger(ledger)
	b := &batch{opts: opts, file: file, ss: st.skill(opts.Skill), res: &res, now: now, report: report}
	return res, b.run(ctx, recs)
}

// batch is one push in progress.
type batch struct {
	opts Options
	file *stateFile
	ss   *SkillState
	res  *Result
	// bundles are the file names in BundlesDir, read once when needed.
	bundles []string
	now     func() time.Time
	report  func(Event)
}

func (b *batch) run(ctx context.Context, recs []record) error {
	res, ss := b.res, b.ss
	res.Records = len(recs)
	if !b.opts.All {
		res.CursorBefore = ss.Pushed
	}
	res.CursorAfter = res.CursorBefore
	if why, send := uploadReason(ss, b.opts.SkillMd, b.opts.WithSkill); send {
		acc, err := b.opts.Client.UploadSkill(ctx, b.opts.Skill, b.opts.SkillMd)
		if err != nil {
			res.Upload, res.Stopped = UploadFailed, err
			return nil
		}
		res.Upload, ss.SkillUploaded, ss.SkillSHA256 = Uploaded, true, wire.SkillHash(b.opts.SkillMd)
		b.report(Event{Kind: SkillUploaded, Why: why, Version: acc.Version})
	}
	if res.CursorBefore > len(recs) {
		b.report(Event{Kind: CursorPastEnd})
		return b.save(-1)
	}
	ss.Pushed = res.CursorBefore
	for i := res.CursorBefore; i < len(recs); i++ {
		out := b.send(ctx, recs[i])
		b.report(Event{Kind: RecordDone, Index: i, Outcome: out})
		switch out.Kind {
		case Blocked:
			res.Stopped = fmt.Errorf("record %d: %w", i, out.Err)
			return b.save(-1)
		case Rejected:
			res.Rejected++
			res.RejectedIndexes = append(res.RejectedIndexes, i)
			ss.Rejected = append(ss.Rejected, Rejection{Index: i, Reason: out.Reason, At: runlog.Timestamp(b.now())})
		case NotSent:
			res.NotSent++
		case Pushed:
			res.Pushed++
			if out.Duplicate {
				res.Duplicates++
			}
		}
		ss.Pushed = i + 1
		res.CursorAfter = ss.Pushed
		if err := b.save(i); err != nil {
			return err
		}
	}
	return b.save(-1)
}

// send uploads one record; a line that is not JSON cannot be sent and is
// rejected here, permanently, like a 400 from the ledger.
func (b *batch) send(ctx context.Context, r record) Outcome {
	if r.err != nil {
		return Outcome{Kind: Rejected, Reason: fmt.Sprintf("line %d is not a JSON run record (%v); it was not sent", r.line, r.err)}
	}
	if injected(r.data) {
		return Outcome{Kind: NotSent}
	}
	bundle, err := b.bundle(r)
	if err != nil {
		return Outcome{Kind: Rejected, Reason: err.Error() + "; the record was not sent"}
	}
	return b.opts.Client.PushSignedRun(ctx, b.opts.Skill, r.data, bundle)
}

// maxBundle bounds a bundle file read (a receipt's is a few KiB).
const maxBundle = 16 << 20

// bundle is the record's bundle from BundlesDir, nil when there is none:
// the file runlog.BundleName names, or else the one bundle of a record
// that started at the same time — the bundle of this record as it was
// signed, before a byte of it changed, which the ledger then refuses
// with the reason (an altered record is never sent as merely unsigned).
func (b *batch) bundle(r record) ([]byte, error) {
	if b.opts.BundlesDir == "" {
		return nil, nil
	}
	var head struct {
		StartedAt string `json:"startedAt"`
	}
	if json.Unmarshal(r.data, &head) != nil || head.StartedAt == "" {
		return nil, nil
	}
	fsys := place{b.opts.Root}
	want := runlog.BundleName(head.StartedAt, wire.RecordSHA256(r.data))
	name := filepath.Join(b.opts.BundlesDir, want)
	data, err := fsys.readFileMax(name, maxBundle)
	if errors.Is(err, fs.ErrNotExist) {
		if b.bundles == nil {
			b.bundles = fsys.readDirNames(b.opts.BundlesDir)
		}
		prefix := want[:strings.LastIndexByte(want, '-')+1]
		var same []string
		for _, n := range b.bundles {
			if strings.HasPrefix(n, prefix) && strings.HasSuffix(n, ".sigstore.json") {
				same = append(same, n)
			}
		}
		if len(same) != 1 {
			return nil, nil
		}
		name = filepath.Join(b.opts.BundlesDir, same[0])
		data, err = fsys.readFileMax(name, maxBundle)
	}
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, nil
	case err != nil:
		return nil, fmt.Errorf("its bundle %s cannot be read: %v", name, err)
	case !json.Valid(data):
		return nil, fmt.Errorf("its bundle %s is not JSON", name)
	}
	return data, nil
}

// save writes the state. After an accepted record (index ≥ 0) a failure
// means the ledger has the record but the cursor does not say so; the next
// push re-sends it and the idempotency key lets the ledger drop the copy.
func (b *batch) save(index int) error {
	err := b.file.save(place{b.opts.Root}, b.opts.StatePath)
	switch {
	case err == nil:
		return nil
	case index >= 0:
		b.res.CursorAfter = index
		return fmt.Errorf("record %d reached the ledger but the cursor could not be saved (%w); the next push sends it again and the ledger recognises the copy", index, err)
	}
	return fmt.Errorf("saving the push state: %w", err)
}

// lockState takes the lock that serialises pushes sharing a state file,
// waiting (and saying so) while another push holds it. The lock file is
// opened through fsys and locked by its descriptor, so the file locked is
// the one created, wherever a link points by then.
func lockState(fsys place, statePath string, report func(Event)) (func(), error) {
	if err := fsys.mkdirAll(filepath.Dir(statePath)); err != nil {
		return nil, fmt.Errorf("creating the state directory: %w", err)
	}
	name := statePath + ".lock"
	f, err := fsys.openFile(name, os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, fmt.Errorf("locking %s: %w", name, err)
	}
	ok, err := tryLockFile(f)
	if err == nil && !ok {
		report(Event{Kind: Waiting, Path: name})
		err = lockFile(f)
	}
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("locking %s: %w", name, err)
	}
	return func() {
		unlockFile(f)
		f.Close()
	}, nil
}

// injected reports a run record with an injected failure (reelier run
// --fail): its top-level "injected" member is present and not null.
func injected(data []byte) bool {
	var top struct {
		Injected json.RawMessage `json:"injected"`
	}
	return json.Unmarshal(data, &top) == nil && len(top.Injected) > 0 && string(top.Injected) != "null"
}
