// Package skillservers starts the MCP servers a skill records in its
// Servers section, for a replay given no --wrap.
//
// A skill's Servers section names commands, and a skill can come from
// anyone: starting them is running a program the file names, like `make`
// running a Makefile's. So a skill's servers start only when the user has
// said, for that file, that its commands may run: Options.Trust says so
// for this run and remembers it, keyed by the file's absolute path and a
// hash of its commands, in a store under the user's config directory
// (never in the project, where a shared skill could ship its own
// approval). A changed command list asks again. Trust applies the same
// rule for `reelier ci`, which writes the commands into a workflow where
// the Action starts them.
//
// Everything printed from a skill — its path, server names, commands and
// headers — goes through termtext.Line: a command is shown as what would
// run, never repainted by the ESC or CR sequences it holds.
package skillservers

import (
	"context"
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
	"time"

	"github.com/reelier/reelier/internal/atomicfile"
	"github.com/reelier/reelier/internal/termtext"
	"github.com/reelier/reelier/internal/words"
	"github.com/reelier/reelier/lang/ast"
	"github.com/reelier/reelier/mcpx"
	"github.com/reelier/reelier/tool"
)

// Skill is a parsed skill and where it was read from.
type Skill struct {
	// Path names the file in messages; Stdin is set for a skill read from
	// standard input, which is never remembered as trusted.
	Path  string
	Stdin bool
	Skill *ast.Skill
}

// Options configure Start.
type Options struct {
	// Trust starts servers not trusted before, and remembers the trust.
	Trust bool
	// Stderr receives what is started and remembered.
	Stderr io.Writer
	// Version is the client version the servers are told.
	Version string
	// StoreDir is where the trust store lives; "" means the user config
	// directory's reelier folder.
	StoreDir string
	// StartTimeout bounds each server's start and MCP handshake;
	// mcpx.DefaultStartTimeout when 0.
	StartTimeout time.Duration
	// StartTimeoutFlag names the flag that sets StartTimeout, for the
	// "still waiting" line and the timeout's message (mcpx.Options).
	StartTimeoutFlag string
	// NoticeAfter is the interval of the "still waiting" lines
	// (mcpx.Options.NoticeAfter).
	NoticeAfter time.Duration
	// Quiet discards the servers' own stderr (otherwise each line is
	// printed as "[name] line", name as the Servers section gives it).
	Quiet bool
}

// RefusedError is a refusal to start anything: a command that cannot be
// started as recorded, or servers the user has not trusted. Its message
// says how to go on.
type RefusedError struct{ Msg string }

func (e *RefusedError) Error() string { return e.Msg }

// serverGroup is one list of servers to start, shared by the skills that
// record exactly that list (same commands, same order).
type serverGroup struct {
	servers []*ast.Server
	skills  []*Skill
}

// identity returns what the user trusts of each server, in order: its
// command or URL and, for a URL, the headers it is sent (a header naming
// $VAR sends that variable's value to the URL).
func identity(servers []*ast.Server) []string {
	out := make([]string, len(servers))
	for i, sv := range servers {
		out[i] = sv.Command
		for _, h := range sv.Headers {
			out[i] += "\x00" + h.Text
		}
	}
	return out
}

// specs reads the group's servers once into what mcpx starts: each its
// name, its command or URL, and its recorded headers parsed.
func (g *serverGroup) specs() ([]mcpx.ServerSpec, error) {
	out := make([]mcpx.ServerSpec, len(g.servers))
	for i, sv := range g.servers {
		out[i] = mcpx.ParseServer(sv.Command)
		out[i].Name = sv.Name
		for _, text := range sv.Headers {
			h, err := mcpx.ParseHeader(text.Text)
			if err != nil {
				return nil, fmt.Errorf("server %s: header %q: %v", termtext.Line(sv.Name), text.Text, err)
			}
			out[i].Headers = append(out[i].Headers, h)
		}
	}
	return out, nil
}

// skillServerGroups groups the skills that record servers by their list.
func skillServerGroups(skills []*Skill) []*serverGroup {
	var groups []*serverGroup
	byKey := map[string]*serverGroup{}
	for _, l := range skills {
		if len(l.Skill.Servers) == 0 {
			continue
		}
		g := &serverGroup{servers: l.Skill.Servers}
		key := strings.Join(identity(g.servers), "\x01")
		if have, ok := byKey[key]; ok {
			have.skills = append(have.skills, l)
			continue
		}
		g.skills = []*Skill{l}
		byKey[key] = g
		groups = append(groups, g)
	}
	return groups
}

