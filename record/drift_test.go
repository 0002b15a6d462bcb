package record_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reelier/reelier/lang/grammar"
	"github.com/reelier/reelier/lang/tooldef"
	"github.com/reelier/reelier/replay/runlog"
	"github.com/sebdah/goldie/v2"
)

// driftRun is one `reelier run` of a compiled skill.
type driftRun struct {
	stdout, stderr string
	code           int
	rec            runlog.Record
	calls          []string // the tools the server was called with
}

// runSkill runs `reelier run` on skill with --wrap server; flags go first.
// The server logs every tool call to a file, read back into calls.
func runSkill(t *testing.T, skill, serverCmd string, flags ...string) driftRun {
	t.Helper()
	dir := t.TempDir()
	callLog := filepath.Join(dir, "calls.log")
	args := append([]string{"run", "--runs-dir", filepath.Join(dir, "runs"), "--yes", "--wrap", serverCmd + " -calls '" + callLog + "'"}, flags...)
	args = append(args, skill)
	cmd := exec.Command(reelierBin(t), args...)
	var out, errw bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errw
	err := cmd.Run()
	r := driftRun{stdout: out.String(), stderr: errw.String()}
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		r.code = exit.ExitCode()
	case err != nil:
		t.Fatal(err)
	}
	records, _ := filepath.Glob(filepath.Join(dir, "runs", "*.jsonl"))
	if len(records) != 1 {
		t.Fatalf("%d run record files; want 1\nstdout:\n%s\nstderr:\n%s", len(records), r.stdout, r.stderr)
	}
	raw, err := os.ReadFile(records[0])
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(bytes.TrimSpace(raw), &r.rec); err != nil {
		t.Fatalf("run record %s: %v", raw, err)
	}
	if b, err := os.ReadFile(callLog); err == nil {
		r.calls = strings.Fields(string(b))
	}
	return r
}

// driftBlock is the receipt's tool drift report: its lines from
// "  tool drift:" up to the totals.
func driftBlock(stdout string) string {
	i := strings.Index(stdout, "  tool drift:")
	j := strings.Index(stdout, "  steps:")
	if i < 0 || j < i {
		return ""
	}
	return stdout[i:j]
}

