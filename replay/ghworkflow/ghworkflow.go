// Package ghworkflow writes the GitHub Actions workflow that `reelier ci`
// generates: the repository's skills replayed by the Reelier Action,
// pinned by commit SHA, on pushes, pull requests, a daily schedule and on
// demand.
//
// The shape is one suite job per set of MCP servers, not a matrix with a
// job per skill. A job pays for its runner, the checkout and the install
// of reelier (seconds, even from the cache) and starts its MCP servers
// once; a replay itself takes milliseconds to seconds per skill. A suite
// job pays those costs once for all its skills, writes one JUnit report
// and one job summary, and pushes every run. Skills recorded against
// different MCP servers cannot share a job, since `--wrap` replaces the
// servers of every skill in a run: each distinct list of recorded servers
// gets a job of its own, with those servers as its wrap lines.
//
// The text is built as a YAML tree and encoded by the YAML library, every
// string a double-quoted scalar, and read back before it is returned: a
// value from a skill cannot end its line, open a key or a step, or be
// read as another type, whatever characters it holds, and output that
// reads back as anything but the tree is refused (StructureError).
package ghworkflow

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/google/shlex"
	"github.com/reelier/reelier/internal/atomicfile"
	"github.com/reelier/reelier/internal/termtext"
	"github.com/reelier/reelier/lang/ast"
	"github.com/reelier/reelier/lang/grammar"
	"github.com/reelier/reelier/replay"
	"go.yaml.in/yaml/v3"
)

// DefaultPath is where the workflow goes, relative to the repository.
const DefaultPath = ".github/workflows/reelier.yml"

// The actions the workflow uses besides Reelier's, pinned by commit SHA.
const (
	checkoutAction  = "actions/checkout@11bd71901bbe5b1630ceea73d27597364c9af683"
	checkoutVersion = "v4.2.2"
	uploadAction    = "actions/upload-artifact@ea165f8d65b6e75b540449e92b4886f43607fa02"
	uploadVersion   = "v4.6.2"
)

// The ways a workflow signs its receipts (Options.Sign, the Action's sign
// input).
const (
	// SignOff: receipts are not signed (the default).
	SignOff = "off"
	// SignKeyless: the Action hands each receipt predicate to GitHub's
	// artifact attestation service (actions/attest, Sigstore keyless
	// signing with the job's OIDC token); the workflow grants the job
	// id-token: write and attestations: write, and only then.
	SignKeyless = "keyless"
	// SignKey: receipts signed by reelier run --sign with a private key
	// the repository keeps as the secret REELIER_SIGNING_KEY (the PEM
	// reelier key init writes); the job needs no extra permission.
	SignKey = "key"
	// SigningKeySecret is the repository secret the workflow reads the
	// key from under SignKey.
	SigningKeySecret = "REELIER_SIGNING_KEY"
)

// SignModes are the values Options.Sign takes, in the order help lists
// them.
var SignModes = []string{SignOff, SignKeyless, SignKey}

// Options say what to generate.
type Options struct {
	// Root is the repository's folder; skill paths are written relative
	// to it, slash-separated.
	Root string
	// Skills are the skill files, as found under Root.
	Skills []string
	// Action is the Reelier Action's repository (owner/name).
	Action string
	// Ref is the commit SHA the Action is pinned to.
	Ref string
	// Version names the reelier that generated the workflow.
	Version string
	// Sign is how the receipts are signed: SignOff ("" too), SignKeyless
	// or SignKey.
	Sign string
	// Writes decides the steps that write (see WritesError): AllowWrites
	// lets idempotent-write steps run (the Action's allow-writes),
	// AllowDestructive lets destructive steps run too (its yes);
	// NoWrites leaves every skill with a writing step out of the
	// workflow. With none of them, a skill with such a step is refused.
	AllowWrites, AllowDestructive, NoWrites bool
	// Comment has the Action post its pull-request comment: the workflow
	// grants pull-requests: write, and only then.
	Comment bool
}

