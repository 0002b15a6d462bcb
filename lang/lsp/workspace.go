package lsp

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/reelier/reelier/lang/grammar"
	"github.com/reelier/reelier/trace"
)

// Limits of the workspace scan, so that a client rooted at a huge
// directory still gets an answer quickly.
const (
	maxScanEntries = 20000   // directory entries visited
	maxScanFile    = 4 << 20 // bytes read from any one file
)

// workspace knows the tool names used by the skills (*.skill.md) and
// recorded in the traces (.reelier/traces/*.jsonl) under the client's
// workspace folders. It scans once, on first use.
type workspace struct {
	roots []string

	once  sync.Once
	tools []string
}

// Tools returns the tool names found, sorted.
func (w *workspace) Tools() []string {
	w.once.Do(func() {
		seen := map[string]bool{}
		for _, root := range w.roots {
			scanRoot(root, seen)
		}
		for t := range seen {
			w.tools = append(w.tools, t)
		}
		sort.Strings(w.tools)
	})
	return w.tools
}

// errScanLimit stops a walk that has visited enough entries.
var errScanLimit = errors.New("scan limit reached")

func scanRoot(root string, seen map[string]bool) {
	entries := 0
	_ = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if entries++; entries > maxScanEntries {
			return errScanLimit
		}
		if err != nil {
			return nil
		}
		name := d.Name()
		if d.IsDir() {
			if path != root && (name == "node_modules" || name == "vendor" || strings.HasPrefix(name, ".") && name != ".reelier") {
				return filepath.SkipDir
			}
			return nil
		}
		switch {
		case strings.HasSuffix(name, ".skill.md"):
			skillTools(path, seen)
		case strings.HasSuffix(name, ".jsonl") && strings.HasSuffix(filepath.Dir(path), filepath.Join(".reelier", "traces")):
			traceTools(path, seen)
		}
		return nil
	})
}

// readLimited reads at most maxScanFile bytes of a file.
func readLimited(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, maxScanFile))
}

// skillTools records the tools a skill file's steps call.
func skillTools(path string, seen map[string]bool) {
	src, err := readLimited(path)
	if err != nil {
		return
	}
	skill, _ := grammar.Parse(path, src)
	for _, st := range skill.Steps {
		if st.Action != nil && st.Action.Tool != "" {
			seen[st.Action.Tool] = true
		}
	}
}

// traceTools records the tools a trace's call records name, skipping lines
// that are not records.
func traceTools(path string, seen map[string]bool) {
	f, err := os.Open(path)
	if err != nil {
		return
	}
	defer f.Close()
	r := trace.NewReader(io.LimitReader(f, maxScanFile))
	for {
		rec, err := r.Next()
		var bad *trace.LineError
		if errors.As(err, &bad) {
			continue // the reader goes on with the next line
		}
		if err != nil {
			return
		}
		if c, ok := rec.(*trace.Call); ok && c.Tool != "" {
			seen[c.Tool] = true
		}
	}
}
