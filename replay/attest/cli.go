package attest

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/sigstore/sigstore-go/pkg/sign"

	"github.com/reelier/reelier/internal/exitstatus"
	"github.com/reelier/reelier/internal/termtext"
	"github.com/reelier/reelier/internal/words"
	"github.com/reelier/reelier/lang/grammar"
	"github.com/reelier/reelier/mcpx"
	"github.com/reelier/reelier/replay/runlog"
)

// Main is the reelier-attest program: `reelier verify` and `reelier run
// --sign` run it, so that the signing stack is linked into it and not
// into reelier, whose other commands start without it.
//
//	reelier-attest verify BUNDLE [--key PUB | --certificate-identity ID --certificate-oidc-issuer ISSUER --trusted-root FILE] [--skill FILE]
//	reelier-attest sign < request (SignRequest as JSON) → the bundle's path
//	reelier-attest ledger-verify [trust flags] (JSON lines: the ledger's verifier; see ServeLedgerVerify)
//
// Exit status: 0 done (verified, signed); 1 not verified, with the reason;
// 2 bad usage or input; 3 a bundle that could not be written.
func Main(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprintln(stderr, "usage: reelier-attest verify BUNDLE [flags] | reelier-attest sign < request\n(run by reelier verify and reelier run --sign; see reelier verify --help)")
		return exitstatus.Usage
	}
	var err error
	switch args[0] {
	case "verify":
		err = verifyMain(args[1:], stdout)
	case "sign":
		err = signMain(stdin, stdout)
	case "ledger-verify":
		err = ledgerVerifyMain(args[1:], stdin, stdout)
	default:
		err = exitstatus.Usagef("unknown command %q: reelier-attest verify | sign | ledger-verify", args[0])
	}
	if err != nil {
		var e *exitstatus.Error
		if !errors.As(err, &e) || e.Err != nil {
			fmt.Fprintln(stderr, "reelier:", err)
		}
		return exitstatus.Code(err)
	}
	return exitstatus.OK
}

// SignRequest is what reelier run --sign hands reelier-attest sign for
// one run record.
type SignRequest struct {
	// Key is the private key file.
	Key string `json:"key"`
	// RunsDir is the run history's folder; the bundle goes in
	// BundleDir(RunsDir, the record's skill).
	RunsDir string `json:"runsDir"`
	// Record is the run record as appended.
	Record *runlog.Record `json:"record"`
	// Name names the subject (the skill file as the run named it); Src
	// is the skill file's bytes as run.
	Name string `json:"name"`
	Src  []byte `json:"src"`
	// Servers are the --wrap servers (none: the skill's own).
	Servers []RequestServer `json:"servers,omitempty"`
	// Version is reelier's version.
	Version string `json:"version"`
}

// RequestServer is one --wrap server of a SignRequest.
type RequestServer struct {
	Name    string `json:"name,omitempty"`
	Command string `json:"command,omitempty"`
	URL     string `json:"url,omitempty"`
}

// MaxRequest bounds a sign request.
const MaxRequest = 64 << 20

func signMain(stdin io.Reader, stdout io.Writer) error {
	data, err := io.ReadAll(io.LimitReader(stdin, MaxRequest+1))
	if err != nil {
		return exitstatus.Usagef("sign: reading the request: %v", err)
	}
	if len(data) > MaxRequest {
		return exitstatus.Usagef("sign: the request is more than %d bytes", MaxRequest)
	}
	var req SignRequest
	if err := json.Unmarshal(data, &req); err != nil || req.Record == nil {
		return exitstatus.Usagef("sign: the request is not a sign request: %v", err)
	}
	p, b, err := SignRecord(req)
	if err != nil {
		return err
	}
	path, err := WriteBundle(BundleDir(req.RunsDir, req.Record.Skill), BundleName(p), b)
	if err != nil {
		return &exitstatus.Error{Code: exitstatus.Tool, Err: err}
	}
	fmt.Fprintln(stdout, path)
	return nil
}