// ErrExists is returned by Write when the workflow file exists and force
// was not given.
var ErrExists = errors.New("the workflow file exists")

// job is one suite job: skills that share a list of recorded servers.
type job struct {
	servers     []string
	skills      []string
	inputs      []string
	writes      []WriteStep
	destructive bool
}

// WriteStep is a step that writes: where it is and its effect.
type WriteStep struct {
	// File is the skill's path relative to the root, slash-separated.
	File string
	// Line is the step's header line; Step its number.
	Line, Step int
	// Effect is idempotent-write or destructive.
	Effect ast.Effect
}

func (w WriteStep) String() string {
	return fmt.Sprintf("%s:%d: step %d (%s)", w.File, w.Line, w.Step, w.Effect)
}

// WritesError is a workflow not written because steps write and nothing
// said whether the workflow may run them: the gate would refuse each one
// on the first run and fail the job. Steps are the undecided ones.
type WritesError struct {
	Steps []WriteStep
}

func (e *WritesError) Error() string {
	var b strings.Builder
	verb := "steps write"
	if len(e.Steps) == 1 {
		verb = "step writes"
	}
	fmt.Fprintf(&b, "%d %s, and nothing says whether the workflow may run them: the Action's effect gate would refuse them and fail the job on its first run. Decide, then run reelier ci again:\n", len(e.Steps), verb)
	destructive, idempotent := false, false
	for _, w := range e.Steps {
		fmt.Fprintf(&b, "  %s\n", termtext.Line(w.String()))
		destructive = destructive || w.Effect == ast.EffectDestructive
		idempotent = idempotent || w.Effect == ast.EffectIdempotentWrite
	}
	if idempotent {
		b.WriteString("  --allow-writes  let the workflow run idempotent-write steps (allow-writes: \"true\")\n")
	}
	if destructive {
		b.WriteString("  --yes           let it run destructive steps, and idempotent writes (yes: \"true\"; on every push and every day: think twice)\n")
	}
	b.WriteString("  --no-writes     leave the skills with these steps out of the workflow")
	return b.String()
}

// Generate returns the workflow's YAML: Load, then Render.
func Generate(opts Options) ([]byte, error) {
	p, err := Load(opts)
	if err != nil {
		return nil, err
	}
	return p.Render()
}

// Plan is a workflow read from the skills and not written yet: the caller
// can look at the skills (reelier ci asks the user to trust their server
// commands) before Render.
type Plan struct {
	// Skills are the skills read, in the order given.
	Skills []Skill
	opts   Options
}

// Skill is one skill of a plan: its path as given and its tree.
type Skill struct {
	Path  string
	Skill *ast.Skill
	// rel is the path relative to the root, slash-separated; servers
	// the commands it records; inputs the inputs it needs; writes its
	// writing steps.
	rel     string
	servers []string
	inputs  []string
	writes  []WriteStep
}

// Inputs lists the inputs the skills the workflow replays need (those
// NoWrites leaves out aside), each once, in file order. The workflow names
// them in a comment above its vars input; until they are given there, the
// job stops before running and names each.
func (p *Plan) Inputs() []string {
	var out []string
	for _, s := range p.Skills {
		if p.opts.NoWrites && len(s.writes) > 0 {
			continue
		}
		for _, in := range s.inputs {
			if !slices.Contains(out, in) {
				out = append(out, in)
			}
		}
	}
	return out
}

// Writes lists the plan's writing steps, in file order.
func (p *Plan) Writes() []WriteStep {
	var out []WriteStep
	for _, s := range p.Skills {
		out = append(out, s.writes...)
	}
	return out
}

// Decide sets the plan's decision about writing steps (Options'
// AllowWrites, AllowDestructive and NoWrites), as a prompt's answer does.
func (p *Plan) Decide(allowWrites, allowDestructive, noWrites bool) {
	p.opts.AllowWrites, p.opts.AllowDestructive, p.opts.NoWrites = allowWrites, allowDestructive, noWrites
}

