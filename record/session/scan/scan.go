package scan

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/reelier/reelier/record/session"
)

// openFile opens a transcript; tests replace it to make files unreadable
// even for root.
var openFile = os.Open

// sniffSize is how much of a file is checked for NUL bytes before it is
// read as a transcript.
const sniffSize = 8 << 10

// Options configure Scan.
type Options struct {
	// Workers is how many files are read at once; DefaultWorkers() if 0.
	Workers int
	// MaxLine is passed to session.Read.
	MaxLine int
	// Progress, if set, is called after each file with the totals so far.
	// Calls may come from several goroutines, one at a time.
	Progress func(Progress)
}

// Progress is how far a scan has got.
type Progress struct {
	Files, FilesDone int
	Bytes, BytesDone int64
}

// Entry is one session with at least one replayable call.
type Entry struct {
	// Path is the transcript file.
	Path string `json:"path"`
	// Project is the last element of the session's working directory, or
	// the name of the directory holding the file when no line names one.
	Project   string `json:"project"`
	SessionID string `json:"sessionId"`
	// StartedAt is the session's first time; zero when it has none.
	StartedAt time.Time `json:"startedAt"`
	// Calls is the number of replayable calls with a result.
	Calls int `json:"calls"`
	// Servers are the MCP servers those calls used, by first use.
	Servers []string `json:"servers"`
	// Builtins is set when some of them were http.get or http.post.
	Builtins bool `json:"builtins"`
	// ReadOnly is set when every replayable call classified read.
	ReadOnly bool `json:"readOnly"`

	tools map[string]int // replayed tool name → calls
}

// Result is what a scan found.
type Result struct {
	// Dir is the folder that was scanned, as it was given.
	Dir string `json:"dir"`
	// Sessions is the number of transcripts read.
	Sessions int `json:"sessions"`
	// Replayable are the sessions with a replayable call, newest first.
	Replayable []*Entry `json:"replayable"`
	// Skipped counts the paths not read, by reason.
	Skipped map[string]int `json:"skippedFiles"`
	// Lines adds up the line counts of every transcript read.
	Lines session.LineCounts `json:"lines"`
	// Bytes is the size of every transcript read.
	Bytes int64 `json:"bytes"`
	// Rate is the replayable-rate statistics.
	Rate Rate `json:"replayableRate"`
}

// Scan reads every *.jsonl transcript under dir, recursively (following
// links, never twice, never in a loop), and classifies each with exactly
// session.Read, the reader from-session uses. Files that cannot be read,
// binary files and links that lead nowhere are counted in Skipped; bad
// lines are counted in Lines. Memory does not grow with the size of the
// transcripts: each is streamed, and only a small entry per replayable
// session is kept. The error is for a dir that cannot be walked at all.
func Scan(dir string, opts Options) (*Result, error) {
	w, err := walk(dir)
	if err != nil {
		return nil, err
	}
	res := &Result{Dir: dir, Skipped: w.skipped, Lines: session.LineCounts{Ignored: map[string]int{}}}
	outs := readAll(w.files, opts)
	for i, o := range outs {
		if o.skip != "" {
			res.Skipped[o.skip]++
			continue
		}
		res.Sessions++
		res.Bytes += w.files[i].size
		res.Lines.Add(o.lines)
		if o.entry != nil {
			res.Replayable = append(res.Replayable, o.entry)
		}
	}
	sort.SliceStable(res.Replayable, func(i, j int) bool {
		a, b := res.Replayable[i], res.Replayable[j]
		if !a.StartedAt.Equal(b.StartedAt) {
			return a.StartedAt.After(b.StartedAt)
		}
		return a.Path < b.Path
	})
	res.Rate = rate(res.Replayable)
	return res, nil
}

// DefaultWorkers is how many files a scan reads at once unless told
// otherwise: four per CPU, and at least eight. Reading a history waits on
// the disk more than on the CPU, so more reads in flight keep the CPUs
// busy (on the 2-core benchmark machine, 8 workers scan 4× faster than
// 2); each worker holds one read buffer and at most one line.
func DefaultWorkers() int { return max(8, 4*runtime.GOMAXPROCS(0)) }

// outcome is what reading one file gave.
type outcome struct {
	skip  string
	entry *Entry
	lines session.LineCounts
}

// readAll reads the files on opts.Workers goroutines; outcomes keep the
// files' order.
func readAll(files []file, opts Options) []outcome {
	workers := opts.Workers
	if workers <= 0 {
		workers = DefaultWorkers()
	}
	outs := make([]outcome, len(files))
	var total int64
	for _, f := range files {
		total += f.size
	}
	var next atomic.Int64
	// The totals are counted under mu, so the Progress calls report them
	// in order: a later call never shows less done than an earlier one.
	var filesDone int
	var bytesDone int64
	var mu sync.Mutex
	var wg sync.WaitGroup
	for range min(workers, max(len(files), 1)) {
		wg.Go(func() {
			for {
				i := int(next.Add(1) - 1)
				if i >= len(files) {
					return
				}
				outs[i] = readOne(files[i], opts.MaxLine)
				mu.Lock()
				filesDone++
				bytesDone += files[i].size
				if opts.Progress != nil {
					opts.Progress(Progress{Files: len(files), FilesDone: filesDone, Bytes: total, BytesDone: bytesDone})
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	return outs
}

// readOne classifies one transcript.
func readOne(f file, maxLine int) outcome {
	fh, err := openFile(f.path)
	if err != nil {
		return outcome{skip: SkipUnreadable}
	}
	defer fh.Close()
	head := make([]byte, sniffSize)
	n, err := io.ReadFull(fh, head)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return outcome{skip: SkipUnreadable}
	}
	head = head[:n]
	if bytes.IndexByte(head, 0) >= 0 {
		return outcome{skip: SkipBinary}
	}
	s, err := session.Read(io.MultiReader(bytes.NewReader(head), fh), session.Options{MaxLine: maxLine})
	if err != nil {
		return outcome{skip: SkipReadError}
	}
	return outcome{entry: entryOf(f.path, s), lines: s.Lines}
}

// entryOf makes the entry of a session with a replayable call, or nil.
func entryOf(path string, s *session.Session) *Entry {
	if len(s.Calls) == 0 {
		return nil
	}
	e := &Entry{Path: path, SessionID: s.ID, StartedAt: s.StartedAt, Calls: len(s.Calls), Servers: s.Servers(), tools: map[string]int{}}
	if e.Servers == nil {
		e.Servers = []string{}
	}
	e.Project = filepath.Base(filepath.Dir(path))
	if s.CWD != "" {
		e.Project = filepath.Base(filepath.Clean(s.CWD))
	}
	for _, c := range s.Calls {
		e.tools[c.Tool.Replay]++
		e.Builtins = e.Builtins || c.Tool.Server == ""
	}
	return e
}