// Start starts the servers the skills record and registers their tools
// in reg. It refuses, starting nothing,
// when a command cannot be started as recorded or the user has not
// trusted a skill's servers. The returned function stops what started.
func Start(ctx context.Context, skills []*Skill, reg tool.Registry, opts Options) (func(), error) {
	stderr := opts.Stderr
	if stderr == nil {
		stderr = io.Discard
	}
	trust := opts.Trust
	groups := skillServerGroups(skills)
	if len(groups) == 0 {
		return func() {}, nil
	}
	if err := checkServerGroups(groups); err != nil {
		return nil, err
	}
	store := loadTrustStore(opts.StoreDir)
	var untrusted []*Skill
	for _, g := range groups {
		for _, l := range g.skills {
			if !store.trusts(l, identity(g.servers)) {
				untrusted = append(untrusted, l)
			}
		}
	}
	if len(untrusted) > 0 && !trust {
		return nil, untrustedError(untrusted, runWording)
	}
	var remember []*Skill
	for _, l := range untrusted {
		if trustKey(l) != "" {
			store.trust(l)
			remember = append(remember, l)
		}
	}
	if len(remember) > 0 {
		if err := store.save(); err != nil {
			fmt.Fprintf(stderr, "[reelier] warning: could not remember that you trust the servers of %s (%v); pass --servers-from-skill again next time\n", skillPaths(remember), err)
		} else {
			fmt.Fprintf(stderr, "[reelier] remembered in %s that you trust the servers of %s; a change to their commands asks again\n", termtext.Line(store.path), skillPaths(remember))
		}
	}
	var routers []*mcpx.Router
	stop := func() {
		for _, r := range routers {
			r.Close()
		}
	}
	for _, g := range groups {
		where := "the skill"
		if len(skills) > 1 {
			where = skillPaths(g.skills)
		}
		var list []string
		for _, sv := range g.servers {
			list = append(list, fmt.Sprintf("%s (%s)", termtext.Line(sv.Name), termtext.Line(sv.Command)))
		}
		fmt.Fprintf(stderr, "[reelier] starting %s recorded in %s: %s\n", words.Count(len(g.servers), "server"), where, strings.Join(list, ", "))
		servers, err := g.specs()
		if err != nil {
			stop()
			return nil, fmt.Errorf("starting the servers recorded in %s: %w", skillPaths(g.skills), err)
		}
		router, err := mcpx.StartServers(ctx, servers, mcpx.Options{Stderr: stderr, Quiet: opts.Quiet, Version: opts.Version, StartTimeout: opts.StartTimeout, StartTimeoutFlag: opts.StartTimeoutFlag, NoticeAfter: opts.NoticeAfter})
		if err != nil {
			stop()
			return nil, fmt.Errorf("starting the servers recorded in %s: %w", skillPaths(g.skills), escapedError{err})
		}
		routers = append(routers, router)
		router.Register(reg, stderr)
	}
	return stop, nil
}

// escapedError prints an error that may quote a skill's command (a
// failed start names the command) with its control characters escaped,
// and unwraps to it.
type escapedError struct{ err error }

func (e escapedError) Error() string { return termtext.Block(e.err.Error()) }
func (e escapedError) Unwrap() error { return e.err }

// checkServerGroups refuses lists that cannot be started as recorded: a
// command the recording redacted, or two lists that offer the same tool
// name from different servers (one run has one tool of each name).
func checkServerGroups(groups []*serverGroup) error {
	var msgs []string
	owner := map[string]string{} // tool → command of the server offering it
	for _, g := range groups {
		for _, sv := range g.servers {
			remote := mcpx.ParseServer(sv.Command).Remote()
			if len(sv.Headers) > 0 && !remote {
				msgs = append(msgs, fmt.Sprintf("%s: server %s lists headers, which only a server given by its http:// or https:// URL is sent", skillPaths(g.skills), termtext.Line(sv.Name)))
			}
			if strings.Contains(sv.Command, "«redacted") && remote {
				msgs = append(msgs, fmt.Sprintf("%s: server %s cannot be started from the skill: its recorded URL had a credential blanked (%s). Record again with the credential in a header read from the environment (--wrap-header 'Authorization: Bearer $TOKEN'), or start the server yourself with --wrap and the real URL.",
					skillPaths(g.skills), termtext.Line(sv.Name), termtext.Line(sv.Command)))
			} else if strings.Contains(sv.Command, "«redacted") {
				msgs = append(msgs, fmt.Sprintf("%s: server %s cannot be started from the skill: its recorded command had a secret blanked (%s). Keep the secret in the environment (servers inherit it) and record again, or start the server yourself with --wrap and the real value.",
					skillPaths(g.skills), termtext.Line(sv.Name), termtext.Line(sv.Command)))
			}
			for _, t := range sv.Tools {
				if cmd, ok := owner[t.Name]; ok && cmd != sv.Command {
					msgs = append(msgs, fmt.Sprintf("%s: tool %q is offered by server %s (%s), and another skill of this run records it from %s; run these skills separately, or pass --wrap",
						skillPaths(g.skills), termtext.Line(t.Name), termtext.Line(sv.Name), termtext.Line(sv.Command), termtext.Line(cmd)))
				} else if !ok {
					owner[t.Name] = sv.Command
				}
			}
		}
	}
	if len(msgs) > 0 {
		return &RefusedError{Msg: strings.Join(msgs, "\n")}
	}
	return nil
}

