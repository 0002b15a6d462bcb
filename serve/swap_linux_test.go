//go:build linux

package serve

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"golang.org/x/sys/unix"
)

// swapAttemptsEnv sets how many calls TestWritesStayInsideUnderSwaps
// makes in all, shared out between the writing tools (default
// defaultSwapAttempts).
const swapAttemptsEnv = "REELIER_SWAP_ATTEMPTS"

const defaultSwapAttempts = 5000

// swapBurst is how many times .reelier is exchanged with the link as each
// call starts; an odd number every other burst leaves it either way
// round while the call goes on.
const swapBurst = 16

// TestWritesStayInsideUnderSwaps is the race of issue #17: real tool calls
// through the go-sdk client write under the working directory's .reelier
// folder (reelier_from_session a new skill under .reelier/skills each call,
// reelier_replay a run record appended to .reelier/runs/one.jsonl,
// reelier_push the push state .reelier/push-state.json and its lock), three
// callers at once, while a goroutine exchanges .reelier with a symbolic
// link to a directory outside (renameat2 with RENAME_EXCHANGE, so .reelier
// is always one or the other): a burst of exchanges as each call starts,
// and as each replay reaches its API, racing the calls' path checks and
// writes. A call may succeed (written inside) or be refused: its check met
// the link, or the path passed the check and the os.Root refused to follow
// the link at the write ("… by now: a symbolic link on its way changed"),
// or a lookup met .reelier as it changed. After each call the outside
// directory is looked at: anything that appeared there is an escape. There
// must be none, every tool must have had calls written inside, some calls
// must have been refused by the os.Root after the check (at the default
// count or more), and what the successful calls wrote must all be inside.
//
// REELIER_SWAP_ATTEMPTS sets the number of calls (default 5,000, shared
// out between the three tools; 300 with -short). Against the code before
// the writes went through the os.Root (270945c), 5,000 calls gave 70
// escapes: 54 skills or their temporary files, 3 run records, 13 push
// states or lock files.
func TestWritesStayInsideUnderSwaps(t *testing.T) {
	total := defaultSwapAttempts
	if v := os.Getenv(swapAttemptsEnv); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			t.Fatalf("%s=%q: want a positive number", swapAttemptsEnv, v)
		}
		total = n
	} else if testing.Short() {
		total = 300
	}
	// Each call asks for a burst of exchanges as it starts, and a replay
	// asks again from inside the API it calls, just before its record is
	// appended; a request while a burst is pending is dropped.
	tickets := make(chan struct{}, 1)
	nudge := func() {
		select {
		case tickets <- struct{}{}:
		default:
		}
	}
	apiSrv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		nudge()
		io.WriteString(w, `{"bookings":[{"id":"bk_1"}]}`)
	}))
	defer apiSrv.Close()
	api := apiSrv.URL
	url, key, _, _ := startLedger(t)
	history := t.TempDir()
	writeFiles(t, history, map[string]string{"-home-ann-hotel/s.jsonl": transcript("5a5a5a5a-0000-4000-8000-000000000000", listCall)})
	dir, outside := t.TempDir(), t.TempDir()
	writeFiles(t, dir, map[string]string{"one.skill.md": oneStepSkill, "pushed.skill.md": pushedSkill, ".reelier/skills/keep": ""})
	// The outside has the folders the tools write to, so a write that
	// followed the link would succeed there rather than fail.
	writeFiles(t, outside, map[string]string{"skills/keep": "", "runs/keep": ""})
	env := map[string]string{"REELIER_CLOUD_URL": url, "REELIER_CLOUD_KEY": key}
	cs := connect(t, Options{Dir: dir, HistoryDir: history, Getenv: func(k string) string { return env[k] }})

	replayArgs := func(skill string) string {
		return fmt.Sprintf(`{"skillPath": %q, "vars": {"base": %q}}`, skill, api)
	}
	if res := call(t, cs, "reelier_replay", replayArgs("pushed.skill.md")); res.IsError {
		t.Fatal(text(t, res))
	}
	var first PushOutput
	decode(t, call(t, cs, "reelier_push", `{"skillPath": "pushed.skill.md"}`), &first)
	if first.Outcome != OutcomeOK || first.Result.Pushed != 1 {
		t.Fatalf("the first push: %+v", first)
	}

	transcriptPath := filepath.Join(history, "-home-ann-hotel", "s.jsonl")
	tools := []*swapTool{
		{name: "reelier_from_session", watch: "skills", args: func(i int) string {
			return fmt.Sprintf(`{"transcriptPath": %q, "name": "s", "out": ".reelier/skills/s-%d.skill.md"}`, transcriptPath, i)
		}},
		{name: "reelier_replay", watch: "runs", args: func(int) string { return replayArgs("one.skill.md") }},
		{name: "reelier_push", watch: ".", args: func(int) string { return `{"skillPath": "pushed.skill.md"}` }},
	}

	link, real := filepath.Join(dir, ".swap"), filepath.Join(dir, ".reelier")
	if err := os.Symlink(outside, link); err != nil {
		t.Fatal(err)
	}
	var swaps atomic.Int64
	stopped := make(chan error)
	go func() {
		var err error
		bursts := 0
		for range tickets {
			n := swapBurst - bursts%2
			bursts++
			for ; n > 0 && err == nil; n-- {
				err = unix.Renameat2(unix.AT_FDCWD, link, unix.AT_FDCWD, real, unix.RENAME_EXCHANGE)
				swaps.Add(1)
			}
		}
		if err == nil && swaps.Load()%2 == 1 { // leave .reelier the folder
			err = unix.Renameat2(unix.AT_FDCWD, link, unix.AT_FDCWD, real, unix.RENAME_EXCHANGE)
		}
		if err != nil {
			err = fmt.Errorf("exchanging .reelier and the link: %w", err)
		}
		stopped <- err
	}()

	start := time.Now()
	var wg sync.WaitGroup
	for k, tool := range tools {
		wg.Go(func() {
			for i := k; i < total; i += len(tools) {
				nudge()
				tool.attempt(t, cs, outside, i)
			}
		})
	}
	wg.Wait()
	close(tickets)
	if err := <-stopped; err != nil {
		t.Fatal(err)
	}
	elapsed := time.Since(start)

	var attempts, escapes, late int
	for _, tool := range tools {
		attempts += tool.ok + tool.refused
		escapes += tool.escapes
		t.Logf("%-20s %5d calls: %5d written inside, %5d refused (%3d by the os.Root after the check, %3d by a lookup that met the exchange), %d escaped (%v a call)",
			tool.name, tool.ok+tool.refused, tool.ok, tool.refused, tool.late, tool.changing, tool.escapes,
			(tool.spent / time.Duration(max(1, tool.ok+tool.refused))).Round(time.Microsecond))
		if tool.escapes > 0 {
			t.Errorf("%s wrote outside the working directory in %d of %d calls, e.g. %s", tool.name, tool.escapes, tool.ok+tool.refused, tool.example)
		}
		if tool.ok == 0 {
			t.Errorf("%s: no call was written inside", tool.name)
		}
		late += tool.late
	}
	// Refusals after the check are rare (a few calls in a thousand for
	// replays, a few in a hundred for skills), so a short run is not asked
	// for them.
	if late == 0 && total >= defaultSwapAttempts {
		t.Errorf("no call was refused by the os.Root after the check: the race did not reach the writes")
	}
	t.Logf("%d calls, %d escapes, %d swaps of .reelier, in %v", attempts, escapes, swaps.Load(), elapsed.Round(time.Millisecond))

	// Afterwards the working directory holds what the successful calls
	// wrote, and nothing else (no temporary file): one skill each, one
	// record per replay (and the first), the state intact.
	entries, err := os.ReadDir(filepath.Join(real, "skills"))
	if err != nil || len(entries) != tools[0].ok+1 {
		t.Errorf(".reelier/skills holds %d entries (%v), want %d skills and keep", len(entries), err, tools[0].ok)
	}
	if n := strings.Count(mustRead(t, filepath.Join(real, "runs", "one.jsonl")), "\n"); n != tools[1].ok {
		t.Errorf(".reelier/runs/one.jsonl holds %d records, want %d", n, tools[1].ok)
	}
	var st struct {
		Ledgers map[string]map[string]map[string]any `json:"ledgers"`
	}
	err = json.Unmarshal([]byte(mustRead(t, filepath.Join(real, "push-state.json"))), &st)
	pushed := 0.0
	for _, ledger := range st.Ledgers {
		pushed, _ = ledger["pushed"]["pushed"].(float64)
	}
	if err != nil || len(st.Ledgers) != 1 || pushed != 1 {
		t.Errorf("push state %v (%v), want one ledger with pushed's cursor at 1", st, err)
	}
}

