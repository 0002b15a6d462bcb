package server_test

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"testing"

	"github.com/reelier/reelier/ledger/server"
	"github.com/reelier/reelier/ledger/sqlitestore"
	"github.com/reelier/reelier/ledger/wire"
	"github.com/reelier/reelier/replay/runlog"
	"github.com/reelier/reelier/testkit/ledgertest"
)

// FuzzRunUpload throws arbitrary bodies at POST /api/v1/runs: the answer
// is always one of the documented statuses, never a 500 or a panic.
func FuzzRunUpload(f *testing.F) {
	store, err := sqlitestore.Open(context.Background(), filepath.Join(f.TempDir(), "ledger.db"))
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { store.Close() })
	if _, err := store.PutSkill(context.Background(), server.Skill{Name: "weekly", SkillMd: "x"}); err != nil {
		f.Fatal(err)
	}
	srv := server.NewServer(server.Config{Store: store, MaxBody: 8192, Logf: f.Logf})
	f.Add(wire.EncodeRunUpload("weekly", ledgertest.Record("weekly", 0, runlog.Passed, runlog.Failed, runlog.Skipped)))
	f.Add(wire.EncodeRunUpload("weekly", []byte(legacyRecord)))
	f.Add(wire.EncodeRunUpload("nope", ledgertest.Record("nope", 0, runlog.Unchecked)))
	f.Add([]byte(`{"skillName":"weekly","record":{"steps":[{"n":1e400,"llm":{"inputTokens":-1}}],"totals":{"unchecked":null}}}`))
	f.Add([]byte(`{"skillName":"weekly","record":{"skill":"weekly","steps":[null,[],"x"],"totals":{"skipped":1}}}`))
	f.Add([]byte(`{"skillName":"weekly","record":[]}`))
	f.Add([]byte("\xff\xfe{"))
	f.Add(wire.EncodeRunUpload("weekly", withProvenance(ledgertest.Record("weekly", 1, runlog.Passed), hostileProvenance)))
	f.Add([]byte(`{"skillName":"weekly","record":{"skill":"weekly","provenance":{"provider":"ci","runUrl":"http://[::1"},"steps":[],"totals":{}}}`))
	f.Add([]byte(`{"skillName":"weekly","record":{"skill":"weekly","steps":[{"n":1,"why":{"before":["a"],"after":[null]}}],"totals":{}}}`))
	f.Add([]byte(`{"skillName":"weekly","record":{"skill":"weekly","startedAt":"2026-07-18T14:00:00.000Z","finishedAt":"2026-07-18T14:00:00.000Z","passed":false,"verdict":"failed","steps":[{"n":1,"title":"a","level":0,"outcome":"skipped","ms":0,"skip":"tool drift"}],"totals":{"steps":1,"passed":0,"unchecked":0,"skipped":1,"failed":0,"ms":0,"llmInputTokens":0,"llmOutputTokens":0},"toolDrift":{"ignored":false,"tools":[{"server":"calc","tool":"add","changes":["x"]}]},"servers":[{"name":"calc","command":"npx","mock":true}]}}`))
	f.Add([]byte(`{"skillName":"weekly","record":{"skill":"weekly","steps":[{"n":1,"outcome":"failed","kind":"gate"}],"verdict":"config","servers":[{"name":7},{"host":"\u0007"},null],"toolDrift":{"tools":[{}]},"totals":{}}}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		req := httptest.NewRequest("POST", wire.RunsPath, bytes.NewReader(body))
		req.RemoteAddr, req.Host = "127.0.0.1:40000", "127.0.0.1"
		req.Header.Set("Content-Type", "application/json")
		rec := httptest.NewRecorder()
		srv.ServeHTTP(rec, req)
		switch rec.Code {
		case http.StatusAccepted, http.StatusBadRequest, http.StatusNotFound, http.StatusRequestEntityTooLarge:
		default:
			t.Fatalf("status %d for %q: %s", rec.Code, body, rec.Body)
		}
	})
}
