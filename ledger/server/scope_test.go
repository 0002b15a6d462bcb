package server_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/reelier/reelier/ledger/pgstore"
	"github.com/reelier/reelier/ledger/server"
	"github.com/reelier/reelier/ledger/wire"
	"github.com/reelier/reelier/replay/runlog"
	"github.com/reelier/reelier/testkit/ledgertest"
)

// TestScopesAndRevocation: a read key opens every page and GET route
// but is refused (403, saying it cannot push) on both uploads; a push key
// does everything; revoking a key while the server runs makes the very
// next request 401, naming the revocation, on the API and on the pages.
func TestScopesAndRevocation(t *testing.T) {
	ctx := context.Background()
	l := newTestLedger(t, true, 0) // l.key is the push key "test"
	l.uploadSkill(t, "weekly")
	readKey, hash := server.NewKey()
	if err := l.store.AddKey(ctx, server.Key{Name: "viewer", Scope: server.ScopeRead, CreatedAt: fixedNow()}, hash); err != nil {
		t.Fatal(err)
	}
	rec := ledgertest.Record("weekly", 0, runlog.Passed)
	runBody := wire.EncodeRunUpload("weekly", rec)
	bearer := func(k string) map[string]string { return map[string]string{"Authorization": "Bearer " + k} }
	basic := func(k string) map[string]string {
		return map[string]string{"Authorization": "Basic " + base64("me:"+k)}
	}
	const readRefusal = `{"error":"API key \"viewer\" has scope \"read\": it can list and view receipts but cannot push; pushing needs a key created with '--scope push'"}`
	tests := []struct {
		name         string
		method, path string
		body         []byte
		header       map[string]string
		status       int
		want         string // the body, when it matters
	}{
		{"read key lists skills", "GET", wire.SkillsPath, nil, bearer(readKey), 200, ""},
		{"read key lists runs", "GET", wire.SkillsPath + "/weekly/runs", nil, bearer(readKey), 200, ""},
		{"read key lists versions", "GET", wire.SkillsPath + "/weekly/versions", nil, bearer(readKey), 200, ""},
		{"read key opens the index", "GET", "/", nil, basic(readKey), 200, ""},
		{"read key opens the skill file", "GET", "/skills/weekly/file", nil, basic(readKey), 200, ""},
		{"read key pushes a run", "POST", wire.RunsPath, runBody, bearer(readKey), 403, readRefusal},
		{"read key uploads a skill", "POST", wire.SkillsPath, []byte(`{"name":"x","skillMd":"y"}`), bearer(readKey), 403, readRefusal},
		{"push key pushes a run", "POST", wire.RunsPath, runBody, nil, 202, ""},
		{"push key reads", "GET", wire.SkillsPath, nil, nil, 200, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, body := l.do(t, tt.method, tt.path, tt.body, tt.header)
			if status != tt.status {
				t.Errorf("status %d, want %d: %s", status, tt.status, body)
			}
			if tt.want != "" && strings.TrimSpace(string(body)) != tt.want {
				t.Errorf("body %s\nwant %s", body, tt.want)
			}
		})
	}

	revokedAt := time.Date(2026, 7, 21, 8, 30, 0, 0, time.UTC)
	if _, err := l.store.RevokeKey(ctx, "test", revokedAt); err != nil {
		t.Fatal(err)
	}
	const revoked = `{"error":"API key \"test\" was revoked at 2026-07-21T08:30:00.000Z: ask the ledger's admin for a new key ('reelier ledger key create NAME')"}`
	status, body := l.pushRun(t, "weekly", ledgertest.Record("weekly", 1, runlog.Passed))
	if status != 401 || strings.TrimSpace(string(body)) != revoked {
		t.Errorf("push after revocation: %d %s\nwant 401 %s", status, body, revoked)
	}
	resp, page := l.request(t, "GET", "/", nil, basic(l.key))
	if resp.StatusCode != 401 || !strings.Contains(string(page), `API key &#34;test&#34; was revoked at 2026-07-21T08:30:00.000Z`) ||
		!strings.HasPrefix(resp.Header.Get("WWW-Authenticate"), "Basic") {
		t.Errorf("page after revocation: %d %q\n%s", resp.StatusCode, resp.Header.Get("WWW-Authenticate"), page)
	}
	if status, _ := l.do(t, "GET", wire.SkillsPath, nil, bearer(readKey)); status != 200 {
		t.Errorf("the read key stopped working when another key was revoked: %d", status)
	}
	if _, err := l.store.RevokeKey(ctx, "viewer", revokedAt); err != nil {
		t.Fatal(err)
	}
	// Every key revoked: the ledger stays closed, even to loopback.
	if status, body := l.do(t, "GET", wire.SkillsPath, nil, map[string]string{"Authorization": ""}); status != 401 {
		t.Errorf("every key revoked, no key sent: %d %s; want 401, never the open mode", status, body)
	}
	page1, _ := l.store.Runs(ctx, "weekly", server.Page{Limit: 10})
	if len(page1.Runs) != 1 {
		t.Errorf("%d runs stored, want the one the push key sent", len(page1.Runs))
	}
}

// TestRevocationAcrossInstances: two ledger servers on one store (as N
// instances behind a load balancer share one database): a key revoked
// through one process's store handle is refused by the other on its next
// request, with nothing cached in between. PostgreSQL when configured.
func TestRevocationAcrossInstances(t *testing.T) {
	ctx := context.Background()
	dsn := ledgertest.PostgresDSN(t)
	var servers []*httptest.Server
	var stores []server.Store
	for range 2 {
		s := openPG(t, dsn)
		stores = append(stores, s)
		srv := httptest.NewServer(server.NewServer(server.Config{Store: s, Now: fixedNow, Logf: t.Logf}))
		t.Cleanup(srv.Close)
		servers = append(servers, srv)
	}
	key, hash := server.NewKey()
	if err := stores[0].AddKey(ctx, server.Key{Name: "ci", Scope: server.ScopePush, CreatedAt: fixedNow()}, hash); err != nil {
		t.Fatal(err)
	}
	get := func(srv *httptest.Server) int {
		req, _ := http.NewRequest("GET", srv.URL+wire.SkillsPath, nil)
		req.Header.Set("Authorization", "Bearer "+key)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var eb wire.ErrorBody
		json.NewDecoder(resp.Body).Decode(&eb)
		resp.Body.Close()
		return resp.StatusCode
	}
	if a, b := get(servers[0]), get(servers[1]); a != 200 || b != 200 {
		t.Fatalf("before revocation: %d, %d", a, b)
	}
	if _, err := stores[0].RevokeKey(ctx, "ci", fixedNow()); err != nil {
		t.Fatal(err)
	}
	if b := get(servers[1]); b != 401 {
		t.Errorf("the other instance answered %d after the revocation, want 401 on its next request", b)
	}
}

// openPG opens a PostgreSQL store on dsn, closed when the test ends.
func openPG(t *testing.T, dsn string) server.Store {
	t.Helper()
	s, err := pgstore.Open(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}
