package push_test

import (
	"context"
	"encoding/json"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/reelier/reelier/ledger/push"
	"github.com/reelier/reelier/ledger/wire"
	"github.com/reelier/reelier/redact"
	"github.com/reelier/reelier/replay/runlog"
)

// TestClientRedacts: what the client sends is redacted — a record written
// before failures were redacted, and the skill file — with the recorder's
// rules and REELIER_REDACT values; a record with nothing to blank goes
// byte for byte, and the idempotency key is the hash of what was sent.
func TestClientRedacts(t *testing.T) {
	password, envValue := "Hunter2-"+"push", "env-value-"+"Pu5hX9"
	red := redact.NewRedactor([]string{"PUSH_SECRET"}, func(n string) (string, bool) { return envValue, n == "PUSH_SECRET" })
	var mu sync.Mutex
	var bodies, keys []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		bodies, keys = append(bodies, string(b)), append(keys, r.Header.Get(wire.IdempotencyHeader))
		mu.Unlock()
		if r.URL.Path == wire.RunsPath {
			w.WriteHeader(http.StatusAccepted)
		}
		io.WriteString(w, "{}")
	}))
	t.Cleanup(srv.Close)
	c := &push.Client{Config: push.Config{BaseURL: srv.URL, Key: "rlk_test"}, Redactor: red}
	ctx := context.Background()
	if _, err := c.UploadSkill(ctx, "weekly", []byte("### Step 1 — Sign in as "+envValue+"\n")); err != nil {
		t.Fatal(err)
	}
	leaky := `{"skill":"weekly","steps":[{"n":1,"failures":["json.user == \"x\" failed: got {\"password\":\"` + password + `\"}"]}]}`
	clean := `{"skill": "weekly", "steps": []}`
	for _, rec := range []string{leaky, clean} {
		if out := c.PushRun(ctx, "weekly", []byte(rec)); out.Kind != push.Pushed {
			t.Fatalf("push: %+v", out)
		}
	}
	var skill wire.SkillUpload
	json.Unmarshal([]byte(bodies[0]), &skill)
	if want := "### Step 1 — Sign in as «redacted:PUSH_SECRET»\n"; skill.SkillMd != want {
		t.Errorf("skill sent as %q, want %q", skill.SkillMd, want)
	}
	var runs [2]wire.RunUpload
	for i := range runs {
		if err := json.Unmarshal([]byte(bodies[i+1]), &runs[i]); err != nil {
			t.Fatal(err)
		}
		if want := wire.IdempotencyKey("weekly", runs[i].Record); keys[i+1] != want {
			t.Errorf("run %d: idempotency key %s, want the hash of what was sent, %s", i, keys[i+1], want)
		}
	}
	if want := `{"skill":"weekly","steps":[{"n":1,"failures":["json.user == \"x\" failed: got {\"password\":\"«redacted»\"}"]}]}`; string(runs[0].Record) != want {
		t.Errorf("leaky record sent as %s\nwant %s", runs[0].Record, want)
	}
	if string(runs[1].Record) != clean {
		t.Errorf("clean record sent as %s, want it byte for byte", runs[1].Record)
	}
	for _, b := range bodies {
		if strings.Contains(b, password) || strings.Contains(b, envValue) {
			t.Errorf("a secret was sent: %s", b)
		}
	}
}

