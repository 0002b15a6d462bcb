package serve

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/reelier/reelier/ledger/push"
	"github.com/reelier/reelier/replay/runlog"
)

// PushInput is the input of reelier_push.
type PushInput struct {
	SkillPath string `json:"skillPath" jsonschema:"the .skill.md file whose run records to push, relative to the working directory (or to cwd)"`
	All       bool   `json:"all,omitempty" jsonschema:"reconsider every record from the start, not just those after the cursor, like --all"`
	DryRun    bool   `json:"dryRun,omitempty" jsonschema:"say what would be sent; send and write nothing and read no configuration, like --dry-run"`
	WithSkill bool   `json:"withSkill,omitempty" jsonschema:"upload the skill file even if it was uploaded before, like --with-skill"`
	Cwd       string `json:"cwd,omitempty" jsonschema:"a directory inside the working directory to act in: .reelier/runs and .reelier/push-state.json are resolved against it"`
}

// The three outcomes of reelier_push.
const (
	OutcomeOK           = "ok"
	OutcomeSkippedNoKey = "skipped-no-key"
	OutcomeFailed       = "failed"
)

// PushOutput is the result of reelier_push: exactly one of three
// outcomes. "ok" carries Result (or Plan for a dry run); "skipped-no-key"
// and "failed" carry Message, and a failed push that got under way also
// carries the Result so far.
type PushOutput struct {
	Outcome string      `json:"outcome" jsonschema:"ok, skipped-no-key or failed"`
	Message string      `json:"message,omitempty"`
	Result  *PushResult `json:"result,omitempty"`
	Plan    *PushPlan   `json:"plan,omitempty"`
}

// PushResult sums up a push.
type PushResult struct {
	Skill string `json:"skill"`
	// SkillUpload is "uploaded", "already-uploaded" or "failed".
	SkillUpload  string         `json:"skillUpload"`
	Pushed       int            `json:"pushed"`
	Duplicates   int            `json:"duplicates"`
	Rejected     int            `json:"rejected"`
	Records      int            `json:"records"`
	CursorBefore int            `json:"cursorBefore"`
	CursorAfter  int            `json:"cursorAfter"`
	Stopped      string         `json:"stopped,omitempty"`
	Each         []PushedRecord `json:"each"`
}

// PushedRecord is what became of one record.
type PushedRecord struct {
	Index int `json:"index"`
	// Outcome is "pushed", "rejected" (permanent; the cursor moved past
	// it) or "blocked" (transient; the push stopped here).
	Outcome string `json:"outcome"`
	Status  int    `json:"status,omitempty"`
	ID      string `json:"id,omitempty"`
	Reason  string `json:"reason,omitempty"`
}

// PushPlan is what a dry run found.
type PushPlan struct {
	Skill       string `json:"skill"`
	UploadSkill bool   `json:"uploadSkill"`
	Records     int    `json:"records"`
	From        int    `json:"from"`
	To          int    `json:"to"`
	Count       int    `json:"count"`
	// StateCorrupt says why the state file is unreadable, when it is; a
	// real push would set it aside and start from record 0.
	StateCorrupt string `json:"stateCorrupt,omitempty"`
}

var toolPush = &mcp.Tool{
	Name:  "reelier_push",
	Title: "Push run records to a receipt ledger",
	Description: "Send a skill's run records (.reelier/runs/<skill>.jsonl), and on its first push the skill file, to the receipt ledger at REELIER_CLOUD_URL with the key in REELIER_CLOUD_KEY, " +
		"strictly in order from a cursor kept in .reelier/push-state.json. The outcome is one of: \"ok\" (with per-record results; a 400/413 is a permanent rejection that is logged and passed over), " +
		"\"skipped-no-key\" (a variable is unset: nothing was sent or written) or \"failed\" (an error result: the push stopped, e.g. a 401 or a network error, and the next push resumes at the cursor). " +
		"Run records hold what your tools returned; push only what may leave this machine.",
	Annotations: &mcp.ToolAnnotations{OpenWorldHint: ptr(true), DestructiveHint: ptr(false)},
}

func (s *Server) push(ctx context.Context, _ *mcp.CallToolRequest, in PushInput) (*mcp.CallToolResult, PushOutput, error) {
	opts, err := s.pushOptions(in)
	if err != nil {
		return pushFailed(err.Error(), nil)
	}
	if in.DryRun {
		return s.pushDryRun(opts)
	}
	if s.opts.Getenv(push.EnvURL) == "" || s.opts.Getenv(push.EnvKey) == "" {
		_, err := push.ConfigFromEnv(s.opts.Getenv)
		return nil, PushOutput{Outcome: OutcomeSkippedNoKey, Message: err.Error()}, nil
	}
	cfg, err := push.ConfigFromEnv(s.opts.Getenv)
	if err != nil {
		return pushFailed(err.Error(), nil)
	}
	opts.Client = &push.Client{Config: cfg, HTTP: s.opts.HTTPClient}
	out := &PushResult{Each: []PushedRecord{}}
	opts.Report = func(e push.Event) {
		if e.Kind == push.RecordDone {
			out.Each = append(out.Each, pushedRecord(e.Index, e.Outcome))
		}
	}
	res, err := push.Push(ctx, opts)
	fillResult(out, res)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return pushFailed(fmt.Sprintf("no run history for skill %q: %s does not exist; replay the skill first (reelier_replay writes it)", opts.Skill, filepath.ToSlash(opts.RunsFile)), nil)
	case err != nil:
		return pushFailed(s.pushRefusedLate(err, opts).Error(), out)
	case res.Upload == push.UploadFailed:
		return pushFailed(fmt.Sprintf("%v; no record was sent", res.Stopped), out)
	case res.Stopped != nil:
		return pushFailed(fmt.Sprintf("stopped at record %d (%v); nothing after it was sent, and the next push resumes there", res.CursorAfter, res.Stopped), out)
	}
	return nil, PushOutput{Outcome: OutcomeOK, Result: out}, nil
}