// Undecided lists the writing steps the plan's decision leaves open.
func (p *Plan) Undecided() []WriteStep {
	if p.opts.NoWrites {
		return nil
	}
	var out []WriteStep
	for _, w := range p.Writes() {
		if w.Effect == ast.EffectDestructive && !p.opts.AllowDestructive || w.Effect == ast.EffectIdempotentWrite && !p.opts.AllowWrites && !p.opts.AllowDestructive {
			out = append(out, w)
		}
	}
	return out
}

// LeftOut lists the skills NoWrites leaves out of the workflow.
func (p *Plan) LeftOut() []string {
	var out []string
	if p.opts.NoWrites {
		for _, s := range p.Skills {
			if len(s.writes) > 0 {
				out = append(out, s.rel)
			}
		}
	}
	return out
}

// Render returns the workflow's YAML. Writing steps nothing decided are
// a *WritesError; output that does not read back as the workflow
// intended is a *StructureError.
func (p *Plan) Render() ([]byte, error) {
	if u := p.Undecided(); len(u) > 0 {
		return nil, &WritesError{Steps: u}
	}
	var jobs []*job
	for _, s := range p.Skills {
		if p.opts.NoWrites && len(s.writes) > 0 {
			continue
		}
		i := slices.IndexFunc(jobs, func(j *job) bool { return slices.Equal(j.servers, s.servers) })
		if i < 0 {
			jobs = append(jobs, &job{servers: s.servers})
			i = len(jobs) - 1
		}
		j := jobs[i]
		j.skills = append(j.skills, s.rel)
		for _, in := range s.inputs {
			if !slices.Contains(j.inputs, in) {
				j.inputs = append(j.inputs, in)
			}
		}
		j.writes = append(j.writes, s.writes...)
		for _, w := range s.writes {
			j.destructive = j.destructive || w.Effect == ast.EffectDestructive
		}
	}
	if len(jobs) == 0 {
		return nil, fmt.Errorf("--no-writes leaves no skill to replay: every skill under %s has a step that writes", termtext.Line(p.opts.Root))
	}
	// Jobs without servers first, then in order of their first skill.
	slices.SortStableFunc(jobs, func(a, b *job) int {
		return min(len(a.servers), 1) - min(len(b.servers), 1)
	})
	return render(p.opts, jobs, p.LeftOut())
}

