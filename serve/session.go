package serve

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/reelier/reelier/compile"
	"github.com/reelier/reelier/lang/format"
	"github.com/reelier/reelier/record/session"
	"github.com/reelier/reelier/record/session/scan"
	"github.com/reelier/reelier/redact"
)

// ScanInput is the input of reelier_scan.
type ScanInput struct {
	Dir string `json:"dir,omitempty" jsonschema:"the history folder to look through, like --dir; by default the server's history directory (normally ~/.claude/projects)"`
}

// ScanOutput is what reelier_scan found: the same classification
// reelier_from_session applies, so a session listed here is one it would
// compile.
type ScanOutput struct {
	RootDir            string           `json:"rootDir"`
	TotalSessions      int              `json:"totalSessions"`
	ReplayableSessions int              `json:"replayableSessions"`
	Sessions           []ScannedSession `json:"sessions" jsonschema:"the sessions with at least one replayable call, newest first"`
	SkippedFiles       map[string]int   `json:"skippedFiles" jsonschema:"files that were not read, by reason"`
	ReplayableRate     ScanRate         `json:"replayableRate"`
	Summary            string           `json:"summary"`
}

// ScannedSession is one session with replayable calls.
type ScannedSession struct {
	Path      string `json:"path" jsonschema:"pass it to reelier_from_session as transcriptPath"`
	Project   string `json:"project"`
	SessionID string `json:"sessionId"`
	// StartedAt is RFC 3339, "" when the transcript has no times.
	StartedAt string   `json:"startedAt"`
	Calls     int      `json:"replayableCalls"`
	Servers   []string `json:"servers"`
	Builtins  bool     `json:"builtins"`
	ReadOnly  bool     `json:"readOnly"`
}

// ScanRate is how much of the history replays without risk.
type ScanRate struct {
	ReadOnly    int            `json:"readOnly"`
	Replayable  int            `json:"replayable"`
	UnknownOnly int            `json:"unknownOnly"`
	Percent     float64        `json:"percent"`
	TopBlockers []scan.Blocker `json:"topBlockers"`
}

var toolScan = &mcp.Tool{
	Name:  "reelier_scan",
	Title: "Find replayable workflows in agent history",
	Description: "Look through an agent's session transcripts (by default ~/.claude/projects) for sessions whose tool calls Reelier can replay deterministically: " +
		"its builtins http.get/http.post and MCP tools (mcp__<server>__<tool>). Shell commands, file edits and other native tools never count. " +
		"Lists each replayable session (path, project, time, replayable calls, servers) newest first; pass a path to reelier_from_session to compile it. Reads only.",
	Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: ptr(false)},
}

func (s *Server) scan(_ context.Context, _ *mcp.CallToolRequest, in ScanInput) (*mcp.CallToolResult, ScanOutput, error) {
	dir, err := s.scanDir(in.Dir)
	if err != nil {
		return nil, ScanOutput{}, err
	}
	res, err := scan.Scan(dir, scan.Options{})
	if err != nil {
		return nil, ScanOutput{}, err
	}
	var sum bytes.Buffer
	res.WriteSummary(&sum)
	out := ScanOutput{
		RootDir: dir, TotalSessions: res.Sessions, ReplayableSessions: len(res.Replayable),
		Sessions: []ScannedSession{}, SkippedFiles: res.Skipped, Summary: strings.TrimSpace(sum.String()),
		ReplayableRate: ScanRate{
			ReadOnly: res.Rate.ReadOnly, Replayable: res.Rate.Replayable, UnknownOnly: res.Rate.UnknownOnly,
			Percent: res.Rate.Percent(), TopBlockers: res.Rate.Blockers,
		},
	}
	if out.SkippedFiles == nil {
		out.SkippedFiles = map[string]int{}
	}
	if out.ReplayableRate.TopBlockers == nil {
		out.ReplayableRate.TopBlockers = []scan.Blocker{}
	}
	for _, e := range res.Replayable {
		ss := ScannedSession{Path: e.Path, Project: e.Project, SessionID: e.SessionID, Calls: e.Calls,
			Servers: e.Servers, Builtins: e.Builtins, ReadOnly: e.ReadOnly}
		if !e.StartedAt.IsZero() {
			ss.StartedAt = e.StartedAt.UTC().Format(time.RFC3339)
		}
		if ss.Servers == nil {
			ss.Servers = []string{}
		}
		out.Sessions = append(out.Sessions, ss)
	}
	return nil, out, nil
}

