package scan

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
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
	// MaxLine is passed to the hosts' readers.
	MaxLine int
	// Progress, if set, is called after each file with the totals so far.
	// Calls may come from several goroutines, one at a time.
	Progress func(Progress)
	// Hosts is the host table files are read with; session.Hosts if nil.
	Hosts []session.Host
}

func (o Options) hosts() []session.Host {
	if o.Hosts == nil {
		return session.Hosts
	}
	return o.Hosts
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
	// Host is the agent that wrote it ("claude", "codex", "gemini").
	Host string `json:"host"`
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
	// Workflow is the replayable calls' tools in call order
	// (server/tool, or the builtin's name): the sessions a Group holds
	// have the same.
	Workflow []string `json:"workflow"`

	tools map[string]int // replayed tool name → calls
	// read is the host's reader, which compiling the session uses.
	read func(io.Reader, session.Options) (*session.Session, error)
}

// Folder is one folder a scan looked in and what it found there.
type Folder struct {
	// Dir is the folder as it was given or as the host table names it.
	Dir string `json:"dir"`
	// Host is the host whose folder it is; "" for a folder given to
	// scan, whose files may be any host's.
	Host string `json:"host,omitempty"`
	// Missing is set when the folder does not exist (nothing was read).
	Missing bool `json:"missing,omitempty"`
	// Found counts the sessions read there, per host, in table order.
	Found []HostCount `json:"found"`
	// SkippedFiles counts the files there that were not read.
	SkippedFiles int `json:"skippedFiles"`
}

// HostCount is what one host's sessions in a folder came to.
type HostCount struct {
	Host string `json:"host"`
	// Sessions were read; Replayable of them hold a replayable call;
	// Skipped hold none.
	Sessions   int `json:"sessions"`
	Replayable int `json:"replayable"`
	Skipped    int `json:"skipped"`
}

// Result is what a scan found.
type Result struct {
	// Dir is the folder that was scanned, as it was given; "" for a scan
	// of the hosts' own folders.
	Dir string `json:"dir"`
	// Folders are the folders looked in, in order, with what each held.
	Folders []Folder `json:"folders"`
	// Sessions is the number of transcripts read.
	Sessions int `json:"sessions"`
	// Replayable are the sessions with a replayable call, newest first.
	Replayable []*Entry `json:"replayable"`
	// Groups are the replayable sessions grouped by workflow (the same
	// tools in the same order): the most repeated first, then the newest.
	Groups []Group `json:"groups"`
	// Skipped counts the paths not read, by reason.
	Skipped map[string]int `json:"skippedFiles"`
	// Lines adds up the line counts of every transcript read.
	Lines session.LineCounts `json:"lines"`
	// Bytes is the size of every transcript read.
	Bytes int64 `json:"bytes"`
	// Rate is the replayable-rate statistics.
	Rate Rate `json:"replayableRate"`
}

// Scan reads every session file under dir, recursively (following links,
// never twice, never in a loop), each with the reader of the host its
// name and first bytes say wrote it (opts.Hosts), the reader from-session
// uses. Files that cannot be read, binary files and links that lead
// nowhere are counted in Skipped; bad lines are counted in Lines. Memory
// does not grow with the size of the transcripts: each is streamed, and
// only a small entry per replayable session is kept. The error is for a
// dir that cannot be walked at all.
func Scan(dir string, opts Options) (*Result, error) {
	w, err := walk(dir)
	if err != nil {
		return nil, err
	}
	res := newResult(dir)
	res.add(Folder{Dir: dir}, w, opts.hosts(), opts)
	res.finish()
	return res, nil
}

// ScanHosts reads the folders where each of hosts keeps its sessions
// (Host.Dirs, from home and getenv), each file with its host's reader. A
// folder that does not exist is listed as missing; one that exists but
// cannot be walked is an error.
func ScanHosts(hosts []session.Host, home string, getenv func(string) string, opts Options) (*Result, error) {
	res := newResult("")
	for _, h := range hosts {
		for _, dir := range h.Dirs(home, getenv) {
			info, err := os.Stat(dir)
			if errors.Is(err, fs.ErrNotExist) {
				res.Folders = append(res.Folders, Folder{Dir: dir, Host: h.Name, Missing: true, Found: []HostCount{}})
				continue
			}
			if err == nil && !info.IsDir() {
				err = &fs.PathError{Op: "scan", Path: dir, Err: errors.New("not a directory")}
			}
			if err != nil {
				return nil, err
			}
			w, err := walk(dir)
			if err != nil {
				return nil, err
			}
			res.add(Folder{Dir: dir, Host: h.Name}, w, []session.Host{h}, opts)
		}
	}
	res.finish()
	return res, nil
}