// Load reads and checks the skills. A skill that cannot be read or parsed,
// a path or server command the workflow cannot carry (see carriable), a
// server command naming a local absolute path, or a ref that is not a
// full commit SHA is an error naming it.
func Load(opts Options) (*Plan, error) {
	if !isSHA(opts.Ref) {
		return nil, fmt.Errorf("the action ref %q is not a full commit SHA (40 hex digits): pin the action by SHA, no tag is promised", termtext.Line(opts.Ref))
	}
	if opts.Sign == "" {
		opts.Sign = SignOff
	}
	if !slices.Contains(SignModes, opts.Sign) {
		return nil, fmt.Errorf("sign %q: want %s", termtext.Line(opts.Sign), strings.Join(SignModes, ", "))
	}
	if opts.NoWrites && (opts.AllowWrites || opts.AllowDestructive) {
		return nil, errors.New("--no-writes leaves the writing skills out, --allow-writes and --yes let them run: give one")
	}
	if len(opts.Skills) == 0 {
		return nil, fmt.Errorf("no skill found under %s (no *.skill.md, and no SKILL.md with Reelier steps)", termtext.Line(opts.Root))
	}
	plan := &Plan{opts: opts}
	for _, p := range opts.Skills {
		src, err := os.ReadFile(p)
		if err != nil {
			return nil, err
		}
		skill, diags := grammar.Parse(p, src)
		if diags.HasErrors() {
			return nil, fmt.Errorf("%s does not parse; fix it first (reelier lint %s):\n%s", termtext.Line(p), termtext.Line(p), diags.Error())
		}
		rel, err := filepath.Rel(opts.Root, p)
		if err != nil || strings.HasPrefix(rel, "..") {
			return nil, fmt.Errorf("%s is not inside %s", termtext.Line(p), termtext.Line(opts.Root))
		}
		rel = filepath.ToSlash(rel)
		if err := carriable("the skill path", rel, true); err != nil {
			return nil, err
		}
		sk := Skill{Path: p, Skill: skill, rel: rel}
		for _, s := range skill.Servers {
			what := fmt.Sprintf("%s: server %s", termtext.Line(rel), termtext.Line(s.Name))
			if err := carriable(what+": the command", s.Command, false); err != nil {
				return nil, err
			}
			if lp := LocalPath(s.Command); lp != "" {
				return nil, fmt.Errorf("%s: the command names the local path %s, which a CI runner does not have; %s", what, termtext.Line(lp), Suggest(s.Command, lp))
			}
			sk.servers = append(sk.servers, s.Command)
		}
		for _, in := range replay.Inputs(skill) {
			sk.inputs = append(sk.inputs, in.Name)
		}
		for _, st := range skill.Steps {
			if e := st.EffectValue(); e == ast.EffectIdempotentWrite || e == ast.EffectDestructive {
				sk.writes = append(sk.writes, WriteStep{File: rel, Line: int(st.HeaderRange.Start.Line), Step: st.Number, Effect: e})
			}
		}
		plan.Skills = append(plan.Skills, sk)
	}
	return plan, nil
}

// binDirs are the standard binary folders a command may name by absolute
// path: every runner has them.
var binDirs = []string{"/usr/bin/", "/bin/", "/usr/local/bin/", "/usr/sbin/", "/sbin/"}

// devFiles are absolute paths every runner has too.
var devFiles = []string{"/dev/null", "/dev/stdin", "/dev/stdout", "/dev/stderr"}

// LocalPath returns the first word of a server command (or the value of a
// --flag=value word) that names a path only the machine it was recorded
// on has: an absolute path outside the standard binary folders (a temp
// folder, a home folder, a checkout), a path from the home folder (~,
// $HOME), or a Windows drive path. It returns "" for a URL and for a
// command with none.
func LocalPath(command string) string {
	if strings.HasPrefix(command, "http://") || strings.HasPrefix(command, "https://") {
		return ""
	}
	// The words as --wrap splits them, then as blanks split them (a
	// Windows path's backslashes are escapes to the first).
	words, _ := shlex.Split(command)
	words = append(words, strings.Fields(command)...)
	for _, w := range words {
		cands := []string{w}
		if _, v, ok := strings.Cut(w, "="); ok {
			cands = append(cands, v)
		}
		for _, c := range cands {
			if localPath(c) {
				return c
			}
		}
	}
	return ""
}

func localPath(w string) bool {
	switch {
	case w == "~" || strings.HasPrefix(w, "~/") || strings.HasPrefix(w, "$HOME") || strings.HasPrefix(w, "${HOME}") || strings.HasPrefix(w, "%USERPROFILE%"):
		return true
	case len(w) >= 3 && (w[0] >= 'A' && w[0] <= 'Z' || w[0] >= 'a' && w[0] <= 'z') && w[1] == ':' && (w[2] == '\\' || w[2] == '/'):
		return true
	case !strings.HasPrefix(w, "/"):
		return false
	}
	clean := path.Clean(w)
	if slices.Contains(devFiles, clean) {
		return false
	}
	for _, d := range binDirs {
		if strings.HasPrefix(clean, d) && !strings.Contains(clean[len(d):], "/") {
			return false
		}
	}
	return true
}