// wording is what a refusal says about why trust is needed and how to
// give it; run and ci say it differently.
type wording struct {
	why     string
	options []string // the ways to go on, "--wrap" replaced by the --wrap words
}

var runWording = wording{
	why: "A skill's server commands run as you, like a Makefile's, so reelier starts them only once you have said you trust them.",
	options: []string{
		"rerun with --servers-from-skill (remembered for each file until its servers change), or",
		"start the servers yourself: --wrap",
	},
}

var ciWording = wording{
	why: "reelier ci writes a skill's server commands into the workflow, where the Action starts them, only once you have said you trust them (as reelier run asks before it starts them).",
	options: []string{
		"rerun with --servers-from-skill (remembered for each file until its servers change), or",
		"answer yes when reelier ci asks, run from a terminal.",
	},
}

// untrustedError explains why the skills' servers were not trusted, lists
// their commands (escaped) and the ways to go on.
func untrustedError(skills []*Skill, w wording) error {
	var b strings.Builder
	b.WriteString(listServers(skills))
	var wraps []string
	seen := map[string]bool{}
	for _, l := range skills {
		for _, sv := range l.Skill.Servers {
			if !seen[sv.Command] {
				seen[sv.Command] = true
				wraps = append(wraps, "--wrap "+shellWord(sv.Command))
				for _, h := range sv.Headers {
					wraps = append(wraps, "--wrap-header "+shellWord(h.Text))
				}
			}
		}
	}
	b.WriteString(w.why + "\n")
	b.WriteString("Check the commands above, then either\n")
	for i, o := range w.options {
		if o == "start the servers yourself: --wrap" {
			o = "start the servers yourself: " + strings.Join(wraps, " ")
		}
		b.WriteString("  " + o)
		if i < len(w.options)-1 {
			b.WriteByte('\n')
		}
	}
	return &RefusedError{Msg: b.String()}
}

// listServers lists the skills' servers, one a line, every piece escaped
// for the terminal.
func listServers(skills []*Skill) string {
	var b strings.Builder
	for _, l := range skills {
		fmt.Fprintf(&b, "%s records %s to start for it:\n", termtext.Line(l.Path), words.Count(len(l.Skill.Servers), "MCP server"))
		for _, sv := range l.Skill.Servers {
			fmt.Fprintf(&b, "  %s: %s\n", termtext.Line(sv.Name), termtext.Line(sv.Command))
			for _, h := range sv.Headers {
				fmt.Fprintf(&b, "    header %s\n", termtext.Line(h.Text))
			}
		}
	}
	return b.String()
}

// TrustOptions configure Trust.
type TrustOptions struct {
	// Trust trusts every skill's servers and remembers it
	// (--servers-from-skill).
	Trust bool
	// Confirm, when set, is shown the list of servers not trusted yet
	// (escaped) and returns whether the user trusts them; a yes is
	// remembered. Set it only when a person can answer (a terminal).
	Confirm func(list string) bool
	// Stderr receives what is remembered.
	Stderr io.Writer
	// StoreDir is the trust store's folder, as in Options.
	StoreDir string
}

// Trust applies the rule Start applies, without starting anything, for a
// command that hands the servers on to be started elsewhere (reelier ci
// writes them into a workflow): the skills' servers must have been trusted
// before (the per-user store), be trusted now (opts.Trust) or be
// confirmed (opts.Confirm). Otherwise a *RefusedError lists the commands.
// Trust given now is remembered, as Start remembers it.
func Trust(skills []*Skill, opts TrustOptions) error {
	stderr := opts.Stderr
	if stderr == nil {
		stderr = io.Discard
	}
	store := loadTrustStore(opts.StoreDir)
	var untrusted []*Skill
	for _, l := range skills {
		if len(l.Skill.Servers) > 0 && !store.trusts(l, identity(l.Skill.Servers)) {
			untrusted = append(untrusted, l)
		}
	}
	if len(untrusted) == 0 {
		return nil
	}
	if !opts.Trust && (opts.Confirm == nil || !opts.Confirm(listServers(untrusted))) {
		return untrustedError(untrusted, ciWording)
	}
	var remember []*Skill
	for _, l := range untrusted {
		if trustKey(l) != "" {
			store.trust(l)
			remember = append(remember, l)
		}
	}
	if len(remember) == 0 {
		return nil
	}
	if err := store.save(); err != nil {
		fmt.Fprintf(stderr, "[reelier] warning: could not remember that you trust the servers of %s (%v); you will be asked again\n", skillPaths(remember), err)
	} else {
		fmt.Fprintf(stderr, "[reelier] remembered in %s that you trust the servers of %s; a change to their commands asks again\n", termtext.Line(store.path), skillPaths(remember))
	}
	return nil
}

