package attest

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"path"
	"strings"

	intoto "github.com/in-toto/attestation/go/v1"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/reelier/reelier/lang/ast"
	"github.com/reelier/reelier/lang/format"
	"github.com/reelier/reelier/lang/tooldef"
	"github.com/reelier/reelier/mcpx"
	"github.com/reelier/reelier/redact"
	"github.com/reelier/reelier/replay/runlog"
)

// MaxPayload bounds a statement read back from a bundle.
const MaxPayload = 8 << 20

// Input is what a receipt is made from.
type Input struct {
	// Record is the finished run record, as appended.
	Record *runlog.Record
	// Skill is the parsed skill that ran; Src its bytes.
	Skill *ast.Skill
	Src   []byte
	// Name names the subject: the skill file's path as the run named it
	// ("-" or "" for stdin, which is named by the skill's name).
	Name string
	// Servers are the servers the run was pointed at: the --wrap specs,
	// or nil for the servers the skill records.
	Servers []mcpx.ServerSpec
	// Version is reelier's version.
	Version string
}

// Statement is a receipt read back: the subject and the predicate.
type Statement struct {
	// Subject is the skill file the receipt is about, and SubjectSHA256
	// its hex SHA-256.
	Subject       string
	SubjectSHA256 string
	Predicate     Predicate
}

// BuildPredicate is the predicate of in.
func BuildPredicate(in Input) (*Predicate, error) {
	rec := in.Record
	if rec == nil {
		return nil, errors.New("no run record")
	}
	line, err := runlog.Marshal(rec)
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256(line)
	p := &Predicate{
		Skill: rec.Skill, Path: rec.Path, Verdict: rec.RunVerdict(),
		StartedAt: rec.StartedAt, FinishedAt: rec.FinishedAt,
		Steps: make([]Step, len(rec.Steps)), Totals: rec.Totals,
		ToolDrift: rec.ToolDrift, Provenance: rec.Provenance,
		OpenQuestions: rec.OpenQuestions, Reelier: in.Version,
		RecordSHA256: hex.EncodeToString(sum[:]),
	}
	steps := map[int]*ast.Step{}
	if in.Skill != nil {
		for _, st := range in.Skill.Steps {
			steps[st.Number] = st
		}
	}
	for i, sr := range rec.Steps {
		s := Step{N: sr.N, Title: sr.Title, Outcome: sr.Outcome, Kind: sr.Kind, Level: sr.Level, Observation: sr.Observation, Skip: sr.Skip}
		if sr.Action != nil {
			s.Tool = sr.Action.Tool
			s.ActionSHA256 = ActionDigest(sr.Action)
		}
		if st := steps[sr.N]; st != nil {
			for _, a := range st.Asserts {
				s.Asserts = append(s.Asserts, redact.Text(nil, "", format.Assert(a.Expr)))
			}
			for _, b := range st.Binds {
				s.Binds = append(s.Binds, redact.Text(nil, "", format.Bind(b.Expr)))
			}
		}
		p.Steps[i] = s
	}
	if in.Skill != nil {
		_, tools, _ := tooldef.FromSkill(in.Skill)
		for _, t := range tools {
			l := sha256.Sum256([]byte(t.Line()))
			p.Tools = append(p.Tools, Tool{Name: t.Name, Input: t.Input, Output: t.Output, SHA256: hex.EncodeToString(l[:])})
		}
	}
	p.Servers = servers(in)
	return p, nil
}

// ActionDigest is the hex SHA-256 of a filled call as recorded: the tool's
// name, a newline, the arguments' JSON.
func ActionDigest(a *runlog.ActionRecord) string {
	h := sha256.New()
	h.Write([]byte(a.Tool))
	h.Write([]byte{'\n'})
	h.Write(a.Args)
	return hex.EncodeToString(h.Sum(nil))
}

