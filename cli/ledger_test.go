package cli

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/reelier/reelier/replay/runlog"
	"github.com/reelier/reelier/testkit/ledgertest"
)

// ledgerProcess is a `reelier ledger serve` child process.
type ledgerProcess struct {
	cmd  *exec.Cmd
	url  string
	out  *bufio.Reader
	line string
}

var listening = regexp.MustCompile(`^reelier ledger: listening on (http://\S+) `)

// startLedger starts `reelier ledger serve` on a free loopback port and
// returns once it has printed the address it listens on. The process is
// stopped with SIGINT when the test ends, and must stop cleanly.
func startLedger(t *testing.T, db string, flags ...string) *ledgerProcess {
	t.Helper()
	cmd := exec.Command("reelier", append([]string{"ledger", "serve", "--addr", "127.0.0.1:0", "--db", db}, flags...)...)
	cmd.Stderr = &bytes.Buffer{}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &ledgerProcess{cmd: cmd, out: bufio.NewReader(stdout)}
	line, err := p.out.ReadString('\n')
	m := listening.FindStringSubmatch(line)
	if err != nil || m == nil {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("ledger did not start: %q %v; stderr: %s", line, err, cmd.Stderr)
	}
	p.url, p.line = m[1], line
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGINT)
		rest, _ := io.ReadAll(p.out)
		if err := cmd.Wait(); err != nil || !strings.Contains(string(rest), "reelier ledger: stopped") {
			t.Errorf("ledger at %s did not stop cleanly: %v; stdout %q; stderr: %s", p.url, err, rest, cmd.Stderr)
		}
	})
	return p
}

