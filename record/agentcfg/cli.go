package agentcfg

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/reelier/reelier/internal/exitstatus"
)

// AgentConfigs returns the configs of the agent (a Name in Agents) for
// the working directory and the home directory, in detection order; an
// unknown agent is a usage error.
func AgentConfigs(agent string) ([]Config, error) {
	a, ok := LookupAgent(agent)
	if !ok {
		return nil, exitstatus.Usagef("unknown --agent %q: use %s", agent, AgentNames())
	}
	dir, err := os.Getwd()
	if err != nil {
		return nil, exitstatus.Usagef("%v", err)
	}
	home, _ := os.UserHomeDir()
	return a.Configs(dir, home, os.Getenv), nil
}

// PlanFor detects the config among candidates and plans the rewrite
// that fronts its local servers with the reelier that exe names. Its
// errors carry the exit status (internal/exitstatus).
func PlanFor(candidates []Config, exe func() (string, error)) (*Plan, error) {
	cfg, err := Detect(candidates)
	if err != nil {
		var none *NoConfigError
		if errors.As(err, &none) {
			hint := Agents[0].AddHint
			if len(candidates) > 0 {
				hint = agentOf(candidates[0]).AddHint
			}
			return nil, &exitstatus.Error{Code: exitstatus.Failed, Err: fmt.Errorf("%v.\nTo record one MCP server without a config, %s", err, hint)}
		}
		return nil, &exitstatus.Error{Code: exitstatus.Failed, Err: err}
	}
	reelier, err := exe()
	if err != nil {
		return nil, err
	}
	plan, err := PlanInstall(cfg, reelier)
	var pe *ParseError
	switch {
	case errors.As(err, &pe):
		lang := "JSON"
		if isTOML(pe.Path) {
			lang = "TOML"
		}
		return nil, exitstatus.Usagef("%v\nThe config is not valid %s, so nothing was changed; fix it and run reelier install again.", pe, lang)
	case err != nil:
		return nil, &exitstatus.Error{Code: exitstatus.Failed, Err: err}
	}
	return plan, nil
}

// WriteText lists what the plan does with each server.
func (p *Plan) WriteText(w io.Writer) {
	fmt.Fprintf(w, "Config: %s (%s)\n", p.Config.Path, p.Config.Scope)
	if len(p.Changes) == 0 {
		fmt.Fprintln(w, "  (no MCP servers configured)")
	}
	for _, c := range p.Changes {
		fmt.Fprintln(w, "  "+c.Describe())
	}
}

// ApplyAndReport backs the config up, rewrites it and says so on w.
func (p *Plan) ApplyAndReport(w io.Writer) error {
	backup, err := Apply(p, time.Now())
	if err != nil {
		return &exitstatus.Error{Code: exitstatus.Failed, Err: err}
	}
	fmt.Fprintf(w, "Backed up %s to %s\n", p.Config.Path, backup)
	fmt.Fprintf(w, "Wrapped %s with reelier mcp --wrap. Restart your agent to pick up the change.\n", servers(p.Wraps()))
	fmt.Fprintln(w, "To revert: reelier uninstall")
	return nil
}

// ReelierPath is the absolute path of the running reelier binary, which
// a wrapped config runs. A `go run` build is refused: it is deleted when
// the command ends.
func ReelierPath() (string, error) {
	exe, err := os.Executable()
	if err != nil {
		return "", exitstatus.Usagef("cannot tell where the reelier binary is: %v", err)
	}
	if real, err := filepath.EvalSymlinks(exe); err == nil {
		exe = real
	}
	if strings.Contains(filepath.ToSlash(exe), "/go-build") {
		return "", exitstatus.Usagef("this reelier is a temporary `go run` build (%s), which is deleted when it exits; install it first (CGO_ENABLED=0 go install -trimpath ./cmd/reelier) and run that", exe)
	}
	return exe, nil
}

// servers renders "1 server" or "3 servers".
func servers(n int) string {
	if n == 1 {
		return "1 server"
	}
	return fmt.Sprintf("%d servers", n)
}