// SignRecord builds and signs the receipt a request asks for, and returns
// its predicate and the bundle's JSON.
func SignRecord(req SignRequest) (*Predicate, []byte, error) {
	key, err := LoadKey(req.Key)
	if err != nil {
		return nil, nil, exitstatus.Usagef("%s", termtext.Line(err.Error()))
	}
	sk, _ := grammar.Parse(req.Name, req.Src)
	var servers []mcpx.ServerSpec
	for _, s := range req.Servers {
		servers = append(servers, mcpx.ServerSpec{Name: s.Name, Command: s.Command, URL: s.URL})
	}
	p, st, err := Receipt(Input{Record: req.Record, Skill: sk, Src: req.Src, Name: req.Name, Servers: servers, Version: req.Version})
	if err != nil {
		return nil, nil, exitstatus.Usagef("%v", err)
	}
	b, err := Sign(st, key, sign.BundleOptions{})
	if err != nil {
		return nil, nil, &exitstatus.Error{Code: exitstatus.Tool, Err: err}
	}
	return p, b, nil
}

// verifyFlags are reelier verify's flags.
type verifyFlags struct {
	key, identity, issuer, trustedRoot, skill string
}

// parseInterspersed parses flags before and after positional arguments.
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		args = fs.Args()
		if len(args) == 0 {
			return pos, nil
		}
		if args[0] == "--" {
			return append(pos, args[1:]...), nil
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
}

func verifyMain(args []string, out io.Writer) error {
	var o verifyFlags
	fs := flag.NewFlagSet("verify", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.StringVar(&o.key, "key", "", "")
	fs.StringVar(&o.identity, "certificate-identity", "", "")
	fs.StringVar(&o.issuer, "certificate-oidc-issuer", "", "")
	fs.StringVar(&o.trustedRoot, "trusted-root", "", "")
	fs.StringVar(&o.skill, "skill", "", "")
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return exitstatus.Usagef("verify: %v\nRun 'reelier verify --help' for usage.", err)
	}
	if len(pos) != 1 {
		return exitstatus.Usagef("verify takes one bundle file, got %d arguments\nUsage: reelier verify BUNDLE --key PUB | --certificate-identity ID --certificate-oidc-issuer ISSUER --trusted-root FILE", len(pos))
	}
	return runVerify(out, pos[0], o)
}

func runVerify(out io.Writer, path string, o verifyFlags) error {
	keyless := o.identity != "" || o.issuer != "" || o.trustedRoot != ""
	switch {
	case o.key != "" && keyless:
		return exitstatus.Usagef("--key cannot be used with --certificate-identity, --certificate-oidc-issuer or --trusted-root")
	case o.key == "" && !keyless:
		return exitstatus.Usagef("verify needs --key PUB, or --certificate-identity, --certificate-oidc-issuer and --trusted-root")
	case keyless && (o.identity == "" || o.issuer == "" || o.trustedRoot == ""):
		return exitstatus.Usagef("keyless verification needs all of --certificate-identity, --certificate-oidc-issuer and --trusted-root")
	}
	var trust Trust
	if o.key != "" {
		pub, err := LoadPublicKey(o.key)
		if err != nil {
			return exitstatus.Usagef("verify: %s", termtext.Line(err.Error()))
		}
		trust.Key = pub
	} else {
		tr, err := LoadTrustedRoot(o.trustedRoot)
		if err != nil {
			return exitstatus.Usagef("verify: %s", termtext.Line(err.Error()))
		}
		trust = Trust{Identity: o.identity, Issuer: o.issuer, Root: tr}
	}
	data, err := ReadBundle(path)
	if err != nil {
		return exitstatus.Usagef("verify: %s", termtext.Line(err.Error()))
	}
	v, err := Verify(data, trust)
	if err != nil {
		return verifyErr(path, err)
	}
	st := v.Statement
	skill := o.skill
	if skill == "" {
		skill = filepath.FromSlash(st.Subject)
	}
	src, err := os.ReadFile(skill)
	if err != nil {
		return exitstatus.Usagef("verify: %s: the signature holds, but the skill file it is about cannot be read (%s); give --skill FILE", termtext.Line(path), termtext.Line(err.Error()))
	}
	if err := CheckSubject(st, skill, src); err != nil {
		return verifyErr(path, err)
	}
	printVerified(out, path, skill, v)
	return nil
}