// scanDir is the folder a scan reads: dir inside the working or history
// directory, or the history directory itself.
func (s *Server) scanDir(dir string) (string, error) {
	if dir != "" {
		p, _, err := within("dir", s.work.dir, dir, s.work, s.history)
		return p, err
	}
	if s.history == nil {
		if s.opts.HistoryDir == "" {
			return "", errors.New("this server has no history directory; pass dir, a folder of transcripts inside the working directory")
		}
		return "", fmt.Errorf("the history directory %s does not exist (no agent sessions recorded there yet); pass dir to look elsewhere inside the working directory", s.opts.HistoryDir)
	}
	return s.history.dir, nil
}

// FromSessionInput is the input of reelier_from_session.
type FromSessionInput struct {
	TranscriptPath string `json:"transcriptPath" jsonschema:"the session transcript (.jsonl), inside the working directory or the history directory"`
	Name           string `json:"name,omitempty" jsonschema:"the skill's name, like --name (default session-<first 8 characters of the session id>)"`
	Out            string `json:"out,omitempty" jsonschema:"where to write the skill, inside the working directory, like --out (default <name>.skill.md)"`
	Force          bool   `json:"force,omitempty" jsonschema:"replace the output file if it exists, like --force"`
}

// FromSessionOutput is the result of reelier_from_session: OK with the
// compiled skill's figures, or not OK with the reason, and the skip list
// either way.
type FromSessionOutput struct {
	OK              bool               `json:"ok"`
	Reason          string             `json:"reason,omitempty"`
	SkillPath       string             `json:"skillPath,omitempty"`
	Observed        string             `json:"observed,omitempty"`
	Steps           int                `json:"steps,omitempty"`
	Asserts         int                `json:"asserts,omitempty"`
	Binds           int                `json:"binds,omitempty"`
	Servers         []string           `json:"servers,omitempty"`
	ReplayableCount int                `json:"replayableCount"`
	Skipped         []session.Skip     `json:"skipped"`
	OpenQuestions   []compile.Question `json:"openQuestions,omitempty"`
}

var toolFromSession = &mcp.Tool{
	Name:  "reelier_from_session",
	Title: "Compile a skill from a session transcript",
	Description: "Compile a .skill.md from an agent session transcript, with no LLM: only the calls that replay deterministically (http.get/http.post and mcp__<server>__<tool>) become steps, " +
		"each checked by asserts; everything else is listed in skipped with the reason, never faked into a step. With nothing replayable the answer is ok: false with the reason, and nothing is written. " +
		"An existing file is only replaced with force: true. Read openQuestions: they are what the compiler would not guess.",
	Annotations: &mcp.ToolAnnotations{OpenWorldHint: ptr(false)},
}

