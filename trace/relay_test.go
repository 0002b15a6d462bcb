package trace_test

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/reelier/reelier/redact"
	"github.com/reelier/reelier/testkit/testutil"
	"github.com/reelier/reelier/trace"
)

// TestWriterRelayGolden: a result with what the recording proxy relayed
// during its call — the requests (params, result, error) redacted like the
// body, the notifications counted, the cancellation — written, and read
// back the same by the reader. A result without them is written as before.
func TestWriterRelayGolden(t *testing.T) {
	w, err := trace.Create(trace.WriterOptions{Dir: t.TempDir(), Name: "relay", Redactor: redact.NewRedactor(nil, nil), Now: fixedClock()})
	must(t, err)
	i, err := w.Call("ask", json.RawMessage(`{}`), "")
	must(t, err)
	relay := []trace.Exchange{
		{Method: "sampling/createMessage", Params: json.RawMessage(`{"messages":[{"role":"user","content":{"type":"text","text":"use ` + ghToken + `"}}],"maxTokens":5}`),
			OK: true, Result: json.RawMessage(`{"role":"assistant","model":"m","content":{"type":"text","text":"ok"}}`)},
		{Method: "roots/list", Params: json.RawMessage(`{}`), OK: false, Error: "refused; the token was " + ghToken},
	}
	must(t, w.ResultWith(i, true, 7, json.RawMessage(`{"content":[]}`), trace.ResultExtras{Relay: relay, Notified: map[string]int{"notifications/progress": 2}}))
	j, err := w.Call("block", json.RawMessage(`{}`), "")
	must(t, err)
	must(t, w.ResultWith(j, false, 1, json.RawMessage(`{"content":[],"isError":true}`), trace.ResultExtras{Cancelled: true}))
	k, err := w.Call("plain", json.RawMessage(`{}`), "")
	must(t, err)
	must(t, w.ResultWith(k, true, 1, json.RawMessage(`{"content":[]}`), trace.ResultExtras{}))
	must(t, w.Close())
	got, err := os.ReadFile(w.Path())
	must(t, err)
	if strings.Contains(string(got), ghToken) {
		t.Errorf("a relayed secret was kept:\n%s", got)
	}
	testutil.Golden(t).Assert(t, t.Name(), got)

	tr, err := trace.Load(w.Path())
	must(t, err)
	var results []*trace.Result
	for _, rec := range tr.Records {
		if r, ok := rec.(*trace.Result); ok {
			results = append(results, r)
		}
	}
	if len(results) != 3 {
		t.Fatalf("%d results read back", len(results))
	}
	r := results[0]
	if len(r.Relay) != 2 || r.Relay[0].Method != "sampling/createMessage" || !r.Relay[0].OK || r.Relay[1].OK || r.Relay[1].Error == "" || r.Notified["notifications/progress"] != 2 {
		t.Errorf("read back %+v", r)
	}
	if !results[1].Cancelled || results[1].OK {
		t.Errorf("the cancellation was not read back: %+v", results[1])
	}
	if results[2].Relay != nil || results[2].Notified != nil || results[2].Cancelled {
		t.Errorf("a plain result read back with relay fields: %+v", results[2])
	}
	if strings.Count(string(got), `"relay":[`) != 1 || strings.Count(string(got), `"cancelled":`) != 1 {
		t.Errorf("relay fields written where there were none:\n%s", got)
	}
}
