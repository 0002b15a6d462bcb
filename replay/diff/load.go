package diff

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/reelier/reelier/internal/words"
	"github.com/reelier/reelier/lang/ast"
	"github.com/reelier/reelier/lang/grammar"
	"github.com/reelier/reelier/replay/runlog"
	"github.com/reelier/reelier/trace"
)

// Input is what `reelier diff` was given.
type Input struct {
	// Args are one skill (a skill file, a skill name or a file of run
	// records), or two files: two traces or two files of run records.
	Args []string
	// Runs pick two runs from a skill's history by number: 1 is the
	// oldest, -1 the newest. Empty means the last two.
	Runs []int
	// RunsDir is where run histories are kept (runlog.DefaultDir).
	RunsDir string
	// Skill is a skill file whose checks decide which values are
	// type-only; empty means the one the input names, if any.
	Skill string
}

// Load reads the input and compares it. Every error is bad input: a file
// that cannot be read, a trace with a bad line, fewer than two runs.
func Load(in Input) (*Report, error) {
	if in.RunsDir == "" {
		in.RunsDir = runlog.DefaultDir
	}
	var explicit *skillFile
	if in.Skill != "" {
		sf, err := readSkill(in.Skill)
		if err != nil {
			return nil, err
		}
		explicit = sf
	}
	switch len(in.Args) {
	case 1:
		return loadOne(in, explicit)
	case 2:
		return loadTwo(in, explicit)
	}
	return nil, fmt.Errorf("diff takes one skill (its last two runs) or two files, got %d arguments", len(in.Args))
}

// The kinds of file diff reads.
const (
	kindOther = iota
	kindTrace
	kindRuns
)

// sniff tells a trace (its first record has "t") from a file of run
// records (its first line has "skill") by the first non-blank line.
func sniff(path string) (int, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	if info, err := f.Stat(); err == nil && info.IsDir() {
		return 0, fmt.Errorf("%s is a directory", path)
	}
	br := bufio.NewReader(f)
	for {
		line, err := br.ReadBytes('\n')
		if len(bytes.TrimSpace(line)) > 0 {
			var fields map[string]json.RawMessage
			if json.Unmarshal(line, &fields) != nil {
				return kindOther, nil
			}
			switch {
			case fields["t"] != nil:
				return kindTrace, nil
			case fields["skill"] != nil:
				return kindRuns, nil
			}
			return kindOther, nil
		}
		if errors.Is(err, io.EOF) {
			return kindOther, nil
		}
		if err != nil {
			return 0, err
		}
	}
}

// loadTwo compares two files: two traces, or the last record of each of
// two files of run records.
func loadTwo(in Input, explicit *skillFile) (*Report, error) {
	pa, pb := in.Args[0], in.Args[1]
	ka, err := sniff(pa)
	if err != nil {
		return nil, err
	}
	kb, err := sniff(pb)
	if err != nil {
		return nil, err
	}
	for _, k := range []struct {
		path string
		kind int
	}{{pa, ka}, {pb, kb}} {
		if k.kind == kindOther {
			return nil, fmt.Errorf("%s is neither a trace nor a file of run records", k.path)
		}
	}
	if ka != kb {
		what := map[int]string{kindTrace: "a trace", kindRuns: "a file of run records"}
		return nil, fmt.Errorf("%s is %s and %s is %s: diff compares two traces or two runs", pa, what[ka], pb, what[kb])
	}
	if len(in.Runs) > 0 {
		return nil, errors.New("--run picks runs from one skill's history; with two files, each file's last run is compared")
	}
	if ka == kindTrace {
		ta, err := loadTrace(pa)
		if err != nil {
			return nil, err
		}
		tb, err := loadTrace(pb)
		if err != nil {
			return nil, err
		}
		r := Traces(ta, tb, pa, pb, explicit.profile())
		explicit.describe(r)
		return r, nil
	}
	ha, err := readHistory(pa)
	if err != nil {
		return nil, err
	}
	hb, err := readHistory(pb)
	if err != nil {
		return nil, err
	}
	var notes []string
	for _, h := range []*history{ha, hb} {
		if len(h.records) == 0 {
			return nil, fmt.Errorf("%s holds no run record", h.path)
		}
		notes = append(notes, h.notes()...)
	}
	a := run(ha, len(ha.records)-1, ha.path+": last run")
	b := run(hb, len(hb.records)-1, hb.path+": last run")
	return compareRuns(a, b, explicit, notes), nil
}

