package server_test

import (
	"bytes"
	"context"
	b64 "encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/reelier/reelier/ledger/server"
	"github.com/reelier/reelier/ledger/sqlitestore"
	"github.com/reelier/reelier/ledger/wire"
	"github.com/reelier/reelier/replay/runlog"
	"github.com/reelier/reelier/testkit/ledgertest"
	"github.com/reelier/reelier/testkit/testutil"
)

// fixedNow is the clock of every test ledger.
func fixedNow() time.Time { return ledgertest.Base.Add(48 * time.Hour) }

// testLedger is a ledger on a fresh SQLite store, served on 127.0.0.1.
type testLedger struct {
	store server.Store
	srv   *httptest.Server
	// key is a valid API key when the ledger was made with one.
	key string
}

func newTestLedger(t *testing.T, withKey bool, maxBody int64) *testLedger {
	t.Helper()
	return newTestLedgerWith(t, withKey, maxBody, nil)
}

// newTestLedgerWith is newTestLedger with the server's Config changed by
// cfg (when not nil).
func newTestLedgerWith(t *testing.T, withKey bool, maxBody int64, cfg func(*server.Config)) *testLedger {
	t.Helper()
	store, err := sqlitestore.Open(context.Background(), filepath.Join(t.TempDir(), "ledger.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	l := &testLedger{store: store}
	if withKey {
		var hash []byte
		l.key, hash = server.NewKey()
		if err := store.AddKey(context.Background(), server.Key{Name: "test", Scope: server.ScopePush, CreatedAt: fixedNow()}, hash); err != nil {
			t.Fatal(err)
		}
	}
	c := server.Config{Store: store, MaxBody: maxBody, Now: fixedNow, Logf: t.Logf}
	if cfg != nil {
		cfg(&c)
	}
	l.srv = httptest.NewServer(server.NewServer(c))
	t.Cleanup(l.srv.Close)
	return l
}

// do sends a request and returns the status and body.
func (l *testLedger) do(t *testing.T, method, path string, body []byte, header map[string]string) (int, []byte) {
	t.Helper()
	resp, out := l.request(t, method, path, body, header)
	return resp.StatusCode, out
}

// request sends a request with a valid key (if the ledger has one) and
// JSON content type, changed by header: an empty value deletes a header,
// and "Host" sets the request's host.
func (l *testLedger) request(t *testing.T, method, path string, body []byte, header map[string]string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, l.srv.URL+path, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if l.key != "" {
		req.Header.Set("Authorization", "Bearer "+l.key)
	}
	for k, v := range header {
		switch {
		case k == "Host":
			req.Host = v
		case v == "":
			req.Header.Del(k)
		default:
			req.Header.Set(k, v)
		}
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(resp.Body)
	return resp, out
}

// uploadSkill uploads a skill and fails the test unless it is accepted.
func (l *testLedger) uploadSkill(t *testing.T, name string) {
	t.Helper()
	l.uploadSkillMd(t, name, "---\nname: "+name+"\n---\n")
}

// uploadSkillMd uploads a skill file and fails the test unless it is
// accepted.
func (l *testLedger) uploadSkillMd(t *testing.T, name, md string) {
	t.Helper()
	body, _ := json.Marshal(wire.SkillUpload{Name: name, SkillMd: md})
	if status, out := l.do(t, "POST", wire.SkillsPath, body, nil); status != http.StatusOK {
		t.Fatalf("skill upload: %d %s", status, out)
	}
}

// pushRun sends one record the way the push client does.
func (l *testLedger) pushRun(t *testing.T, skill string, record []byte) (int, []byte) {
	t.Helper()
	return l.do(t, "POST", wire.RunsPath, wire.EncodeRunUpload(skill, record),
		map[string]string{wire.IdempotencyHeader: wire.IdempotencyKey(skill, record)})
}

// pushSigned sends one record with its bundle the way the push client
// does.
func (l *testLedger) pushSigned(t *testing.T, skill string, record, bundle []byte) (int, []byte) {
	t.Helper()
	return l.do(t, "POST", wire.RunsPath, wire.EncodeSignedRunUpload(skill, record, bundle),
		map[string]string{wire.IdempotencyHeader: wire.IdempotencyKey(skill, record)})
}

// edit returns a valid record of "weekly" changed by fn.
func edit(fn func(m map[string]any)) []byte {
	var m map[string]any
	json.Unmarshal(ledgertest.Record("weekly", 0, runlog.Passed, runlog.Unchecked), &m)
	fn(m)
	b, _ := json.Marshal(m)
	return b
}

func step(m map[string]any, i int) map[string]any { return m["steps"].([]any)[i].(map[string]any) }

// TestRunUploadBadInput sends malformed, mistyped, inconsistent, oversize
// and misaddressed run uploads: each gets its documented status and a body
// that says what is wrong (the goldens), and none is stored or answered 500.
func TestRunUploadBadInput(t *testing.T) {
	l := newTestLedger(t, false, 8192)
	l.uploadSkill(t, "weekly")
	env := func(record string) []byte { return []byte(`{"skillName":"weekly","record":` + record + `}`) }
	tests := []struct {
		name   string
		body   []byte
		header map[string]string
		status int
	}{
		{"malformed_json", []byte(`{"skillName": "weekly", "record": {`), nil, 400},
		{"empty_body", []byte{}, nil, 400},
		{"null_body", []byte(`null`), nil, 400},
		{"array_body", []byte(`[1, 2]`), nil, 400},
		{"missing_record", []byte(`{"skillName":"weekly"}`), nil, 400},
		{"skill_name_number", []byte(`{"skillName":7,"record":{}}`), nil, 400},
		{"skill_name_control_char", []byte(`{"skillName":"we\u0007ek","record":` + string(ledgertest.Record("we\u0007ek", 0, runlog.Passed)) + `}`), nil, 400},
		{"record_string", env(`"a record"`), nil, 400},
		{"record_empty_object", env(`{}`), nil, 400},
		{"record_wrong_types", env(string(edit(func(m map[string]any) {
			m["passed"], m["startedAt"], m["totals"] = "yes", 1721311200, []any{1}
		}))), nil, 400},
		{"step_wrong_types", env(string(edit(func(m map[string]any) {
			s := step(m, 0)
			s["n"], s["outcome"], s["level"], s["ms"], s["failures"] = "1", "ok", 3, -5, "none"
			s["llm"] = map[string]any{"inputTokens": 1.5}
			step(m, 1)["why"] = "because"
		}))), nil, 400},
		{"llm_models_wrong_types", env(string(edit(func(m map[string]any) {
			step(m, 0)["llm"] = map[string]any{"inputTokens": 10, "outputTokens": 1, "models": []any{
				map[string]any{"model": 3, "inputTokens": -1, "outputTokens": 1, "costMicroUsd": 1.5}, "claude", map[string]any{"model": "a\nb", "inputTokens": 1, "outputTokens": 1}}}
		}))), nil, 400},
		{"bad_timestamp", env(string(edit(func(m map[string]any) { m["finishedAt"] = "yesterday" }))), nil, 400},
		{"skill_mismatch", env(string(edit(func(m map[string]any) { m["skill"] = "monthly" }))), nil, 400},
		{"passed_but_failed_step", env(string(edit(func(m map[string]any) {
			step(m, 0)["outcome"] = "failed"
			step(m, 0)["failures"] = []any{"status == 200 failed: got 503"}
			m["totals"].(map[string]any)["passed"] = 0
			m["totals"].(map[string]any)["failed"] = 1
		}))), nil, 400},
		{"totals_disagree", env(string(edit(func(m map[string]any) {
			m["totals"].(map[string]any)["passed"] = 2 // the unchecked step counted as passed
			m["totals"].(map[string]any)["unchecked"] = 0
		}))), nil, 400},
		{"healed_failed_step", env(string(edit(func(m map[string]any) {
			step(m, 1)["level"] = 1
			step(m, 1)["outcome"] = "failed"
			step(m, 1)["failures"] = []any{"boom"}
			m["passed"] = false
			m["totals"].(map[string]any)["unchecked"] = 0
			m["totals"].(map[string]any)["failed"] = 1
		}))), nil, 400},
		{"provenance_javascript_url", env(string(edit(func(m map[string]any) {
			m["provenance"] = map[string]any{"provider": "github-actions", "commit": "abc", "runUrl": "JavaScript:alert(document.cookie)"}
		}))), nil, 400},
		{"provenance_data_url", env(string(edit(func(m map[string]any) {
			m["provenance"] = map[string]any{"provider": "ci", "runUrl": "data:text/html,<script>alert(1)</script>"}
		}))), nil, 400},
		{"provenance_url_credentials", env(string(edit(func(m map[string]any) {
			m["provenance"] = map[string]any{"provider": "ci", "runUrl": "https://user:token@ci.example/run/1"}
		}))), nil, 400},
		{"provenance_relative_url", env(string(edit(func(m map[string]any) {
			m["provenance"] = map[string]any{"provider": "ci", "runUrl": "//evil.example/run"}
		}))), nil, 400},
		{"provenance_control_chars", env(string(edit(func(m map[string]any) {
			m["provenance"] = map[string]any{"provider": "github-actions\n", "ref": "refs/heads/a\u001b[2J", "repository": "acme/\u0085x"}
		}))), nil, 400},
		{"provenance_too_long", env(string(edit(func(m map[string]any) {
			m["provenance"] = map[string]any{"provider": strings.Repeat("p", 65), "repository": strings.Repeat("r", 513), "commit": strings.Repeat("c", 101),
				"ref": strings.Repeat("f", 1025), "runUrl": "https://ci.example/" + strings.Repeat("u", 2048)}
		}))), nil, 400},
		{"provenance_wrong_types", env(string(edit(func(m map[string]any) {
			m["provenance"] = map[string]any{"commit": 7, "ref": []any{"main"}}
		}))), nil, 400},
		{"provenance_not_object", env(string(edit(func(m map[string]any) { m["provenance"] = "github" }))), nil, 400},
		{"why_patch_not_strings", env(string(edit(func(m map[string]any) {
			step(m, 0)["why"] = map[string]any{"before": "- assert: x", "after": []any{1}}
		}))), nil, 400},
		{"passed_step_with_failures", env(string(edit(func(m map[string]any) { step(m, 0)["failures"] = []any{"odd"} }))), nil, 400},
		{"idempotency_key_too_long", env(string(ledgertest.Record("weekly", 0, runlog.Passed))), map[string]string{wire.IdempotencyHeader: strings.Repeat("k", 201)}, 400},
		{"oversize", env(string(edit(func(m map[string]any) { step(m, 1)["title"] = strings.Repeat("x", 9000) }))), nil, 413},
		{"unknown_skill", []byte(`{"skillName":"monthly","record":` + string(ledgertest.Record("monthly", 0, runlog.Passed)) + `}`), nil, 404},
		{"injection_skill_name", []byte(`{"skillName":"x' OR '1'='1","record":` + string(ledgertest.Record("x' OR '1'='1", 0, runlog.Passed)) + `}`), nil, 400},
		{"wrong_content_type", env(string(ledgertest.Record("weekly", 0, runlog.Passed))), map[string]string{"Content-Type": "text/plain"}, 415},
	}
	g := testutil.Golden(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, body := l.do(t, "POST", wire.RunsPath, tt.body, tt.header)
			if status != tt.status {
				t.Errorf("status %d, want %d; body %s", status, tt.status, body)
			}
			g.Assert(t, tt.name, body)
		})
	}
	page, err := l.store.Runs(context.Background(), "weekly", server.Page{Limit: 10})
	if err != nil || len(page.Runs) != 0 {
		t.Errorf("bad uploads stored %d runs (%v)", len(page.Runs), err)
	}
}

func base64(s string) string { return b64.StdEncoding.EncodeToString([]byte(s)) }