// servers are the servers a run was pointed at, each reduced to its
// program name or host.
func servers(in Input) []Server {
	specs := in.Servers
	if len(specs) == 0 && in.Skill != nil {
		for _, s := range in.Skill.Servers {
			sp := mcpx.ParseServer(s.Command)
			sp.Name = s.Name
			specs = append(specs, sp)
		}
	}
	var out []Server
	for _, sp := range specs {
		s := Server{Name: redact.Text(nil, "", sp.Name)}
		if sp.Remote() {
			s.Kind = "url"
			if u, err := url.Parse(sp.URL); err == nil {
				s.Target = u.Hostname()
			}
		} else {
			s.Kind = "command"
			words := strings.Fields(sp.Command)
			if len(words) > 0 {
				s.Target = path.Base(strings.ReplaceAll(strings.Trim(words[0], `"'`), `\`, "/"))
				s.Mock = strings.TrimSuffix(s.Target, ".exe") == "reelier" && len(words) > 1 && words[1] == "mock"
			}
		}
		s.Target = redact.Text(nil, "", s.Target)
		out = append(out, s)
	}
	return out
}

// BuildStatement is the in-toto Statement of in, as the JSON a DSSE
// envelope carries.
func BuildStatement(in Input) ([]byte, error) {
	_, st, err := Receipt(in)
	return st, err
}

// Receipt is BuildPredicate and BuildStatement at once.
func Receipt(in Input) (*Predicate, []byte, error) {
	p, err := BuildPredicate(in)
	if err != nil {
		return nil, nil, err
	}
	st, err := statementOf(in, p)
	return p, st, err
}

func statementOf(in Input, p *Predicate) ([]byte, error) {
	name := in.Name
	if name == "" || name == "-" {
		name = in.Record.Skill
	}
	sum := sha256.Sum256(in.Src)
	pj, err := json.Marshal(p)
	if err != nil {
		return nil, err
	}
	ps := &structpb.Struct{}
	if err := protojson.Unmarshal(pj, ps); err != nil {
		return nil, err
	}
	st := &intoto.Statement{
		Type:          intoto.StatementTypeUri,
		Subject:       []*intoto.ResourceDescriptor{{Name: name, Digest: map[string]string{"sha256": hex.EncodeToString(sum[:])}}},
		PredicateType: PredicateType,
		Predicate:     ps,
	}
	if err := st.Validate(); err != nil {
		return nil, err
	}
	return protojson.Marshal(st)
}

// ParseStatement reads a DSSE payload back into a Statement: an in-toto
// Statement v1 with one subject that has a sha256 digest, and Reelier's
// receipt predicate.
func ParseStatement(payload []byte) (*Statement, error) {
	if len(payload) > MaxPayload {
		return nil, fmt.Errorf("statement is %d bytes, more than the %d allowed", len(payload), MaxPayload)
	}
	st := &intoto.Statement{}
	if err := (protojson.UnmarshalOptions{DiscardUnknown: true}).Unmarshal(payload, st); err != nil {
		return nil, fmt.Errorf("statement is not an in-toto Statement: %v", err)
	}
	if err := st.Validate(); err != nil {
		return nil, fmt.Errorf("statement is not a valid in-toto Statement: %v", err)
	}
	if st.GetPredicateType() != PredicateType {
		return nil, fmt.Errorf("statement's predicate type is %q, not Reelier's receipt (%s)", st.GetPredicateType(), PredicateType)
	}
	if n := len(st.GetSubject()); n != 1 {
		return nil, fmt.Errorf("statement has %d subjects; a receipt has exactly one, its skill file", n)
	}
	sub := st.GetSubject()[0]
	digest := sub.GetDigest()["sha256"]
	if b, err := hex.DecodeString(digest); err != nil || len(b) != sha256.Size {
		return nil, fmt.Errorf("statement's subject %q has no valid sha256 digest", sub.GetName())
	}
	pj, err := protojson.Marshal(st.GetPredicate())
	if err != nil {
		return nil, err
	}
	out := &Statement{Subject: sub.GetName(), SubjectSHA256: strings.ToLower(digest)}
	dec := json.NewDecoder(bytes.NewReader(pj))
	if err := dec.Decode(&out.Predicate); err != nil {
		return nil, fmt.Errorf("receipt predicate: %v", err)
	}
	if err := out.Predicate.check(); err != nil {
		return nil, fmt.Errorf("receipt predicate: %v", err)
	}
	return out, nil
}

// check refuses a predicate whose verdict its steps do not give, or whose
// fields are not the words the contract allows.
func (p *Predicate) check() error {
	switch p.Verdict {
	case runlog.VerdictPassed, runlog.VerdictFailed, runlog.VerdictUnchecked, runlog.VerdictInterrupted, runlog.VerdictConfig:
	default:
		return fmt.Errorf("verdict %q is not one of passed, failed, unchecked, interrupted, config", p.Verdict)
	}
	recs := make([]runlog.StepRecord, len(p.Steps))
	for i, s := range p.Steps {
		if !s.Outcome.Valid() {
			return fmt.Errorf("step %d: outcome %q is not one of passed, unchecked, failed, skipped, interrupted", s.N, s.Outcome)
		}
		recs[i] = runlog.StepRecord{Outcome: s.Outcome, Kind: s.Kind}
	}
	t := runlog.CountSteps(recs)
	if t.Steps != p.Totals.Steps || t.Passed != p.Totals.Passed || t.Failed != p.Totals.Failed || t.Skipped != p.Totals.Skipped || t.Unchecked != p.Totals.Unchecked {
		return fmt.Errorf("totals (%d steps, %d passed, %d failed) are not what the steps say (%d, %d, %d)", p.Totals.Steps, p.Totals.Passed, p.Totals.Failed, t.Steps, t.Passed, t.Failed)
	}
	want := runlog.DeriveVerdict(t)
	if p.ToolDrift != nil && !p.ToolDrift.Ignored {
		want = runlog.VerdictFailed
	}
	// config is a failed run whose every failed step failed for how the
	// run was set up (a refused write, an input, an approval, a policy).
	if want == runlog.VerdictFailed && runlog.ConfigFailure(recs) && p.Verdict == runlog.VerdictConfig {
		want = runlog.VerdictConfig
	}
	if p.Verdict != want && p.Verdict != runlog.VerdictInterrupted {
		return fmt.Errorf("verdict %q is not what the steps say (%q)", p.Verdict, want)
	}
	return nil
}