func newResult(dir string) *Result {
	return &Result{Dir: dir, Folders: []Folder{}, Skipped: map[string]int{}, Lines: session.LineCounts{Ignored: map[string]int{}}}
}

// add reads one walked folder's files with hosts and adds what they held.
func (res *Result) add(f Folder, w *walker, hosts []session.Host, opts Options) {
	counts := map[string]*HostCount{}
	for k, n := range w.skipped {
		res.Skipped[k] += n
		f.SkippedFiles += n
	}
	outs := readAll(w.files, hosts, opts)
	for i, o := range outs {
		switch {
		case o.notSession:
			continue
		case o.skip != "":
			res.Skipped[o.skip]++
			f.SkippedFiles++
			continue
		}
		res.Sessions++
		res.Bytes += w.files[i].size
		res.Lines.Add(o.lines)
		c := counts[o.host]
		if c == nil {
			c = &HostCount{Host: o.host}
			counts[o.host] = c
		}
		c.Sessions++
		if o.entry != nil {
			c.Replayable++
			res.Replayable = append(res.Replayable, o.entry)
		} else {
			c.Skipped++
		}
	}
	f.Found = []HostCount{}
	for _, h := range hosts {
		if c := counts[h.Name]; c != nil {
			f.Found = append(f.Found, *c)
		}
	}
	res.Folders = append(res.Folders, f)
}

// finish orders the replayable sessions, groups them and rates them.
func (res *Result) finish() {
	sort.SliceStable(res.Replayable, func(i, j int) bool {
		a, b := res.Replayable[i], res.Replayable[j]
		if !a.StartedAt.Equal(b.StartedAt) {
			return a.StartedAt.After(b.StartedAt)
		}
		return a.Path < b.Path
	})
	res.Groups = group(res.Replayable)
	res.Rate = rate(res.Replayable)
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
	host  string
	// notSession is set for a file no host claims.
	notSession bool
}

// readAll reads the files on opts.Workers goroutines; outcomes keep the
// files' order.
func readAll(files []file, hosts []session.Host, opts Options) []outcome {
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
				outs[i] = readOne(files[i], hosts, opts.MaxLine)
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

// readOne classifies one transcript with the reader of the host that
// claims it.
func readOne(f file, hosts []session.Host, maxLine int) outcome {
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
		if !isTranscript(f.path) {
			return outcome{notSession: true}
		}
		return outcome{skip: SkipBinary}
	}
	h, ok := session.Sniff(hosts, f.path, head)
	if !ok {
		return outcome{notSession: true}
	}
	s, err := h.Read(io.MultiReader(bytes.NewReader(head), fh), session.Options{MaxLine: maxLine})
	if err != nil {
		return outcome{skip: SkipReadError, host: h.Name}
	}
	e := entryOf(f.path, s)
	if e != nil {
		e.Host, e.read = h.Name, h.Read
	}
	return outcome{entry: e, lines: s.Lines, host: h.Name}
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
	dir := filepath.Dir(path)
	if filepath.Base(dir) == "chats" {
		dir = filepath.Dir(dir) // a Gemini CLI session: <project>/chats/<file>
	}
	e.Project = filepath.Base(dir)
	if s.CWD != "" {
		e.Project = filepath.Base(filepath.Clean(s.CWD))
	}
	for _, c := range s.Calls {
		e.tools[c.Tool.Replay]++
		e.Builtins = e.Builtins || c.Tool.Server == ""
		step := c.Tool.Replay
		if c.Tool.Server != "" {
			step = c.Tool.Server + "/" + c.Tool.Replay
		}
		e.Workflow = append(e.Workflow, step)
	}
	return e
}