// shellWord quotes s as one word for a POSIX shell: in double quotes when
// nothing in it is special there, else in single quotes. Control
// characters are escaped first (the word is printed, not run).
func shellWord(s string) string {
	s = termtext.Line(s)
	if !strings.ContainsAny(s, "\\\"$`!") {
		return `"` + s + `"`
	}
	return "'" + strings.ReplaceAll(s, "'", `'"'"'`) + "'"
}

// skillPaths lists the skills' paths for a message, escaped.
func skillPaths(skills []*Skill) string {
	paths := make([]string, len(skills))
	for i, l := range skills {
		paths[i] = termtext.Line(l.Path)
	}
	return strings.Join(paths, ", ")
}

// trustFile is the store's file name under <user config dir>/reelier.
const trustFile = "trusted-servers.json"

// trustStore is the record of skill files whose servers the user let
// `reelier run` start.
type trustStore struct {
	path string // "" when there is no config directory
	data trustData
	// err is why the store could not be read; it is not written then.
	err error
}

type trustData struct {
	About  string                `json:"about"`
	Skills map[string]trustEntry `json:"skills"`
}

// trustEntry is one trusted skill file: the hash of its server commands
// (in order) and, for the person reading the file, the commands.
type trustEntry struct {
	SHA256    string   `json:"sha256"`
	Commands  []string `json:"commands"`
	TrustedAt string   `json:"trustedAt"`
}

const trustAbout = "Skill files whose recorded MCP server commands `reelier run` may start and `reelier ci` may write into a workflow (allowed with --servers-from-skill). Delete an entry to be asked again."

func loadTrustStore(dir string) *trustStore {
	s := &trustStore{data: trustData{Skills: map[string]trustEntry{}}}
	if dir == "" {
		cfg, err := os.UserConfigDir()
		if err != nil {
			return s
		}
		dir = filepath.Join(cfg, "reelier")
	}
	s.path = filepath.Join(dir, trustFile)
	raw, err := os.ReadFile(s.path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		s.err = err
	default:
		if err := json.Unmarshal(raw, &s.data); err != nil {
			s.err = fmt.Errorf("%s: %v", s.path, err)
		}
		if s.data.Skills == nil {
			s.data.Skills = map[string]trustEntry{}
		}
	}
	return s
}

// trustKey identifies a skill file; a skill read from standard input has
// none.
func trustKey(l *Skill) string {
	if l.Stdin {
		return ""
	}
	abs, err := filepath.Abs(l.Path)
	if err != nil {
		return ""
	}
	return abs
}

func commandsHash(commands []string) string {
	h := sha256.New()
	for _, c := range commands {
		h.Write([]byte(c))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil))
}

// trusts reports whether the file's servers, exactly these commands, were
// trusted before.
func (s *trustStore) trusts(l *Skill, commands []string) bool {
	key := trustKey(l)
	e, ok := s.data.Skills[key]
	return key != "" && ok && e.SHA256 == commandsHash(commands)
}

func (s *trustStore) trust(l *Skill) {
	key := trustKey(l)
	if key == "" {
		return
	}
	cmds := make([]string, len(l.Skill.Servers))
	for i, sv := range l.Skill.Servers {
		cmds[i] = sv.Command
		for _, h := range sv.Headers {
			cmds[i] += " (header " + h.Text + ")"
		}
	}
	s.data.Skills[key] = trustEntry{SHA256: commandsHash(identity(l.Skill.Servers)), Commands: cmds, TrustedAt: time.Now().UTC().Format(time.RFC3339)}
}

// save writes the store to s.path, atomically.
func (s *trustStore) save() error {
	switch {
	case s.path == "":
		return errors.New("there is no user config directory")
	case s.err != nil:
		return s.err
	}
	s.data.About = trustAbout
	raw, err := json.MarshalIndent(s.data, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(s.path), 0o700); err != nil {
		return err
	}
	return atomicfile.Write(s.path, append(raw, '\n'), 0o600)
}
