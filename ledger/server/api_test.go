package server_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/reelier/reelier/ledger/wire"
	"github.com/reelier/reelier/replay/runlog"
	"github.com/reelier/reelier/testkit/ledgertest"
	"github.com/reelier/reelier/testkit/testutil"
)

// TestSkillUploadBadInput covers the skill endpoint's refusals.
func TestSkillUploadBadInput(t *testing.T) {
	l := newTestLedger(t, false, 256)
	tests := []struct {
		name   string
		body   string
		status int
	}{
		{"malformed_json", `{"name":`, 400},
		{"wrong_types", `{"name": ["a"], "skillMd": 3}`, 400},
		{"missing_fields", `{}`, 400},
		{"empty_name", `{"name": "", "skillMd": "x"}`, 400},
		{"long_name", `{"name": "` + strings.Repeat("n", 65) + `", "skillMd": "x"}`, 400},
		{"oversize", `{"name": "big", "skillMd": "` + strings.Repeat("x", 300) + `"}`, 413},
	}
	g := testutil.Golden(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, body := l.do(t, "POST", wire.SkillsPath, []byte(tt.body), nil)
			if status != tt.status {
				t.Errorf("status %d, want %d: %s", status, tt.status, body)
			}
			g.Assert(t, tt.name, body)
		})
	}
}

// TestAuth: with a key stored, a missing or unknown key is 401 on every
// API and page route, a Bearer or Basic key is let in, and the health check
// needs none. Without keys, only loopback hosts are answered.
func TestAuth(t *testing.T) {
	keyed := newTestLedger(t, true, 0)
	keyed.uploadSkill(t, "weekly")
	open := newTestLedger(t, false, 0)
	open.uploadSkill(t, "weekly")
	rec := ledgertest.Record("weekly", 0, runlog.Passed)
	runBody := wire.EncodeRunUpload("weekly", rec)
	basic := "Basic " + base64("anyone:"+keyed.key)
	tests := []struct {
		name           string
		l              *testLedger
		method, path   string
		body           []byte
		header         map[string]string
		status         int
		wantAuthHeader string
	}{
		{"missing key run", keyed, "POST", wire.RunsPath, runBody, map[string]string{"Authorization": ""}, 401, "Bearer"},
		{"unknown key run", keyed, "POST", wire.RunsPath, runBody, map[string]string{"Authorization": "Bearer rlk_wrong"}, 401, "Bearer"},
		{"unknown key skill", keyed, "POST", wire.SkillsPath, []byte(`{"name":"x","skillMd":"y"}`), map[string]string{"Authorization": "Bearer rlk_wrong"}, 401, "Bearer"},
		{"missing key list", keyed, "GET", wire.SkillsPath, nil, map[string]string{"Authorization": ""}, 401, "Bearer"},
		{"missing key page", keyed, "GET", "/", nil, map[string]string{"Authorization": ""}, 401, "Basic"},
		{"wrong basic page", keyed, "GET", "/skills/weekly", nil, map[string]string{"Authorization": "Basic " + base64("me:nope")}, 401, "Basic"},
		{"bearer run", keyed, "POST", wire.RunsPath, runBody, nil, 202, ""},
		{"basic page", keyed, "GET", "/skills/weekly", nil, map[string]string{"Authorization": basic}, 200, ""},
		{"health without key", keyed, "GET", "/healthz", nil, map[string]string{"Authorization": ""}, 200, ""},
		{"open loopback", open, "GET", wire.SkillsPath, nil, nil, 200, ""},
		{"open rebinding host", open, "GET", wire.SkillsPath, nil, map[string]string{"Host": "attacker.example"}, 403, ""},
		{"open localhost host", open, "GET", "/", nil, map[string]string{"Host": "localhost"}, 200, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, body := tt.l.request(t, tt.method, tt.path, tt.body, tt.header)
			if resp.StatusCode != tt.status {
				t.Errorf("status %d, want %d: %s", resp.StatusCode, tt.status, body)
			}
			if got := resp.Header.Get("WWW-Authenticate"); !strings.HasPrefix(got, tt.wantAuthHeader) || (tt.wantAuthHeader == "") != (got == "") {
				t.Errorf("WWW-Authenticate %q, want a %q challenge", got, tt.wantAuthHeader)
			}
			if strings.Contains(string(body), keyed.key) {
				t.Errorf("the answer shows the key: %s", body)
			}
		})
	}
}

// TestDatabaseDown: with the store gone every route answers 503 with a
// Retry-After and a message, never 500; the push client reads 503 as
// transient.
func TestDatabaseDown(t *testing.T) {
	l := newTestLedger(t, false, 0)
	l.uploadSkill(t, "weekly")
	l.store.Close()
	rec := ledgertest.Record("weekly", 0, runlog.Passed)
	g := testutil.Golden(t)
	for _, tt := range []struct {
		method, path string
		body         []byte
	}{
		{"POST", wire.RunsPath, wire.EncodeRunUpload("weekly", rec)},
		{"POST", wire.SkillsPath, []byte(`{"name":"x","skillMd":"y"}`)},
		{"GET", wire.SkillsPath, nil},
		{"GET", wire.SkillsPath + "/weekly/runs", nil},
		{"GET", "/healthz", nil},
	} {
		status, body := l.do(t, tt.method, tt.path, tt.body, nil)
		if status != http.StatusServiceUnavailable {
			t.Errorf("%s %s: %d %s, want 503", tt.method, tt.path, status, body)
		}
		g.Assert(t, strings.NewReplacer("/", "_", " ", "_").Replace(tt.method+tt.path), body)
	}
	if status, body := l.do(t, "GET", "/skills/weekly", nil, nil); status != http.StatusServiceUnavailable || !strings.Contains(string(body), "unavailable") {
		t.Errorf("page: %d %s", status, body)
	}
}

