package suite_test

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/reelier/reelier/replay/suite"
)

// signalWriter collects what is written and closes seen the first time
// it holds want.
type signalWriter struct {
	mu   sync.Mutex
	b    bytes.Buffer
	want string
	seen chan struct{}
	once sync.Once
}

func (w *signalWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	n, err := w.b.Write(p)
	if strings.Contains(w.b.String(), w.want) {
		w.once.Do(func() { close(w.seen) })
	}
	return n, err
}

func (w *signalWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.String()
}

// TestCallWaitNotice: a call that has not answered after NoticeAfter gets
// a "still waiting" line on stderr naming the step and the flag that
// bounds it; the server answers only once that line is out, so the test
// waits on the line, not on a clock.
func TestCallWaitNotice(t *testing.T) {
	stderr := &signalWriter{want: "still waiting for step 1 (Slow read) to answer", seen: make(chan struct{})}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-stderr.seen:
		case <-r.Context().Done():
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"ok": true}`))
	}))
	defer srv.Close()
	dir := t.TempDir()
	skill := filepath.Join(dir, "slow.skill.md")
	src := "---\nname: slow\ndescription: one slow read\n---\n\n## Steps\n\n### Step 1 — Slow read\n- intent: read slowly\n" +
		"- action: http.get {\"url\": \"" + srv.URL + "/x\"}\n- assert: json.ok == true\n- effect: read\n"
	if err := os.WriteFile(skill, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	var stdout bytes.Buffer
	err := suite.Run(context.Background(), suite.Options{Paths: []string{skill}, RunsDir: filepath.Join(dir, "runs"), Jobs: 1,
		Heal: suite.HealOptions{Mode: suite.HealWrite}, Timeout: time.Minute, NoticeAfter: 50 * time.Millisecond, Stdout: &stdout, Stderr: stderr, Getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatalf("run: %v\n%s\n%s", err, stdout.String(), stderr.String())
	}
	if !strings.Contains(stderr.String(), "; --timeout 1m0s bounds it)") || !strings.Contains(stdout.String(), "PASS") {
		t.Errorf("stderr %q\nstdout %q", stderr.String(), stdout.String())
	}
}
