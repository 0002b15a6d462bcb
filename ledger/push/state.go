package push

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/reelier/reelier/internal/atomicfile"
)

// DefaultStatePath is the cursor file, relative to the working directory.
const DefaultStatePath = ".reelier/push-state.json"

// State is one ledger's part of the cursor file: one entry per skill name.
// It is local bookkeeping only; the ledger is never asked what it has
// seen.
type State map[string]*SkillState

// stateVersion is the cursor file's format: 2 keys the States by ledger.
const stateVersion = 2

// stateFile is the cursor file: each ledger's State, keyed by its base
// URL (no trailing slash), so a push to a second ledger starts afresh
// there — its skill upload first — and the first ledger's cursors stay.
// A file from before (version 1: one State, whichever ledger it was) is
// read as the State of legacyLedger, which the next push adopts for the
// ledger it goes to; until then it is kept as it was.
type stateFile struct {
	Version int              `json:"version"`
	Ledgers map[string]State `json:"ledgers"`
}

// legacyLedger keys a version-1 state whose ledger is not known.
const legacyLedger = ""

// ledger is the State of the ledger at url, adopting a version-1 state
// when this file has nothing for url yet.
func (f *stateFile) ledger(url string) State {
	if st, ok := f.Ledgers[url]; ok {
		return st
	}
	st, ok := f.Ledgers[legacyLedger]
	if ok && url != legacyLedger {
		delete(f.Ledgers, legacyLedger)
	} else if !ok {
		st = State{}
	}
	f.Ledgers[url] = st
	return st
}

// peek is the State of the ledger at url as the file has it, changing
// nothing: url's own, else the version-1 state, else — when url is "" —
// the only ledger's; empty when none.
func (f *stateFile) peek(url string) State {
	if st, ok := f.Ledgers[url]; ok {
		return st
	}
	if st, ok := f.Ledgers[legacyLedger]; ok {
		return st
	}
	if url == "" && len(f.Ledgers) == 1 {
		for _, st := range f.Ledgers {
			return st
		}
	}
	return State{}
}

// SkillState is one skill's push bookkeeping.
type SkillState struct {
	// Pushed is how many records, from the start of the history file, the
	// cursor has moved past (pushed or permanently rejected).
	Pushed int `json:"pushed"`
	// SkillUploaded is true once the skill file was accepted by the ledger.
	SkillUploaded bool `json:"skillUploaded"`
	// SkillSHA256 is the content hash (cloud.SkillHash) of the skill file
	// last accepted; a push whose file hashes otherwise uploads it again,
	// so after a heal the ledger holds the current file. Empty in state
	// files from before it existed, which therefore upload once more.
	SkillSHA256 string `json:"skillSha256,omitempty"`
	// Rejected is the audit log of permanent rejections, oldest first. It
	// is never pruned; a record rejected again gets another entry.
	Rejected []Rejection `json:"rejected,omitempty"`
}

// Rejection is one permanent rejection of a record.
type Rejection struct {
	// Index is the record's 0-based position in the history file.
	Index int `json:"index"`
	// Reason is the ledger's field errors (400) or size-limit message (413).
	Reason string `json:"reason"`
	// At is when the rejection was recorded, as an ISO-8601 UTC timestamp.
	At string `json:"at"`
}

// errCorrupt marks a state file that exists but cannot be read as a state.
var errCorrupt = errors.New("corrupt push state")

// ReadState reads a state file and returns the State of the ledger at
// url (a base URL without a trailing slash; "" for the only ledger the
// file knows); it changes nothing. A missing file is an empty state. A
// file that is not a valid state yields an empty state and an error
// wrapping errCorrupt (test it with IsCorrupt); any other error is an
// I/O failure.
func ReadState(path, url string) (State, error) {
	f, err := readState(place{}, path)
	if err != nil {
		return State{}, err
	}
	return f.peek(url), nil
}