func (s *Server) fromSession(_ context.Context, _ *mcp.CallToolRequest, in FromSessionInput) (*mcp.CallToolResult, FromSessionOutput, error) {
	p, a, err := within("transcriptPath", s.work.dir, in.TranscriptPath, s.work, s.history)
	if err != nil {
		return nil, FromSessionOutput{}, err
	}
	if in.Out != "" {
		// Refuse a bad destination before reading anything.
		if _, _, err := within("out", s.work.dir, in.Out, s.work); err != nil {
			return nil, FromSessionOutput{}, err
		}
	}
	sess, err := readTranscript(a, in.TranscriptPath, p)
	if err != nil {
		return nil, FromSessionOutput{}, err
	}
	if sess.ReelierTrace {
		return nil, FromSessionOutput{}, fmt.Errorf("transcriptPath %q is a Reelier trace (recorded by reelier mcp), not an agent session transcript; compile it from a shell with: reelier compile %s", in.TranscriptPath, in.TranscriptPath)
	}
	out := FromSessionOutput{ReplayableCount: len(sess.Calls), Skipped: sess.Skipped}
	if out.Skipped == nil {
		out.Skipped = []session.Skip{}
	}
	if len(sess.Calls) == 0 {
		out.Reason = session.ErrNothingReplayable.Error()
		return nil, out, nil
	}
	name := in.Name
	if name == "" {
		name = sessionName(sess, p)
	}
	given := in.Out
	if given == "" {
		given = skillFileName(name)
	}
	dest, _, err := within("out", s.work.dir, given, s.work)
	if err != nil {
		return nil, FromSessionOutput{}, err
	}
	if err := checkOverwrite(s.work, given, dest, in.Force); err != nil {
		return nil, FromSessionOutput{}, s.work.refusedLate(err, "out", given)
	}
	res, err := sess.Compile(
		session.TraceOptions{Name: name, Observed: session.ObservedFile, Redactor: redact.RedactorFromEnv()},
		compile.Options{Source: filepath.Base(p)},
	)
	if err != nil {
		return nil, FromSessionOutput{}, fmt.Errorf("the replayable calls of %q do not compile: %w", in.TranscriptPath, err)
	}
	if err := s.work.writeFile(dest, format.Source(res.Skill), 0o644); err != nil {
		return nil, FromSessionOutput{}, fmt.Errorf("the skill could not be written: %w", s.work.refusedLate(err, "out", given))
	}
	sum := res.Summary
	out.OK, out.SkillPath, out.Observed = true, s.display(dest), session.ObservedFile
	out.Steps, out.Asserts, out.Binds = sum.Steps, sum.Asserts, sum.Binds
	out.Servers, out.OpenQuestions = sess.Servers(), sum.Questions
	return nil, out, nil
}

// readTranscript streams a transcript through the area's os.Root.
func readTranscript(a *area, given, p string) (*session.Session, error) {
	f, err := a.open(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("transcriptPath %q: no such file", given)
	}
	if err != nil {
		return nil, fmt.Errorf("transcriptPath %q: %w", given, err)
	}
	defer f.Close()
	if info, err := f.Stat(); err == nil && info.IsDir() {
		return nil, fmt.Errorf("transcriptPath %q is a directory; reelier_scan looks through a folder of transcripts", given)
	}
	sess, err := session.ReadAny(p, f, session.Options{Keep: true})
	if err != nil {
		return nil, fmt.Errorf("reading transcriptPath %q: %w", given, err)
	}
	return sess, nil
}

// sessionName is session-<the first 8 characters of the session's id, or
// of the file's name when no line gave one>, as the CLI names it.
func sessionName(sess *session.Session, p string) string {
	id := sess.ID
	if id == "" {
		id = strings.TrimSuffix(filepath.Base(p), ".jsonl")
	}
	if len(id) > 8 {
		id = id[:8]
	}
	if id == "" {
		return "session"
	}
	return "session-" + id
}

// skillFileName is <name>.skill.md with the name reduced to characters
// that are safe in a file name.
func skillFileName(name string) string {
	clean := strings.TrimLeft(strings.Map(func(r rune) rune {
		if r == '.' || r == '_' || r == '-' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' {
			return r
		}
		return '-'
	}, name), ".-")
	if clean == "" {
		clean = "session"
	}
	return clean + ".skill.md"
}

// checkOverwrite refuses an existing output unless force is set, as
// reelier from-session does; it looks through the area's os.Root.
func checkOverwrite(a *area, given, dest string, force bool) error {
	info, err := a.lstat(dest)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return err
	case info.IsDir():
		return fmt.Errorf("out %q is a directory; pass a file name", given)
	case !force:
		return fmt.Errorf("out %q already exists; pass force: true to replace it, or another out", given)
	}
	return nil
}
