package httptool

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/reelier/reelier/lang/ast"
	"github.com/reelier/reelier/tool"
)

// seen is what the test server received.
type seen struct {
	Method, ContentType, Auth, Body string
}

func server(t *testing.T) (*httptest.Server, *seen) {
	t.Helper()
	var got seen
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		got = seen{r.Method, r.Header.Get("Content-Type"), r.Header.Get("Authorization"), string(body)}
		w.Header().Add("X-Multi", "one")
		w.Header().Add("X-Multi", "two")
		w.Header().Set("ETag", `"v1"`)
		w.WriteHeader(http.StatusAccepted)
		io.WriteString(w, `{"ok":true}`)
	}))
	t.Cleanup(srv.Close)
	return srv, &got
}

func tools() tool.Registry {
	reg := tool.Registry{}
	Register(reg, nil)
	return reg
}

func TestRequests(t *testing.T) {
	srv, got := server(t)
	u := `"url": "` + srv.URL + `"`
	tests := []struct {
		tool, args string
		want       seen
	}{
		{"http.get", `{` + u + `}`, seen{Method: "GET"}},
		{"http.get", `{` + u + `, "headers": {"Authorization": "Bearer t"}, "body": "ignored", "query": {"x": 1}}`, seen{Method: "GET", Auth: "Bearer t"}},
		{"http.post", `{` + u + `}`, seen{Method: "POST"}},
		{"http.post", `{` + u + `, "body": "a=1&b={\"x\"}"}`, seen{"POST", "text/plain;charset=UTF-8", "", `a=1&b={"x"}`}},
		{"http.post", `{` + u + `, "body": {"n": 1.50, "s": "<&>"}}`, seen{"POST", "application/json", "", `{"n":1.50,"s":"<&>"}`}},
		{"http.post", `{` + u + `, "body": [1, 2], "headers": {"content-type": "application/vnd.x+json"}}`, seen{"POST", "application/vnd.x+json", "", `[1,2]`}},
		{"http.post", `{` + u + `, "body": null}`, seen{Method: "POST"}},
	}
	for _, tt := range tests {
		obs, err := tools()[tt.tool].Call(context.Background(), []byte(tt.args))
		if err != nil {
			t.Fatalf("%s %s: %v", tt.tool, tt.args, err)
		}
		if *got != tt.want {
			t.Errorf("%s %s: server saw %+v, want %+v", tt.tool, tt.args, *got, tt.want)
		}
		if obs.Status != http.StatusAccepted || obs.Body != `{"ok":true}` {
			t.Errorf("observation %d %q", obs.Status, obs.Body)
		}
		if obs.Headers["x-multi"] != "one, two" || obs.Headers["etag"] != `"v1"` || obs.Headers["content-type"] == "" {
			t.Errorf("headers %v: want lower-case names and joined repeats", obs.Headers)
		}
	}
}

func TestBadArguments(t *testing.T) {
	tests := []struct {
		tool, args, want string
	}{
		{"http.get", `{}`, `missing required string argument "url"`},
		{"http.get", `["x"]`, `arguments must be an object {"url": string, "headers"?: {name: string}}`},
		{"http.post", `"x"`, `arguments must be an object {"url": string, "headers"?: {name: string}, "body"?: any}`},
		{"http.get", `{"url": 5}`, `arguments must be an object`},
		{"http.get", `{"url": "x", "headers": {"a": 1}}`, `arguments must be an object`},
		{"http.get", `{"url": "not a url"}`, `unsupported protocol scheme`},
		{"http.get", `{"url": "http://[::1"}`, `missing ']' in host`},
	}
	for _, tt := range tests {
		_, err := tools()[tt.tool].Call(context.Background(), []byte(tt.args))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s %s: error %v, want it to contain %q", tt.tool, tt.args, err, tt.want)
		}
	}
}

func TestEffects(t *testing.T) {
	reg := tools()
	if reg["http.get"].Effect() != ast.EffectRead || reg["http.post"].Effect() != ast.EffectDestructive {
		t.Error("http.get must read and http.post must be destructive, as the compiler and the lint read it")
	}
}

func TestCancelledContext(t *testing.T) {
	srv, _ := server(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := tools()["http.get"].Call(ctx, []byte(`{"url": "`+srv.URL+`"}`))
	if err == nil || !strings.Contains(err.Error(), "context canceled") {
		t.Errorf("error %v, want context canceled", err)
	}
}
