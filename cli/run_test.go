package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/reelier/reelier/replay/runlog"
	"github.com/reelier/reelier/testkit/testutil"
)

// TestTerminalStyle: live progress and colour only on a terminal; pipes,
// files and buffers get plain receipts.
func TestTerminalStyle(t *testing.T) {
	if s := terminalStyle(&bytes.Buffer{}); s != nil {
		t.Errorf("buffer: %+v, want plain", s)
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	if s := terminalStyle(w); s != nil {
		t.Errorf("pipe: %+v, want plain", s)
	}
	f, err := os.Create(filepath.Join(t.TempDir(), "out"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if s := terminalStyle(f); s != nil {
		t.Errorf("file: %+v, want plain", s)
	}
	null, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer null.Close()
	if s := terminalStyle(null); s != nil {
		t.Errorf("%s: %+v, want plain (a character device is not a terminal)", os.DevNull, s)
	}
}

func TestParseVars(t *testing.T) {
	vars, err := parseVars([]string{"a=1", "b=x=y", "_c=", "a=2"})
	if err != nil {
		t.Fatal(err)
	}
	if vars["a"] != "2" || vars["b"] != "x=y" || vars["_c"] != "" || len(vars) != 3 {
		t.Errorf("vars %v", vars)
	}
	for _, bad := range []string{"", "=1", "a", "1a=2", "a-b=1", "é=1", "today=1", "today-7d=1"} {
		if _, err := parseVars([]string{bad}); err == nil || exitCode(err) != exitUsage {
			t.Errorf("parseVars(%q) = %v, want a usage error", bad, err)
		}
	}
}

func TestLoadVars(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "vars.env")
	if err := os.WriteFile(file, []byte("# inputs\n\nstripe_key = 'sk_from_file'\nregion=\"eu west\"\nboth=file\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	environ := []string{"REELIER_VAR_token=from_env", "REELIER_VAR_both=env", "REELIER_VAR_today=x", "REELIER_VAR_bad-name=x", "OTHER=1"}
	vars, err := loadVars([]string{"both=flag"}, []string{file}, environ)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"token": "from_env", "stripe_key": "sk_from_file", "region": "eu west", "both": "flag"}
	if fmt.Sprint(vars) != fmt.Sprint(want) {
		t.Errorf("vars %v, want %v", vars, want)
	}
	for name, content := range map[string]string{"noeq": "just a line\n", "badname": "1x=2\n", "reserved": "today=2026-01-01\n"} {
		bad := filepath.Join(dir, name)
		if err := os.WriteFile(bad, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		_, err := loadVars(nil, []string{bad}, nil)
		if err == nil || exitCode(err) != exitUsage || !strings.Contains(err.Error(), bad+":1:") {
			t.Errorf("%s: %v, want a usage error naming %s:1", name, err, bad)
		}
	}
	if _, err := loadVars(nil, []string{filepath.Join(dir, "missing")}, nil); err == nil || exitCode(err) != exitUsage {
		t.Errorf("a missing --var-file: %v", err)
	}
}

// TestRunInterrupted: Ctrl-C while a step waits on its tool ends the run
// with exit status 130 and a record whose verdict is interrupted, never
// failed; the step whose request was sent is interrupted in flight. The signal is sent once the server holds the request, so the
// process is known to be mid-call.
func TestRunInterrupted(t *testing.T) {
	bin := testutil.ReelierBinary(t)
	arrived := make(chan struct{}, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		arrived <- struct{}{}
		<-r.Context().Done()
	}))
	defer srv.Close()
	dir := t.TempDir()
	skill := "---\nname: hang\ndescription: Waits on an endpoint that never answers\n---\n\n" +
		"### Step 1 — Wait\n- intent: Wait\n- action: http.get {\"url\": \"{{base}}/hang\"}\n- assert: status == 200\n- effect: read\n\n" +
		"### Step 2 — Never\n- intent: Never reached\n- action: http.get {\"url\": \"{{base}}/never\"}\n- effect: read\n"
	if err := os.WriteFile(filepath.Join(dir, "hang.skill.md"), []byte(skill), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "run", "--var", "base="+srv.URL, "hang.skill.md")
	cmd.Dir = dir
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-arrived:
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		t.Fatalf("the request never arrived:\n%s", out.String())
	}
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	err := cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 130 {
		t.Fatalf("exit %v, want status 130:\n%s", err, out.String())
	}
	data, err := os.ReadFile(filepath.Join(dir, ".reelier", "runs", "hang.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var rec runlog.Record
	if err := json.Unmarshal(bytes.TrimSpace(data), &rec); err != nil {
		t.Fatal(err)
	}
	if rec.Verdict != runlog.VerdictInterrupted || rec.Totals.Failed != 0 || rec.Steps[0].Outcome != runlog.Interrupted || rec.Steps[1].Skip != "interrupted" {
		t.Fatalf("record %+v", rec)
	}
}