// loadOne compares the last two runs of a skill (or the two --run picks).
func loadOne(in Input, explicit *skillFile) (*Report, error) {
	arg := in.Args[0]
	var h *history
	var fromArg *skillFile
	kind, err := sniff(arg)
	switch {
	case err == nil && kind == kindTrace:
		return nil, fmt.Errorf("%s is a trace: give a second trace to compare it with", arg)
	case err == nil && kind == kindRuns:
		if h, err = readHistory(arg); err != nil {
			return nil, err
		}
	case err == nil:
		// A skill file: its history is named after it.
		if fromArg, err = readSkill(arg); err != nil {
			return nil, err
		}
		if h, err = skillHistory(in.RunsDir, fromArg.skill.Name()); err != nil {
			return nil, err
		}
		h = h.forFile(arg)
	case errors.Is(err, fs.ErrNotExist) && !strings.ContainsAny(arg, `/\`) && !strings.HasSuffix(arg, ".md") && !strings.HasSuffix(arg, ".jsonl"):
		// A skill name.
		if h, err = skillHistory(in.RunsDir, arg); err != nil {
			return nil, err
		}
	default:
		return nil, err
	}
	n := len(h.records)
	switch {
	case n < 2 && h.others > 0:
		return nil, fmt.Errorf("%s holds %s of %q from %s (and %s of another file with that name): diff needs two (run the skill again, or compare two traces)",
			h.path, words.Count(n, "run record"), h.skill(), arg, words.Count(h.others, "run"))
	case n < 2:
		return nil, fmt.Errorf("%s holds %s of %q: diff needs two (run the skill again, or compare two traces)", h.path, words.Count(n, "run record"), h.skill())
	}
	ia, ib := n-2, n-1
	switch len(in.Runs) {
	case 0:
	case 2:
		if ia, err = pick(in.Runs[0], n, h.path); err != nil {
			return nil, err
		}
		if ib, err = pick(in.Runs[1], n, h.path); err != nil {
			return nil, err
		}
	default:
		return nil, fmt.Errorf("--run is given twice, once for each run to compare (got it %d times)", len(in.Runs))
	}
	a := run(h, ia, fmt.Sprintf("run %d", ia+1))
	b := run(h, ib, fmt.Sprintf("run %d", ib+1))
	sf := explicit
	if sf == nil {
		sf = fromArg
	}
	return compareRuns(a, b, sf, h.notes()), nil
}

// pick turns a --run number into an index: 1 is the first record, -1 the
// last.
func pick(k, n int, path string) (int, error) {
	i := k - 1
	if k < 0 {
		i = n + k
	}
	if k == 0 || i < 0 || i >= n {
		return 0, fmt.Errorf("--run %d: %s holds runs 1 to %d (or -1 to -%d from the newest)", k, path, n, n)
	}
	return i, nil
}

// compareRuns compares two runs with the skill that decides type-only
// values: the one given, else the file the newer record names, else the
// older one's.
func compareRuns(a, b Run, sf *skillFile, notes []string) *Report {
	var sha string
	if sf == nil {
		for _, rec := range []*runlog.Record{b.Record, a.Record} {
			if rec.Path == "" {
				continue
			}
			if got, err := readSkill(filepath.FromSlash(rec.Path)); err == nil {
				sf, sha = got, rec.SkillSHA256
				break
			}
		}
	} else {
		sha = b.Record.SkillSHA256
	}
	r := Runs(a, b, sf.profile())
	r.Notes = append(notes, r.Notes...)
	sf.describe(r)
	if sf != nil && sha != "" && sha != sf.sha {
		r.Notes = append(r.Notes, fmt.Sprintf("%s changed since %s was run: its checks are read as they are now", sf.path, b.Name))
	}
	return r
}

func run(h *history, i int, name string) Run {
	rec := &h.records[i]
	verdict := string(rec.RunVerdict())
	return Run{Record: rec, Name: name, Desc: fmt.Sprintf("%s of %q (started %s, %s)", name, rec.Skill, rec.StartedAt, verdict)}
}

// loadTrace reads and checks a whole trace.
func loadTrace(path string) (*trace.Trace, error) {
	t, err := trace.Load(path)
	if err != nil {
		var le *trace.LineError
		if errors.As(err, &le) {
			return nil, fmt.Errorf("%s:%d: %s", path, le.Line, strings.TrimPrefix(le.Error(), fmt.Sprintf("line %d: ", le.Line)))
		}
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, fs.ErrPermission) {
			return nil, err
		}
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	return t, nil
}

// history is a file of run records.
type history struct {
	path    string
	hist    *runlog.History
	records []runlog.Record
	corrupt int
	// others counts the runs left out as another file's.
	others int
}

func (h *history) skill() string {
	if len(h.records) > 0 {
		return h.records[len(h.records)-1].Skill
	}
	return strings.TrimSuffix(filepath.Base(h.path), ".jsonl")
}

func (h *history) notes() []string {
	var out []string
	if h.corrupt > 0 {
		out = append(out, fmt.Sprintf("%s: %s skipped (not run records); runs are numbered without them", h.path, words.Count(h.corrupt, "line")))
	}
	if h.others > 0 {
		out = append(out, fmt.Sprintf("%s: %s of another file with the same skill name left out; runs are numbered without them", h.path, words.Count(h.others, "run")))
	}
	return out
}

// skillHistory reads the history of a skill named name in dir.
func skillHistory(dir, name string) (*history, error) {
	path := runlog.Path(dir, name)
	h, err := readHistory(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("no run records of %q in %s (reelier run writes one per run; --runs-dir names another folder)", name, dir)
	}
	return h, err
}

// readHistory reads a file of run records: the lines runlog.Read accepts.
func readHistory(path string) (*history, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	hist, err := runlog.Read(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	return historyOf(path, hist), nil
}

func historyOf(path string, hist *runlog.History) *history {
	h := &history{path: path, corrupt: len(hist.Corrupt), hist: hist}
	for _, e := range hist.Entries {
		h.records = append(h.records, e.Record)
	}
	return h
}

// forFile keeps the runs of one skill file: two files that share a name
// share a history (runlog.History.ForFile).
func (h *history) forFile(path string) *history {
	kept, _ := h.hist.ForFile(filepath.ToSlash(path))
	out := historyOf(h.path, kept)
	if n := len(h.records) - len(out.records); n > 0 {
		out.others = n
	}
	return out
}

// skillFile is a skill read for its checks.
type skillFile struct {
	path  string
	sha   string
	skill *ast.Skill
}

// readSkill reads and parses a skill file.
func readSkill(path string) (*skillFile, error) {
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	skill, diags := grammar.Parse(path, src)
	for _, d := range diags {
		if d.Severity == ast.SeverityError {
			return nil, fmt.Errorf("%s does not parse as a skill: %s", path, d.String())
		}
	}
	if skill == nil {
		return nil, fmt.Errorf("%s does not parse as a skill", path)
	}
	sum := sha256.Sum256(src)
	return &skillFile{path: path, sha: hex.EncodeToString(sum[:]), skill: skill}, nil
}

func (sf *skillFile) profile() *Profile {
	if sf == nil {
		return nil
	}
	return NewProfile(sf.skill)
}

func (sf *skillFile) describe(r *Report) {
	if sf != nil {
		r.Skill = sf.path
	}
}