// TestReadAPI pages through a skill's runs over HTTP and lists skills.
func TestReadAPI(t *testing.T) {
	l := newTestLedger(t, false, 0)
	l.uploadSkill(t, "weekly")
	var want []string
	for i := range 5 {
		status, body := l.pushRun(t, "weekly", ledgertest.Record("weekly", i, runlog.Passed))
		var a wire.Accepted
		if json.Unmarshal(body, &a); status != 202 || a.ID == "" {
			t.Fatalf("push %d: %d %s", i, status, body)
		}
		want = append([]string{a.ID}, want...)
	}
	var got []string
	path := wire.SkillsPath + "/weekly/runs?limit=2"
	for pages := 0; path != ""; pages++ {
		status, body := l.do(t, "GET", path, nil, nil)
		var page struct {
			Runs []struct {
				ID     string          `json:"id"`
				Record json.RawMessage `json:"record"`
			} `json:"runs"`
			Next string `json:"next"`
		}
		if err := json.Unmarshal(body, &page); status != 200 || err != nil || pages > 3 {
			t.Fatalf("GET %s: %d %s %v", path, status, body, err)
		}
		for _, r := range page.Runs {
			got = append(got, r.ID)
		}
		path = ""
		if page.Next != "" {
			path = wire.SkillsPath + "/weekly/runs?limit=2&before=" + page.Next
		}
	}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("paged ids %v\nwant newest first %v", got, want)
	}
	for _, tt := range []struct {
		path   string
		status int
	}{
		{wire.SkillsPath + "/weekly/runs?limit=0", 400},
		{wire.SkillsPath + "/weekly/runs?limit=abc", 400},
		{wire.SkillsPath + "/weekly/runs?before=-1", 400},
		{wire.SkillsPath + "/" + url.PathEscape("weekly' OR '1'='1") + "/runs", 404},
		{wire.SkillsPath + "/" + url.PathEscape("a/b") + "/runs", 404},
		{"/runs/" + url.PathEscape("1 OR 1=1"), 404},
		{"/skills/" + url.PathEscape("<script>alert(1)</script>"), 404},
	} {
		if status, body := l.do(t, "GET", tt.path, nil, nil); status != tt.status {
			t.Errorf("GET %s: %d %s, want %d", tt.path, status, body, tt.status)
		}
	}
	status, body := l.do(t, "GET", wire.SkillsPath, nil, nil)
	var list struct {
		Skills []struct {
			Name   string `json:"name"`
			Runs   int    `json:"runs"`
			Latest struct {
				ID string `json:"id"`
			} `json:"latest"`
		} `json:"skills"`
	}
	if json.Unmarshal(body, &list); status != 200 || len(list.Skills) != 1 || list.Skills[0].Runs != 5 || list.Skills[0].Latest.ID != want[0] {
		t.Errorf("GET skills: %d %s", status, body)
	}
}

// TestDuplicateDelivery: the same record sent twice is stored once and
// both answers carry the same id.
func TestDuplicateDelivery(t *testing.T) {
	l := newTestLedger(t, false, 0)
	l.uploadSkill(t, "weekly")
	rec := ledgertest.Record("weekly", 0, runlog.Passed)
	var ids []string
	for range 2 {
		status, body := l.pushRun(t, "weekly", rec)
		var a wire.Accepted
		json.Unmarshal(body, &a)
		if status != 202 {
			t.Fatalf("%d %s", status, body)
		}
		ids = append(ids, a.ID)
		if len(ids) == 2 && !a.Duplicate {
			t.Errorf("second delivery not marked duplicate: %s", body)
		}
	}
	if ids[0] != ids[1] {
		t.Errorf("ids %v differ", ids)
	}
}

// TestInjectionNamesRefused: skill names built to break a query made by
// string concatenation, or a URL path, break the Agent Skills name rules
// and are refused (400) on upload and on push; the other skills are
// untouched. (The store suite, ledgertest.StoreSuite, still stores them
// straight, as a database from before the rule may hold them.)
func TestInjectionNamesRefused(t *testing.T) {
	l := newTestLedger(t, false, 0)
	l.uploadSkill(t, "victim")
	if status, body := l.pushRun(t, "victim", ledgertest.Record("victim", 0, runlog.Passed)); status != 202 {
		t.Fatalf("%d %s", status, body)
	}
	for _, name := range append(ledgertest.Injections, "team/weekly", "50% ?#&", "..") {
		body, _ := json.Marshal(wire.SkillUpload{Name: name, SkillMd: "---\nname: x\n---\n"})
		if status, out := l.do(t, "POST", wire.SkillsPath, body, nil); status != 400 || !strings.Contains(string(out), "Agent Skills name rules") {
			t.Errorf("upload of %q: %d %s", name, status, out)
		}
		if status, out := l.pushRun(t, name, ledgertest.Record(name, 0, runlog.Failed)); status != 400 || !strings.Contains(string(out), "Agent Skills name rules") {
			t.Errorf("push to %q: %d %s", name, status, out)
		}
	}
	status, body := l.do(t, "GET", wire.SkillsPath+"/victim/runs", nil, nil)
	if status != 200 || strings.Count(string(body), `"id"`) != 1 || !strings.Contains(string(body), `"verdict":"passed"`) {
		t.Errorf("victim after the injections: %d %s", status, body)
	}
	status, body = l.do(t, "GET", wire.SkillsPath, nil, nil)
	if status != 200 || strings.Count(string(body), `"name"`) != 1 {
		t.Errorf("skills after the injections: %d %s", status, body)
	}
}
