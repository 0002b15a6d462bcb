package demo

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/reelier/reelier/compile"
	"github.com/reelier/reelier/internal/atomicfile"
	"github.com/reelier/reelier/internal/exitstatus"
	"github.com/reelier/reelier/lang/format"
	"github.com/reelier/reelier/lang/grammar"
	"github.com/reelier/reelier/mcpx"
	"github.com/reelier/reelier/replay"
	"github.com/reelier/reelier/replay/httptool"
	"github.com/reelier/reelier/tool"
	"github.com/reelier/reelier/trace"
)

// Compile compiles the recorded trace to <dir>/skills/<trace
// file>.skill.md, refusing to replace a file there, and prints the
// compiler's summary to w. It returns the skill's path.
func Compile(w io.Writer, tracePath, dir string) (string, error) {
	tr, err := trace.Load(tracePath)
	if err != nil {
		return "", &exitstatus.Error{Code: exitstatus.Failed, Err: err}
	}
	out, err := compile.Compile(tr, compile.Options{Source: filepath.Base(tracePath)})
	if err != nil {
		return "", &exitstatus.Error{Code: exitstatus.Failed, Err: err}
	}
	skillPath := filepath.Join(dir, "skills", strings.TrimSuffix(filepath.Base(tracePath), ".jsonl")+".skill.md")
	if err := compile.CheckOverwrite(skillPath, false); err != nil {
		return "", err
	}
	if err := os.MkdirAll(filepath.Dir(skillPath), 0o755); err != nil {
		return "", exitstatus.Usagef("%v", err)
	}
	if err := atomicfile.Write(skillPath, format.Source(out.Skill), 0o644); err != nil {
		return "", exitstatus.Usagef("%v", err)
	}
	out.Summary.Output = skillPath
	return skillPath, out.Summary.WriteText(w)
}

// Replay replays the skill as written on disk at Level 0, with the demo
// registry started again (server, as Record's) as its MCP downstream;
// version is the client version the server is told.
func Replay(ctx context.Context, skillPath, server, version string, stderr io.Writer) (*replay.Result, error) {
	src, err := os.ReadFile(skillPath)
	if err != nil {
		return nil, &exitstatus.Error{Code: exitstatus.Failed, Err: err}
	}
	skill, diags := grammar.Parse(skillPath, src)
	if diags.HasErrors() {
		return nil, &exitstatus.Error{Code: exitstatus.Failed, Err: fmt.Errorf("the compiled skill does not parse: %v", diags[0])}
	}
	router, err := mcpx.StartServers(ctx, []mcpx.ServerSpec{mcpx.ParseServer(server)}, mcpx.Options{Stderr: stderr, Version: version})
	if err != nil {
		return nil, &exitstatus.Error{Code: exitstatus.Failed, Err: err}
	}
	defer router.Close()
	tools := tool.Registry{}
	httptool.Register(tools, nil)
	router.Register(tools, stderr)
	return replay.Run(ctx, skill, replay.Options{Tools: tools}), nil
}