// TestSignedRunRedacted: a record sent with its bundle goes byte for byte
// with the bundle when there is nothing to blank; a record push must
// redact goes redacted and without its bundle (the signature binds the
// bytes that were signed, not the ones sent), and the outcome says why.
func TestSignedRunRedacted(t *testing.T) {
	password := "Hunter2-" + "signed"
	var mu sync.Mutex
	var bodies []wire.RunUpload
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var up wire.RunUpload
		json.NewDecoder(r.Body).Decode(&up)
		mu.Lock()
		bodies = append(bodies, up)
		mu.Unlock()
		w.WriteHeader(http.StatusAccepted)
		io.WriteString(w, `{"id":"run_x","signature":"verified","signer":"key K"}`)
	}))
	t.Cleanup(srv.Close)
	c := &push.Client{Config: push.Config{BaseURL: srv.URL}, Redactor: redact.NewRedactor(nil, nil)}
	bundle := []byte(`{"mediaType":"application/vnd.dev.sigstore.bundle.v0.3+json"}`)
	clean := `{"skill":"weekly","steps":[]}`
	leaky := `{"skill":"weekly","steps":[{"n":1,"failures":["got {\"password\":\"` + password + `\"}"]}]}`
	for i, tc := range []struct {
		record         string
		signed         bool
		unsigned       string
		recordSent     string
		bundleSentJSON string
	}{
		{clean, true, "", clean, string(bundle)},
		{leaky, false, "a secret in the record was blanked before sending", `{"skill":"weekly","steps":[{"n":1,"failures":["got {\"password\":\"«redacted»\"}"]}]}`, ""},
	} {
		out := c.PushSignedRun(context.Background(), "weekly", []byte(tc.record), bundle)
		if out.Kind != push.Pushed || out.Signed != tc.signed || !strings.HasPrefix(out.Unsigned, tc.unsigned) || out.Signature != "verified" {
			t.Errorf("record %d: outcome %+v", i, out)
		}
		if got := bodies[i]; string(got.Record) != tc.recordSent || string(got.Bundle) != tc.bundleSentJSON {
			t.Errorf("record %d sent as %s with bundle %s", i, got.Record, got.Bundle)
		}
	}
}

// TestBundlesFound: push finds each record's bundle by the name run --sign
// gives it; a record changed since it was signed is sent with the one
// bundle of its start time (the ledger then names the change); a record
// with no bundle, or with two bundles of its start time, goes unsigned; a
// bundle file that is not JSON rejects its record without sending it.
func TestBundlesFound(t *testing.T) {
	var mu sync.Mutex
	sent := map[string]string{} // record's startedAt → bundle sent
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == wire.RunsPath {
			var up wire.RunUpload
			json.NewDecoder(r.Body).Decode(&up)
			var rec struct{ StartedAt string }
			json.Unmarshal(up.Record, &rec)
			mu.Lock()
			sent[rec.StartedAt] = string(up.Bundle)
			mu.Unlock()
			w.WriteHeader(http.StatusAccepted)
		}
		io.WriteString(w, "{}")
	}))
	t.Cleanup(srv.Close)
	d := newWorkdir(t, "weekly")
	lines := []string{good(0), good(1), good(2), good(3), good(4)}
	d.appendLines(t, lines...)
	dir := filepath.Join(filepath.Dir(d.runs), "weekly.bundles")
	must(t, os.MkdirAll(dir, 0o755))
	start := func(i int) string {
		var rec struct{ StartedAt string }
		json.Unmarshal([]byte(lines[i]), &rec)
		return rec.StartedAt
	}
	bundle := func(i int, sha, body string) {
		must(t, os.WriteFile(filepath.Join(dir, runlog.BundleName(start(i), sha)), []byte(body), 0o644))
	}
	bundle(0, wire.RecordSHA256([]byte(lines[0])), `{"b":0}`) // its own
	bundle(1, strings.Repeat("a", 64), `{"b":1}`)             // the record changed since
	bundle(3, strings.Repeat("b", 64), `{"b":3}`)             // two of one start time
	bundle(3, strings.Repeat("c", 64), `{"b":3}`)
	bundle(4, wire.RecordSHA256([]byte(lines[4])), `not a bundle`) // not JSON
	opts := d.options(&push.Client{Config: push.Config{BaseURL: srv.URL}})
	opts.BundlesDir = dir
	res, err := push.Push(context.Background(), opts)
	if err != nil || res.Pushed != 4 || res.Rejected != 1 || !slices.Equal(res.RejectedIndexes, []int{4}) {
		t.Fatalf("%+v, %v", res, err)
	}
	want := map[string]string{start(0): `{"b":0}`, start(1): `{"b":1}`, start(2): "", start(3): ""}
	if !maps.Equal(sent, want) {
		t.Errorf("bundles sent %v, want %v", sent, want)
	}
	st := d.readState(t)
	if r := st["weekly"].Rejected; len(r) != 1 || !strings.Contains(r[0].Reason, "weekly.bundles/") || !strings.Contains(r[0].Reason, "is not JSON; the record was not sent") {
		t.Errorf("rejection logged %+v", r)
	}
}