// raceErrors are the errors of a lookup that meets a folder while it is
// being exchanged with a link: a link where the lookup had just seen a
// folder (ENOTDIR with O_DIRECTORY|O_NOFOLLOW, ELOOP), or a folder where it
// had just seen a link (EINVAL from readlink). They refuse the call.
var raceErrors = []string{"not a directory", "too many levels of symbolic links", "invalid argument"}

// swapTool is one writing tool of the swap race and what became of its
// calls.
type swapTool struct {
	name string
	// watch is the folder of the outside directory its writes would land
	// in if they followed the link.
	watch string
	args  func(i int) string

	// late counts the refusals by the os.Root: the path had passed the
	// check. Before the writes went through the root, these were the
	// calls that could escape. changing counts the refusals of a lookup
	// that met .reelier as it changed (raceErrors).
	ok, refused, late, changing, escapes int
	example                              string
	spent                                time.Duration
}

// attempt makes call i and counts its outcome and whether anything
// appeared outside.
func (s *swapTool) attempt(t *testing.T, cs *mcp.ClientSession, outside string, i int) {
	start := time.Now()
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: s.name, Arguments: json.RawMessage(s.args(i))})
	s.spent += time.Since(start)
	if err != nil {
		t.Errorf("%s: protocol error %v", s.name, err)
		return
	}
	if res.IsError {
		s.refused++
		// Every refusal is the race's: the path passed the check and the
		// os.Root refused to follow the link (late), the check met the
		// link, or a lookup met .reelier changing under it.
		msg := res.Content[0].(*mcp.TextContent).Text
		switch {
		case strings.Contains(msg, "is outside the working directory (") && strings.Contains(msg, ") by now: a symbolic link on its way changed"):
			s.late++
		case strings.Contains(msg, "is outside the working directory ("), strings.Contains(msg, "cannot be resolved"):
		case slices.ContainsFunc(raceErrors, func(e string) bool { return strings.Contains(msg, e) }):
			s.changing++
		default:
			t.Errorf("%s call %d was refused for another reason: %s", s.name, i, msg)
		}
	} else {
		s.ok++
	}
	if found := s.drain(t, outside); found != "" {
		s.escapes++
		s.example = found
	}
}

// drain removes what the tool's writes left in its folder outside (all
// but what was seeded there: the keep files, and at the top the folders)
// and names one of them.
func (s *swapTool) drain(t *testing.T, outside string) string {
	dir := filepath.Join(outside, s.watch)
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Errorf("reading %s: %v", dir, err)
		return ""
	}
	found := ""
	for _, e := range entries {
		if e.Name() == "keep" || s.watch == "." && (e.Name() == "skills" || e.Name() == "runs") {
			continue
		}
		found = filepath.Join(s.watch, e.Name())
		if err := os.RemoveAll(filepath.Join(dir, e.Name())); err != nil {
			t.Error(err)
		}
	}
	return found
}