// TestToolDriftEndToEnd: a session recorded through the reelier binary
// against the Go test server, compiled; the skill keeps the signatures of
// the two tools it calls. Replayed against the same server it passes;
// against one whose create_item gained an input field it stops before
// step 1 — no tool call reaches the server — with a report naming the
// server, the tool and the field, exit 1 and a run record that says so;
// --ignore-tool-drift runs it and the record says the drift was ignored;
// an annotation-only change and a tool no longer offered are reported as
// such.
func TestToolDriftEndToEnd(t *testing.T) {
	p := startBinary(t, "", server("a"))
	cs := p.session
	callSession(t, cs, "reelier_start_recording", map[string]any{"name": "drift"}, nil)
	callSession(t, cs, "reelier_note", map[string]any{"text": "make an item"}, nil)
	callSession(t, cs, "create_item", map[string]any{"title": "demo"}, nil)
	callSession(t, cs, "reelier_note", map[string]any{"text": "read it back"}, nil)
	callSession(t, cs, "get_item", map[string]any{"id": "item-1"}, nil)
	callSession(t, cs, "reelier_stop_recording", nil, nil)

	skill := filepath.Join(t.TempDir(), "drift.skill.md")
	if out, err := exec.Command(reelierBin(t), "compile", filepath.Join(p.dir, "drift-1.jsonl"), "-o", skill).CombinedOutput(); err != nil {
		t.Fatalf("compile: %v\n%s", err, out)
	}
	src, err := os.ReadFile(skill)
	if err != nil {
		t.Fatal(err)
	}
	parsed, diags := grammar.Parse(skill, src)
	if diags.HasErrors() {
		t.Fatalf("compiled skill: %v", diags)
	}
	e := parsed.Frontmatter.Metadata(tooldef.MetadataKey)
	if e == nil {
		t.Fatalf("no %s in the compiled skill:\n%s", tooldef.MetadataKey, src)
	}
	if lines := strings.Split(e.Value, "\n"); len(lines) != 2 || !strings.HasPrefix(lines[0], "create_item(title: string) in=") || !strings.HasPrefix(lines[1], "get_item(id: string) in=") ||
		!strings.HasSuffix(lines[0], "hints=!readOnly,!destructive,!idempotent") || !strings.HasSuffix(lines[1], "hints=readOnly,!idempotent") {
		t.Errorf("%s:\n%s", tooldef.MetadataKey, e.Value)
	}
	if !bytes.Contains(src, []byte("  reelier-tools: |-\n    create_item(")) {
		t.Errorf("the signatures are not a literal block:\n%s", src)
	}

	// The same server: no drift, both steps run.
	same := runSkill(t, skill, server("a"))
	if same.code != 0 || same.rec.ToolDrift != nil || strings.Join(same.calls, " ") != "create_item get_item" {
		t.Errorf("same server: exit %d, drift %+v, calls %v\n%s%s", same.code, same.rec.ToolDrift, same.calls, same.stdout, same.stderr)
	}

	gold := goldie.New(t)
	for _, tt := range []struct {
		name, drift string
		tool        string
		changes     []string
	}{
		{"field", "field", "create_item", []string{"input field priority added (integer, optional)"}},
		{"annotations", "annotations", "get_item", []string{"annotation readOnlyHint: true → false"}},
		{"gone", "gone", "get_item", []string{"no longer offered by the server"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := runSkill(t, skill, server("a")+" -drift "+tt.drift)
			if r.code != 1 {
				t.Errorf("exit %d; want 1\n%s%s", r.code, r.stdout, r.stderr)
			}
			if len(r.calls) != 0 {
				t.Errorf("tool calls reached the server before the drift check stopped the run: %v", r.calls)
			}
			d := r.rec.ToolDrift
			if d == nil || d.Ignored || len(d.Tools) != 1 || d.Tools[0].Server != "a" || d.Tools[0].Tool != tt.tool || strings.Join(d.Tools[0].Changes, "|") != strings.Join(tt.changes, "|") {
				t.Errorf("record toolDrift %+v; want server a, tool %s, changes %q", d, tt.tool, tt.changes)
			}
			if r.rec.Verdict != runlog.VerdictFailed || r.rec.Totals.Skipped != 2 {
				t.Errorf("verdict %s, totals %+v; want failed with both steps skipped", r.rec.Verdict, r.rec.Totals)
			}
			for _, st := range r.rec.Steps {
				if st.Skip != "tool drift" {
					t.Errorf("step %d skipped for %q; want tool drift", st.N, st.Skip)
				}
			}
			gold.Assert(t, t.Name(), []byte(driftBlock(r.stdout)))
		})
	}

	// --ignore-tool-drift: the steps run (the new field is optional) and
	// the record and the receipt say the drift was ignored.
	ign := runSkill(t, skill, server("a")+" -drift field", "--ignore-tool-drift")
	if ign.code != 0 || strings.Join(ign.calls, " ") != "create_item get_item" {
		t.Errorf("--ignore-tool-drift: exit %d, calls %v\n%s%s", ign.code, ign.calls, ign.stdout, ign.stderr)
	}
	if d := ign.rec.ToolDrift; d == nil || !d.Ignored || len(d.Tools) != 1 || ign.rec.Verdict != runlog.VerdictPassed {
		t.Errorf("--ignore-tool-drift: record toolDrift %+v, verdict %s; want the drift, ignored, and a pass", d, ign.rec.Verdict)
	}
	gold.Assert(t, t.Name()+"/ignored", []byte(driftBlock(ign.stdout)))
}