// verifyErr is exit 1 for a verification that did not hold, 2 for bad input.
func verifyErr(path string, err error) error {
	var f *Failure
	if errors.As(err, &f) {
		return &exitstatus.Error{Code: exitstatus.Failed, Err: fmt.Errorf("NOT VERIFIED %s: %s", termtext.Line(path), termtext.Line(f.Reason))}
	}
	return exitstatus.Usagef("verify: %s: %s", termtext.Line(path), termtext.Line(err.Error()))
}

func printVerified(w io.Writer, path, skill string, v *Verified) {
	st, p := v.Statement, &v.Statement.Predicate
	l := termtext.Line
	fmt.Fprintf(w, "VERIFIED %s\n", l(path))
	fmt.Fprintf(w, "  signer:   %s\n", l(v.Signer))
	fmt.Fprintf(w, "  skill:    %s (%s), sha256 %s, unchanged on disk\n", l(p.Skill), l(skill), st.SubjectSHA256)
	fmt.Fprintf(w, "  verdict:  %s — %s: %d passed, %d unchecked, %d failed, %d skipped\n", strings.ToUpper(string(p.Verdict)),
		words.Count(p.Totals.Steps, "step"), p.Totals.Passed, p.Totals.Unchecked, p.Totals.Failed, p.Totals.Skipped)
	where := "unknown"
	if pr := p.Provenance; pr != nil {
		where = pr.Provider
		for _, s := range []string{pr.Repository, pr.Ref, pr.Commit, pr.RunURL} {
			if s != "" {
				where += " " + s
			}
		}
	}
	fmt.Fprintf(w, "  ran:      %s → %s, reelier %s, %s\n", l(p.StartedAt), l(p.FinishedAt), l(p.Reelier), l(where))
	for _, s := range p.Servers {
		kind := s.Kind
		if s.Mock {
			kind += ", MOCK (recorded answers)"
		}
		name := ""
		if s.Name != "" { // a --wrap server has no name of its own
			name = l(s.Name) + ": "
		}
		fmt.Fprintf(w, "  server:   %s%s (%s)\n", name, l(s.Target), kind)
	}
	for _, t := range p.Tools {
		fmt.Fprintf(w, "  tool:     %s in=%s out=%s (signature sha256 %s)\n", l(t.Name), l(t.Input), l(t.Output), l(t.SHA256))
	}
	if d := p.ToolDrift; d != nil {
		fmt.Fprintf(w, "  drift:    %s changed (ignored: %v)\n", words.Count(len(d.Tools), "tool"), d.Ignored)
	}
	fmt.Fprintln(w, "  what was checked:")
	for _, s := range p.Steps {
		line := fmt.Sprintf("    step %d %s: %s", s.N, l(s.Title), strings.ToUpper(string(s.Outcome)))
		if s.Kind != "" {
			line += " (" + string(s.Kind) + ")"
		}
		if s.Skip != "" {
			line += " — " + l(s.Skip)
		}
		if s.Tool != "" {
			line += " — " + l(s.Tool)
		}
		fmt.Fprintln(w, line)
		if s.ActionSHA256 != "" {
			fmt.Fprintf(w, "        action sha256 %s\n", l(s.ActionSHA256))
		}
		if s.Observation != nil {
			fmt.Fprintf(w, "        result sha256 %s (%d bytes)\n", l(s.Observation.SHA256), s.Observation.Size)
		}
		for _, a := range s.Asserts {
			fmt.Fprintf(w, "        assert %s\n", l(a))
		}
		for _, b := range s.Binds {
			fmt.Fprintf(w, "        bind   %s\n", l(b))
		}
		if s.Outcome == runlog.Unchecked {
			fmt.Fprintln(w, "        (no assert: nothing about this step's result was checked)")
		}
	}
	if n := len(p.OpenQuestions); n > 0 {
		fmt.Fprintf(w, "  open:     %s the skill leaves unresolved: a passed verdict does not vouch for them\n", words.Count(n, "open question"))
	}
}
