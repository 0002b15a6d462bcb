package push_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/reelier/reelier/ledger/push"
	"github.com/reelier/reelier/ledger/wire"
	"github.com/reelier/reelier/redact"
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
