package session

import (
	"bufio"
	"io"
	"os"
	"path/filepath"

	"github.com/reelier/reelier/compile"
	"github.com/reelier/reelier/internal/atomicfile"
	"github.com/reelier/reelier/internal/exitstatus"
	"github.com/reelier/reelier/lang/format"
	"github.com/reelier/reelier/redact"
)

// ReadInput reads a transcript for reelier from-session, keeping what a
// trace needs; "-" reads stdin. It returns the name the compiler shows as
// the source. Every failure is a usage error (exit 2).
func ReadInput(input string, stdin io.Reader) (*Session, string, error) {
	var r io.Reader
	source := filepath.Base(input)
	if input == "-" {
		r, source = stdin, "standard input"
	} else {
		f, err := os.Open(input)
		if err != nil {
			return nil, "", exitstatus.Usagef("%v", err)
		}
		defer f.Close()
		if info, err := f.Stat(); err == nil && info.IsDir() {
			return nil, "", exitstatus.Usagef("%s is a directory; to look through a whole history, run reelier scan --dir %s", input, input)
		}
		r = f
	}
	s, err := ReadAny(input, r, Options{Keep: true})
	if err != nil {
		return nil, "", exitstatus.Usagef("reading %s: %v", input, err)
	}
	return s, source, nil
}

// ReadAny reads a session with the reader of the agent that wrote it:
// the host of Hosts its name and first bytes say (Sniff), Read (Claude
// Code) when none claims it.
func ReadAny(name string, r io.Reader, opts Options) (*Session, error) {
	br := bufio.NewReaderSize(r, geminiSniff)
	prefix, _ := br.Peek(geminiSniff)
	if h, ok := Sniff(Hosts, name, prefix); ok {
		return h.Read(br, opts)
	}
	return Read(br, opts)
}

// WriteSkill compiles the session under name (observed is ObservedFile
// or ObservedStream, source the name the compiler shows) and writes the
// skill to out atomically, creating its folder. Its secrets are blanked
// with the environment's redactor. Failures are usage errors (exit 2).
func (s *Session) WriteSkill(name, observed, source, out string) (*compile.Output, error) {
	res, err := s.Compile(
		TraceOptions{Name: name, Observed: observed, Redactor: redact.RedactorFromEnv()},
		compile.Options{Source: source},
	)
	if err != nil {
		return nil, exitstatus.Usagef("%s: the replayable calls do not compile: %v", source, err)
	}
	if dir := filepath.Dir(out); dir != "." {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, exitstatus.Usagef("%v", err)
		}
	}
	if err := atomicfile.Write(out, format.Source(res.Skill), 0o644); err != nil {
		return nil, exitstatus.Usagef("%v", err)
	}
	res.Summary.Output = out
	return res, nil
}

// ObservedLine says how the calls were observed, for the terminal.
func ObservedLine(observed string) string {
	if observed == ObservedStream {
		return "Observed: stream — read from the agent harness's own output as it ran."
	}
	return "Observed: file — reconstructed from a transcript the session could have written; the skill says so."
}