// carriable refuses text that would change meaning in the workflow or on
// the runner: a control, line-break or bidi character (termtext.Forbidden;
// YAML 1.1 breaks lines on NEL, LS and PS), bytes that are not UTF-8, an
// expression opener (GitHub would evaluate it), and, for a skill path,
// white space (the action splits its skills on it).
func carriable(what, s string, path bool) error {
	if at, r := termtext.FirstForbidden(s); at >= 0 {
		return fmt.Errorf("%s %s holds %s, a control, line-break or bidi character, at byte %d; a workflow cannot carry it", what, quote(s), termtext.CodePoint(r), at)
	}
	switch {
	case !utf8.ValidString(s):
		return fmt.Errorf("%s %s is not UTF-8 text", what, quote(s))
	case strings.Contains(s, "${{"):
		return fmt.Errorf("%s %s holds ${{, which GitHub would evaluate as an expression", what, quote(s))
	case path && strings.ContainsAny(s, " \t"):
		return fmt.Errorf("%s %s holds white space, which the action's skills input splits on; rename it", what, quote(s))
	}
	return nil
}

// quote writes s in double quotes for a message, escaped for a terminal.
func quote(s string) string { return `"` + termtext.Line(s) + `"` }

func isSHA(s string) bool {
	if len(s) != 40 {
		return false
	}
	for _, r := range s {
		if !strings.ContainsRune("0123456789abcdef", r) {
			return false
		}
	}
	return true
}

// StructureError is output of the writer that does not read back as the
// workflow it meant to write: a value that escaped its scalar. Nothing is
// written then.
type StructureError struct {
	// Path is where the two first differ (jobs.replay.steps[1].with).
	Path string
	// Want and Got describe the value intended there and the one read.
	Want, Got string
}

func (e *StructureError) Error() string {
	return fmt.Sprintf("the workflow written does not read back as the one intended, at %s (want %s, read %s); nothing was written — please report it with the skill that caused it",
		e.Path, termtext.Line(e.Want), termtext.Line(e.Got))
}

// render builds the workflow as a YAML tree, encodes it with the YAML
// library and checks that the text reads back as the tree. Every string
// is a double-quoted scalar, so the library escapes whatever a value holds
// (NEL as \N, LS as \L, a newline as \n): no value can end its line. The
// keys are the workflow's own names, written plain, but for "on", quoted
// because YAML 1.1 reads a plain on as true; the one number is a plain
// integer. Text from a skill in a comment is escaped by termtext.Line.
func render(opts Options, jobs []*job, leftOut []string) ([]byte, error) {
	version := opts.Version
	if version == "" {
		version = "(devel)"
	}
	root := mapping(
		key("name"), str("Reelier replay"),
		quotedKey("on"), mapping(
			key("push"), null(),
			key("pull_request"), null(),
			key("schedule"), seq(mapping(key("cron"), comment(str("17 6 * * *"), "", "daily, 06:17 UTC: catches drift in the APIs the skills call"))),
			key("workflow_dispatch"), null(),
		),
		key("permissions"), permissions(opts.Sign, opts.Comment),
		key("jobs"), jobsNode(opts, jobs),
	)
	root.HeadComment = commentText(
		fmt.Sprintf("Generated by `reelier ci` (reelier %s). Replays this repository's", termtext.Line(version)),
		"skills with the Reelier Action, pinned by commit SHA, as one suite job",
		"per set of MCP servers: one install, one JUnit report and one job",
		"summary per job, every run pushed to the receipt ledger when",
		"REELIER_CLOUD_KEY is set. Edit it freely; `reelier ci --force`",
		"regenerates it from scratch.",
	)
	if len(leftOut) > 0 {
		lines := []string{"", "Left out (--no-writes: they have steps that write):"}
		for _, l := range leftOut {
			lines = append(lines, "  "+termtext.Line(l))
		}
		root.HeadComment += "\n" + commentText(lines...)
	}
	doc := &yaml.Node{Kind: yaml.DocumentNode, Content: []*yaml.Node{root}}
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(doc); err != nil {
		return nil, fmt.Errorf("writing the workflow: %w", err)
	}
	if err := enc.Close(); err != nil {
		return nil, fmt.Errorf("writing the workflow: %w", err)
	}
	out := spaced(b.Bytes())
	if err := reread(root, out); err != nil {
		return nil, err
	}
	return out, nil
}