// readState reads the cursor file in fsys: version 2, or a version-1
// file (one State) read as legacyLedger's.
func readState(fsys place, path string) (*stateFile, error) {
	empty := &stateFile{Version: stateVersion, Ledgers: map[string]State{}}
	data, err := fsys.readFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return empty, nil
	}
	if err != nil {
		return nil, err
	}
	var probe struct {
		Version json.RawMessage `json:"version"`
	}
	if json.Unmarshal(data, &probe) == nil && string(probe.Version) == "2" {
		var f stateFile
		if err := decodeOne(data, &f); err != nil {
			return empty, fmt.Errorf("%w: %s: %v", errCorrupt, path, err)
		}
		if f.Ledgers == nil {
			f.Ledgers = map[string]State{}
		}
		for url, st := range f.Ledgers {
			if st == nil {
				st = State{}
				f.Ledgers[url] = st
			}
			if err := st.check(); err != nil {
				return empty, fmt.Errorf("%w: %s: ledger %q: %v", errCorrupt, path, url, err)
			}
		}
		return &f, nil
	}
	var st State
	if err := decodeOne(data, &st); err != nil {
		return empty, fmt.Errorf("%w: %s: %v", errCorrupt, path, err)
	}
	if st == nil {
		return empty, fmt.Errorf("%w: %s: not a JSON object", errCorrupt, path)
	}
	if err := st.check(); err != nil {
		return empty, fmt.Errorf("%w: %s: %v", errCorrupt, path, err)
	}
	empty.Ledgers[legacyLedger] = st
	return empty, nil
}

// decodeOne decodes exactly one JSON value.
func decodeOne(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(v); err != nil {
		return err
	}
	if dec.More() {
		return errors.New("data after the JSON object")
	}
	return nil
}

// check drops empty entries and refuses a negative cursor.
func (st State) check() error {
	for name, s := range st {
		switch {
		case s == nil:
			delete(st, name)
		case s.Pushed < 0:
			return fmt.Errorf("%q has a negative cursor", name)
		}
	}
	return nil
}

// IsCorrupt reports whether err from ReadState means the file is corrupt.
func IsCorrupt(err error) bool { return errors.Is(err, errCorrupt) }

// setAside renames a corrupt state file to <path>.corrupt-<epoch-ms> and
// returns the new name. It is best effort: on failure the corrupt content
// is simply overwritten by the next save, and "" is returned.
func setAside(fsys place, path string, now time.Time) string {
	aside := fmt.Sprintf("%s.corrupt-%d", path, now.UnixMilli())
	if fsys.rename(path, aside) != nil {
		return ""
	}
	return aside
}

// skill returns the entry for name, creating it.
func (st State) skill(name string) *SkillState {
	s := st[name]
	if s == nil {
		s = &SkillState{}
		st[name] = s
	}
	return s
}

// save replaces the state file atomically: a reader sees the old file or
// the new one, never a torn write.
func (f *stateFile) save(fsys place, path string) error {
	f.Version = stateVersion
	data, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return err
	}
	if err := fsys.mkdirAll(filepath.Dir(path)); err != nil {
		return err
	}
	return fsys.writeFile(path, append(data, '\n'))
}

// place is where a push's files are: by path, or names inside root when
// it is set (Options.Root).
type place struct{ root *os.Root }

func (p place) readFile(name string) ([]byte, error) {
	if p.root != nil {
		return p.root.ReadFile(name)
	}
	return os.ReadFile(name)
}

// readFileMax reads a file of at most max bytes.
func (p place) readFileMax(name string, max int64) ([]byte, error) {
	var f *os.File
	var err error
	if p.root != nil {
		f, err = p.root.Open(name)
	} else {
		f, err = os.Open(name)
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, max+1))
	if err == nil && int64(len(data)) > max {
		err = fmt.Errorf("more than %d bytes", max)
	}
	return data, err
}

// readDirNames lists a folder's file names; none when it cannot be read.
func (p place) readDirNames(name string) []string {
	var ents []fs.DirEntry
	if p.root != nil {
		ents, _ = fs.ReadDir(p.root.FS(), filepath.ToSlash(name))
	} else {
		ents, _ = os.ReadDir(name)
	}
	names := make([]string, 0, len(ents))
	for _, e := range ents {
		names = append(names, e.Name())
	}
	return names
}

func (p place) mkdirAll(name string) error {
	if p.root != nil {
		return p.root.MkdirAll(name, 0o755)
	}
	return os.MkdirAll(name, 0o755)
}

func (p place) openFile(name string, flag int, perm os.FileMode) (*os.File, error) {
	if p.root != nil {
		return p.root.OpenFile(name, flag, perm)
	}
	return os.OpenFile(name, flag, perm)
}

func (p place) rename(oldname, newname string) error {
	if p.root != nil {
		return p.root.Rename(oldname, newname)
	}
	return os.Rename(oldname, newname)
}

// writeFile replaces name atomically (a new file gets mode 0644).
func (p place) writeFile(name string, data []byte) error {
	if p.root != nil {
		return atomicfile.WriteIn(p.root, name, data, 0o644)
	}
	return atomicfile.Write(name, data, 0o644)
}