// reelierCmd prepares a reelier child process in dir with extra
// environment.
func reelierCmd(dir string, env []string, args ...string) *exec.Cmd {
	cmd := exec.Command("reelier", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	return cmd
}

// pushDir makes a working directory holding the skill "shared" and a run
// history of the given records followed by one the ledger rejects.
func pushDir(t *testing.T, records []int) string {
	t.Helper()
	dir := t.TempDir()
	var hist bytes.Buffer
	for _, i := range records {
		hist.Write(ledgertest.Record("shared", i, runlog.Passed, runlog.Unchecked))
		hist.WriteByte('\n')
	}
	hist.WriteString(`{"skill":"shared","note":"not a run record"}` + "\n")
	ledgerMust(t, os.MkdirAll(filepath.Join(dir, ".reelier", "runs"), 0o755))
	ledgerMust(t, os.WriteFile(filepath.Join(dir, ".reelier", "runs", "shared.jsonl"), hist.Bytes(), 0o644))
	ledgerMust(t, os.WriteFile(filepath.Join(dir, "shared.skill.md"), []byte("---\nname: shared\ndescription: Shared\n---\n\n### Step 1 — List\n- intent: List\n- action: http.get {\"url\": \"http://127.0.0.1:1/\"}\n- assert: status == 200\n- effect: read\n"), 0o644))
	return dir
}

// TestLedgerProcesses runs two `reelier ledger serve` processes on one
// database, for each store, and six concurrent `reelier push` processes
// against them: four push their own records, two push the same records to
// different ledgers at once, and each history ends in a record the ledger
// rejects. A `push --all` then delivers one history again. Both ledgers
// read back every valid record exactly once: none lost, none duplicated.
func TestLedgerProcesses(t *testing.T) {
	for _, kind := range []struct {
		name string
		db   func(t *testing.T) string
	}{
		{"sqlite", func(t *testing.T) string { return "sqlite:" + filepath.Join(t.TempDir(), "ledger.db") }},
		{"postgres", func(t *testing.T) string { return ledgertest.PostgresDSN(t) }},
	} {
		t.Run(kind.name, func(t *testing.T) { ledgerProcesses(t, kind.db(t)) })
	}
}

func ledgerProcesses(t *testing.T, db string) {
	out, err := reelierCmd(t.TempDir(), nil, "ledger", "key", "create", "ci", "--db", db).Output()
	if err != nil {
		t.Fatalf("key create: %v", err)
	}
	key := strings.TrimSpace(string(out))
	ledgers := []*ledgerProcess{startLedger(t, db), startLedger(t, db)}

	const perPusher = 30
	var want []string
	type pusher struct {
		dir    string
		ledger *ledgerProcess
	}
	var pushers []pusher
	for w := range 4 {
		var recs []int
		for j := range perPusher {
			recs = append(recs, w*perPusher+j)
			want = append(want, string(ledgertest.Record("shared", w*perPusher+j, runlog.Passed, runlog.Unchecked)))
		}
		pushers = append(pushers, pusher{pushDir(t, recs), ledgers[w%2]})
	}
	var shared []int
	for j := range perPusher {
		shared = append(shared, 1000+j)
		want = append(want, string(ledgertest.Record("shared", 1000+j, runlog.Passed, runlog.Unchecked)))
	}
	pushers = append(pushers, pusher{pushDir(t, shared), ledgers[0]}, pusher{pushDir(t, shared), ledgers[1]})

	env := func(p pusher) []string {
		return []string{"REELIER_CLOUD_URL=" + p.ledger.url, "REELIER_CLOUD_KEY=" + key}
	}
	cmds := make([]*exec.Cmd, len(pushers))
	outs := make([]*bytes.Buffer, len(pushers))
	for i, p := range pushers {
		outs[i] = &bytes.Buffer{}
		cmds[i] = reelierCmd(p.dir, env(p), "push", "shared.skill.md")
		cmds[i].Stdout, cmds[i].Stderr = outs[i], outs[i]
		ledgerMust(t, cmds[i].Start())
	}
	summary := regexp.MustCompile(fmt.Sprintf(`shared: skill uploaded; %d pushed(?: \((\d+) already on the ledger\))?, 1 rejected; cursor 0 -> %d `, perPusher, perPusher+1))
	dups := 0
	for i, c := range cmds {
		// Each history holds one record the ledger rejects: the push goes
		// to the end and exits 1, naming it.
		if err := c.Wait(); processExit(err) != 1 || !strings.Contains(outs[i].String(), "reelier push: the ledger rejected 1 record(s) of shared permanently (record 30)") {
			t.Errorf("pusher %d: %v, want exit status 1 naming record 30\n%s", i, err, outs[i])
		}
		m := summary.FindStringSubmatch(outs[i].String())
		if m == nil {
			t.Fatalf("pusher %d did not push all its records:\n%s", i, outs[i])
		}
		if n, _ := strconv.Atoi(m[1]); n > 0 && i < 4 {
			t.Errorf("pusher %d pushed only its own records, yet %d were duplicates", i, n)
		} else {
			dups += n
		}
	}
	if dups != perPusher {
		t.Errorf("the two pushers of the same records got %d duplicate answers between them, want %d: each record stored by exactly one", dups, perPusher)
	}
	again, err := reelierCmd(pushers[1].dir, env(pushers[0]), "push", "--all", "shared.skill.md").CombinedOutput()
	if processExit(err) != 1 || !strings.Contains(string(again), fmt.Sprintf("%d pushed (%d already on the ledger), 1 rejected", perPusher, perPusher)) {
		t.Errorf("push --all to the other ledger: %v\n%s", err, again)
	}
	slices.Sort(want)
	for i, l := range ledgers {
		got := readRuns(t, l.url, key)
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Errorf("ledger %d reads back %d runs; want the %d valid records exactly once", i, len(got), len(want))
		}
	}
}

// readRuns pages through every run of "shared" and returns the records.
func readRuns(t *testing.T, base, key string) []string {
	t.Helper()
	var out []string
	before := ""
	for pages := 0; ; pages++ {
		req, _ := http.NewRequest("GET", base+"/api/v1/skills/shared/runs?limit=40"+before, nil)
		req.Header.Set("Authorization", "Bearer "+key)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var page struct {
			Runs []struct {
				Record json.RawMessage `json:"record"`
			} `json:"runs"`
			Next string `json:"next"`
		}
		err = json.NewDecoder(resp.Body).Decode(&page)
		resp.Body.Close()
		if err != nil || resp.StatusCode != 200 || pages > 20 {
			t.Fatalf("reading runs: %d %v", resp.StatusCode, err)
		}
		for _, r := range page.Runs {
			out = append(out, string(r.Record))
		}
		if page.Next == "" {
			return out
		}
		before = "&before=" + page.Next
	}
}

func ledgerMust(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// processExit is the exit status a command's Wait or Run error says (0
// for nil, -1 for an error that is not an exit).
func processExit(err error) int {
	var ee *exec.ExitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &ee):
		return ee.ExitCode()
	}
	return -1
}