// permissions is the workflow's permissions block: read the contents,
// and, only when receipts are signed keyless, mint an OIDC token for the
// signing certificate and write the attestation.
func permissions(sign string, prComment bool) *yaml.Node {
	m := mapping(key("contents"), str("read"))
	if prComment {
		m.Content = append(m.Content,
			comment(key("pull-requests"), "comment: the Action posts one comment on the pull request with the\nverdicts, and updates it on the next run (reelier ci --comment=false: none).", ""), str("write"))
	}
	if sign == SignKeyless {
		m.Content = append(m.Content,
			comment(key("id-token"), "sign: keyless — the job's OIDC token gets the Sigstore signing\ncertificate, and the attestation is stored with GitHub.", ""), str("write"),
			key("attestations"), str("write"))
	}
	return m
}

// jobsNode is the jobs mapping: one suite job per list of servers.
func jobsNode(opts Options, jobs []*job) *yaml.Node {
	m := mapping()
	for i, j := range jobs {
		id := "replay"
		if len(jobs) > 1 {
			id = fmt.Sprintf("replay-%d", i+1)
		}
		name := "Replay skills"
		if len(j.servers) > 0 {
			name = fmt.Sprintf("Replay skills on %d MCP server(s)", len(j.servers))
		}
		with := mapping(key("skills"), str(lines(j.skills)))
		if len(j.servers) > 0 {
			with.Content = append(with.Content, comment(key("wrap"),
				"The MCP servers these skills were recorded with (they need\nwhat their commands need: Node for npx, credentials in env).", ""), str(lines(j.servers)))
		}
		var pending []string // comment lines for the next key
		if len(j.inputs) > 0 {
			pending = append(pending,
				"Inputs the skills need; until they are given here (name=value,",
				"one a line) the replay stops before running and names each:",
				"  "+termtext.Line(strings.Join(j.inputs, ", ")),
				"vars: |",
				"  "+termtext.Line(j.inputs[0])+"=${{ vars."+termtext.Line(strings.ToUpper(j.inputs[0]))+" }}")
		}
		if len(j.writes) > 0 {
			pending = append(pending,
				"These steps write, and run on every push and every day (reelier ci",
				"--allow-writes; --yes for destructive ones):")
			for _, w := range j.writes {
				pending = append(pending, "  "+termtext.Line(w.String()))
			}
			with.Content = append(with.Content, comment(key("allow-writes"), strings.Join(pending, "\n"), ""), str("true"))
			pending = nil
			if j.destructive {
				with.Content = append(with.Content, key("yes"), str("true"))
			}
		}
		with.Content = append(with.Content,
			comment(key("junit"), strings.Join(pending, "\n"), ""), str(fmt.Sprintf("reelier-junit-%d.xml", i+1)),
			key("max-level"), comment(str("0"), "", "0 never calls an LLM; 1 or 2 heal into the patch output"),
			key("push"), comment(str("always"), "", "failing runs too, so the ledger shows the real pass rate"),
			key("cloud-url"), str("${{ vars.REELIER_CLOUD_URL }}"),
			key("cloud-key"), str("${{ secrets.REELIER_CLOUD_KEY }}"),
		)
		switch opts.Sign {
		case SignKeyless:
			with.Content = append(with.Content,
				key("sign"), comment(str(SignKeyless), "", "actions/attest signs each receipt; gh attestation verify checks it"))
		case SignKey:
			with.Content = append(with.Content,
				comment(key("sign"), "reelier run --sign signs each receipt with the key in the repository\nsecret "+SigningKeySecret+" (the PEM reelier key init writes); reviewers\ncheck a bundle with reelier verify BUNDLE --key signing.pub.", ""), str(SignKey),
				key("signing-key"), str("${{ secrets."+SigningKeySecret+" }}"))
		}
		if !opts.Comment {
			with.Content = append(with.Content, key("comment"), comment(str("false"), "", "no pull-request comment (reelier ci --comment)"))
		}
		steps := seq(
			mapping(key("uses"), comment(str(checkoutAction), "", checkoutVersion)),
			mapping(
				key("name"), str("Replay the skills"),
				key("id"), str("reelier"),
				key("uses"), str(opts.Action+"@"+opts.Ref),
				key("with"), with,
			),
			mapping(
				key("name"), str("Keep the JUnit report and the run records"),
				key("if"), str("always()"),
				key("uses"), comment(str(uploadAction), "", uploadVersion),
				key("with"), mapping(
					key("name"), str(fmt.Sprintf("reelier-replay-%d", i+1)),
					key("path"), str(fmt.Sprintf("reelier-junit-%d.xml\n${{ steps.reelier.outputs.runs-dir }}\n", i+1)),
					key("if-no-files-found"), str("ignore"),
				),
			),
			mapping(
				key("name"), str("Keep the heal patch (commit it)"),
				key("if"), str("always() && steps.reelier.outputs.patch != ''"),
				key("uses"), comment(str(uploadAction), "", uploadVersion),
				key("with"), mapping(
					key("name"), str(fmt.Sprintf("reelier-heal-patch-%d", i+1)),
					key("path"), str("${{ steps.reelier.outputs.patch }}"),
				),
			),
		)
		m.Content = append(m.Content, key(id), mapping(
			key("name"), str(name),
			key("runs-on"), str("ubuntu-latest"),
			key("timeout-minutes"), &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!int", Value: "20"},
			key("steps"), steps,
		))
	}
	return m
}