// pushOptions resolves the skill, its run history and the state file.
// The history and the state are names in the working directory's os.Root,
// and the push reaches every file (the history, the state, its lock)
// through it.
func (s *Server) pushOptions(in PushInput) (push.Options, error) {
	base, err := s.base(in.Cwd)
	if err != nil {
		return push.Options{}, err
	}
	skill, src, err := s.loadSkill(base, in.SkillPath)
	if err != nil {
		return push.Options{}, err
	}
	name := skill.Name()
	runs, err := s.workName("the run history", base, runsPath(name))
	if err != nil {
		return push.Options{}, err
	}
	state, err := s.workName("the push state", base, push.DefaultStatePath)
	if err != nil {
		return push.Options{}, err
	}
	bundles, err := s.workName("the signed receipts", base, runlog.BundleDir(runlog.DefaultDir, name))
	if err != nil {
		return push.Options{}, err
	}
	return push.Options{
		Skill: name, SkillMd: src, Root: s.work.root, RunsFile: runs, StatePath: state, BundlesDir: bundles,
		All: in.All, WithSkill: in.WithSkill, Ledger: push.LedgerFromEnv(s.opts.Getenv),
	}, nil
}

// pushRefusedLate adds to a push's local failure, when it is the os.Root
// refusing to follow a symbolic link out of the working directory, which
// folder the link must be in (the history and the state are both below
// it); the failure's own words, such as which record reached the ledger,
// are kept.
func (s *Server) pushRefusedLate(err error, opts push.Options) error {
	dir := filepath.ToSlash(filepath.Dir(opts.StatePath))
	if why := s.work.refusedLate(err, "the folder", dir); why != err {
		return fmt.Errorf("%v; %w", err, why)
	}
	return err
}

// pushDryRun plans a push without configuration, network or writes.
func (s *Server) pushDryRun(opts push.Options) (*mcp.CallToolResult, PushOutput, error) {
	p, err := push.DryRun(opts)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return pushFailed(fmt.Sprintf("no run history for skill %q: %s does not exist; replay the skill first (reelier_replay writes it)", opts.Skill, filepath.ToSlash(opts.RunsFile)), nil)
	case err != nil:
		return pushFailed(s.pushRefusedLate(err, opts).Error(), nil)
	}
	plan := &PushPlan{Skill: p.Skill, UploadSkill: p.UploadSkill, Records: p.Records, From: p.From, To: p.To, Count: p.Count()}
	if p.StateCorrupt != nil {
		plan.StateCorrupt = p.StateCorrupt.Error()
	}
	return nil, PushOutput{Outcome: OutcomeOK, Plan: plan, Message: "dry run: nothing was sent and nothing was written"}, nil
}

// pushFailed is the "failed" outcome: an isError result whose text is
// the same JSON as its structured content.
func pushFailed(msg string, res *PushResult) (*mcp.CallToolResult, PushOutput, error) {
	out := PushOutput{Outcome: OutcomeFailed, Message: msg, Result: res}
	text, err := json.Marshal(out)
	if err != nil {
		return nil, PushOutput{}, err
	}
	return errorResult(string(text)), out, nil
}

func fillResult(out *PushResult, r push.Result) {
	out.Skill, out.Pushed, out.Duplicates, out.Rejected = r.Skill, r.Pushed, r.Duplicates, r.Rejected
	out.Records, out.CursorBefore, out.CursorAfter = r.Records, r.CursorBefore, r.CursorAfter
	out.SkillUpload = map[push.UploadStatus]string{
		push.AlreadyUploaded: "already-uploaded", push.Uploaded: "uploaded", push.UploadFailed: "failed",
	}[r.Upload]
	if r.Stopped != nil {
		out.Stopped = r.Stopped.Error()
	}
}

func pushedRecord(i int, o push.Outcome) PushedRecord {
	r := PushedRecord{Index: i, Status: o.Status, ID: o.ID, Reason: o.Reason}
	switch o.Kind {
	case push.Pushed:
		r.Outcome = "pushed"
	case push.Rejected:
		r.Outcome = "rejected"
	case push.Blocked:
		r.Outcome = "blocked"
		r.Reason = o.Err.Error()
	}
	return r
}

// runsPath is a skill's run history, relative to the directory runs are
// kept under.
func runsPath(skill string) string { return runlog.Path(runlog.DefaultDir, skill) }
