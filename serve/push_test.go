package serve

import (
	"context"
	"encoding/json"
	pushstate "github.com/reelier/reelier/ledger/push"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/reelier/reelier/ledger/sqlitestore"
	"github.com/reelier/reelier/testkit/ledgertest"
)

// startLedger runs the receipt ledger on 127.0.0.1 with one API key and
// counts the connections it accepts.
func startLedger(t *testing.T) (url, key string, store *sqlitestore.Store, conns *atomic.Int64) {
	return ledgertest.StartSQLite(t)
}

// TestPush: the three outcomes against the real receipt ledger on
// loopback. Without configuration the push is inert ("skipped-no-key",
// no connection, no state); a refused key or an unreachable ledger is
// "failed" (an isError result) with the cursor left in place; a dry run
// needs no configuration; the cursor carries over between calls.
func TestPush(t *testing.T) {
	api, _ := fakeAPI(t)
	url, key, store, conns := startLedger(t)
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"bookings.skill.md": bookingsSkill, "check.skill.md": checkSkill})
	env := map[string]string{}
	cs := connect(t, Options{Dir: dir, Getenv: func(k string) string { return env[k] }})
	replay := func() {
		t.Helper()
		if res := call(t, cs, "reelier_replay", `{"skillPath": "bookings.skill.md", "vars": {"base": "`+api+`"}}`); res.IsError {
			t.Fatal(text(t, res))
		}
	}
	push := func(args string) (PushOutput, bool) {
		t.Helper()
		res := call(t, cs, "reelier_push", args)
		// Every outcome, the failed one (an isError result) included, is
		// the same JSON in the text as in the structured content.
		var out, fromText PushOutput
		data, _ := json.Marshal(res.StructuredContent)
		if err := json.Unmarshal(data, &out); err != nil {
			t.Fatalf("structured content %s: %v", data, err)
		}
		if err := json.Unmarshal([]byte(text(t, res)), &fromText); err != nil || !reflect.DeepEqual(out, fromText) {
			t.Errorf("text %s does not match the structured content %s", text(t, res), data)
		}
		return out, res.IsError
	}
	statePath := filepath.Join(dir, ".reelier", "push-state.json")

	replay()
	replay()

	// No configuration: inert, naming only what is missing.
	out, isErr := push(`{"skillPath": "bookings.skill.md"}`)
	if isErr || out.Outcome != OutcomeSkippedNoKey || !strings.Contains(out.Message, "REELIER_CLOUD_URL and REELIER_CLOUD_KEY are not set") {
		t.Errorf("no configuration: %+v", out)
	}
	env["REELIER_CLOUD_URL"] = url
	out, isErr = push(`{"skillPath": "bookings.skill.md"}`)
	if isErr || out.Outcome != OutcomeSkippedNoKey || !strings.Contains(out.Message, "REELIER_CLOUD_KEY is not set") {
		t.Errorf("no key: %+v", out)
	}
	if _, err := os.Stat(statePath); !os.IsNotExist(err) || conns.Load() != 0 {
		t.Errorf("an inert push touched state (%v) or the network (%d connections)", err, conns.Load())
	}

	// A dry run needs no key and sends nothing.
	delete(env, "REELIER_CLOUD_URL")
	out, isErr = push(`{"skillPath": "bookings.skill.md", "dryRun": true}`)
	if isErr || out.Outcome != OutcomeOK || out.Plan == nil || out.Plan.Count != 2 || !out.Plan.UploadSkill || conns.Load() != 0 {
		t.Errorf("dry run: %+v (%d connections)", out, conns.Load())
	}

	// A key the ledger does not know: failed, the cursor stays, and the
	// key's value appears nowhere.
	env["REELIER_CLOUD_URL"] = url
	env["REELIER_CLOUD_KEY"] = "rk_not-a-real-key-of-this-ledger"
	out, isErr = push(`{"skillPath": "bookings.skill.md"}`)
	if !isErr || out.Outcome != OutcomeFailed || !strings.Contains(out.Message, "401") || !strings.Contains(out.Message, "REELIER_CLOUD_KEY") ||
		strings.Contains(out.Message, env["REELIER_CLOUD_KEY"]) || out.Result == nil || out.Result.CursorAfter != 0 {
		t.Errorf("refused key: %+v", out)
	}

	// The real key: both records pushed in order, the skill uploaded.
	env["REELIER_CLOUD_KEY"] = key
	out, isErr = push(`{"skillPath": "bookings.skill.md"}`)
	if isErr || out.Outcome != OutcomeOK || out.Result.Pushed != 2 || out.Result.SkillUpload != "uploaded" ||
		out.Result.CursorBefore != 0 || out.Result.CursorAfter != 2 || len(out.Result.Each) != 2 || out.Result.Each[1].Outcome != "pushed" {
		t.Errorf("push: %+v", out)
	}
	if s, err := store.Skill(context.Background(), "bookings"); err != nil || s.Runs != 2 {
		t.Errorf("the ledger holds %+v (%v), want 2 runs of bookings", s, err)
	}
	if strings.Contains(mustRead(t, statePath), key) {
		t.Error("the key was written to the state file")
	}

	// The cursor carries over: nothing new, then one new record.
	out, _ = push(`{"skillPath": "bookings.skill.md"}`)
	if out.Outcome != OutcomeOK || out.Result.Pushed != 0 || out.Result.SkillUpload != "already-uploaded" {
		t.Errorf("nothing new: %+v", out)
	}
	replay()
	out, _ = push(`{"skillPath": "bookings.skill.md"}`)
	if out.Outcome != OutcomeOK || out.Result.Pushed != 1 || out.Result.CursorBefore != 2 || out.Result.CursorAfter != 3 {
		t.Errorf("one new record: %+v", out)
	}

	// all: every record again; the ledger recognises them.
	out, _ = push(`{"skillPath": "bookings.skill.md", "all": true}`)
	if out.Outcome != OutcomeOK || out.Result.Pushed != 3 || out.Result.Duplicates != 3 {
		t.Errorf("all: %+v", out)
	}

	// A skill never replayed has no history: failed, nothing sent.
	before := conns.Load()
	out, isErr = push(`{"skillPath": "check.skill.md"}`)
	if !isErr || out.Outcome != OutcomeFailed || !strings.Contains(out.Message, `no run history for skill "checker"`) || conns.Load() != before {
		t.Errorf("no history: %+v", out)
	}

	// A ledger that is down: failed, nothing sent. The state keeps a
	// cursor per ledger, so for this one (never seen) the skill upload
	// goes first and fails; the first ledger's cursor is kept.
	replay()
	first := env["REELIER_CLOUD_URL"]
	down := httptest.NewServer(http.NotFoundHandler())
	down.Close()
	env["REELIER_CLOUD_URL"] = down.URL
	out, isErr = push(`{"skillPath": "bookings.skill.md"}`)
	if !isErr || out.Outcome != OutcomeFailed || out.Result == nil || out.Result.CursorAfter != 0 || !strings.Contains(out.Message, "no record was sent") {
		t.Errorf("ledger down: %+v", out)
	}
	if st, err := pushstate.ReadState(statePath, strings.TrimRight(first, "/")); err != nil || st["bookings"] == nil || st["bookings"].Pushed != 3 {
		t.Errorf("the first ledger's cursor after a push to another: %+v, %v", st, err)
	}
}

func mustRead(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}