// lines joins values one a line, each line ended.
func lines(vs []string) string {
	var b strings.Builder
	for _, v := range vs {
		b.WriteString(v)
		b.WriteByte('\n')
	}
	return b.String()
}

// The YAML tree's pieces.

func str(s string) *yaml.Node {
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s, Style: yaml.DoubleQuotedStyle}
}

func key(s string) *yaml.Node { return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s} }

func quotedKey(s string) *yaml.Node { return str(s) }

func null() *yaml.Node { return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null"} }

func mapping(kv ...*yaml.Node) *yaml.Node { return &yaml.Node{Kind: yaml.MappingNode, Content: kv} }

func seq(items ...*yaml.Node) *yaml.Node { return &yaml.Node{Kind: yaml.SequenceNode, Content: items} }

// comment sets a node's head comment (lines above it) and line comment
// (after it), each "" for none. The texts are the writer's own or were
// escaped by termtext.Line, so they hold no line break but the ones given.
func comment(n *yaml.Node, head, line string) *yaml.Node {
	if head != "" {
		n.HeadComment = commentText(strings.Split(head, "\n")...)
	}
	if line != "" {
		n.LineComment = "# " + line
	}
	return n
}

func commentText(lines ...string) string {
	for i, l := range lines {
		lines[i] = "# " + l
	}
	return strings.Join(lines, "\n")
}

// spaced puts a blank line before each top-level key but the first, each
// job but the first and each step but the first (above any comment lines
// that belong to it), for the reader. Blank lines outside scalars mean
// nothing to YAML, and every scalar here is on one line; reread checks
// the result anyway.
func spaced(data []byte) []byte {
	src := strings.SplitAfter(string(data), "\n")
	var out []string
	seenTop, seenJob := false, false
	for _, l := range src {
		gap := false
		switch {
		case l == "" || strings.HasPrefix(l, "#"):
		case !strings.HasPrefix(l, " "):
			gap, seenTop, seenJob = seenTop, true, false
		case strings.HasPrefix(l, "  ") && len(l) > 2 && l[2] != ' ' && l[2] != '#' && strings.HasPrefix(strings.TrimRight(lastTop(out), "\n"), "jobs:"):
			gap, seenJob = seenJob, true
		case strings.HasPrefix(l, "      - "):
			gap = !strings.HasSuffix(lastNonComment(out), "steps:\n")
		}
		if gap {
			k := len(out)
			for k > 0 && strings.HasPrefix(strings.TrimLeft(out[k-1], " "), "#") {
				k--
			}
			out = append(out[:k], append([]string{"\n"}, out[k:]...)...)
		}
		out = append(out, l)
	}
	return []byte(strings.Join(out, ""))
}

// lastTop returns the last top-level line of out.
func lastTop(out []string) string {
	for i := len(out) - 1; i >= 0; i-- {
		if l := out[i]; l != "\n" && !strings.HasPrefix(l, " ") && !strings.HasPrefix(l, "#") {
			return l
		}
	}
	return ""
}

// lastNonComment returns the last line of out that is not a comment.
func lastNonComment(out []string) string {
	for i := len(out) - 1; i >= 0; i-- {
		if t := strings.TrimLeft(out[i], " "); !strings.HasPrefix(t, "#") {
			return out[i]
		}
	}
	return ""
}

// reread parses the written text and compares it with the tree it was
// written from: the same mappings with the same keys in the same order,
// the same sequences, the same scalars with the same values and tags.
func reread(want *yaml.Node, data []byte) error {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return &StructureError{Path: "the document", Want: "a YAML mapping", Got: err.Error()}
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) != 1 {
		return &StructureError{Path: "the document", Want: "one YAML document", Got: fmt.Sprintf("%d", len(doc.Content))}
	}
	return sameNode("", want, doc.Content[0])
}

func sameNode(path string, want, got *yaml.Node) error {
	where := path
	if where == "" {
		where = "the top level"
	}
	if want.Kind != got.Kind {
		return &StructureError{Path: where, Want: kindName(want), Got: kindName(got)}
	}
	switch want.Kind {
	case yaml.ScalarNode:
		if want.Value != got.Value || want.ShortTag() != got.ShortTag() {
			return &StructureError{Path: where, Want: fmt.Sprintf("%s %q", want.ShortTag(), want.Value), Got: fmt.Sprintf("%s %q", got.ShortTag(), got.Value)}
		}
		return nil
	case yaml.MappingNode, yaml.SequenceNode:
		if len(want.Content) != len(got.Content) {
			return &StructureError{Path: where, Want: fmt.Sprintf("%d entries", len(want.Content)/entryWidth(want)), Got: fmt.Sprintf("%d entries", len(got.Content)/entryWidth(want))}
		}
		for i := range want.Content {
			sub := path
			switch {
			case want.Kind == yaml.SequenceNode:
				sub = fmt.Sprintf("%s[%d]", path, i)
			case i%2 == 1:
				sub = strings.TrimPrefix(path+"."+want.Content[i-1].Value, ".")
			}
			if err := sameNode(sub, want.Content[i], got.Content[i]); err != nil {
				return err
			}
		}
		return nil
	}
	return &StructureError{Path: where, Want: "a mapping, a sequence or a scalar", Got: kindName(got)}
}

func entryWidth(n *yaml.Node) int {
	if n.Kind == yaml.MappingNode {
		return 2
	}
	return 1
}

func kindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.ScalarNode:
		return "a scalar"
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a sequence"
	case yaml.AliasNode:
		return "an alias"
	}
	return "nothing"
}

// Write writes the workflow to path atomically, creating its folder.
// An existing file is replaced only with force; otherwise ErrExists.
func Write(path string, data []byte, force bool) error {
	if _, err := os.Lstat(path); err == nil && !force {
		return ErrExists
	} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return atomicfile.Write(path, data, 0o644)
}
