package llm_test

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/reelier/reelier/replay/llm"
	"github.com/reelier/reelier/testkit/llmtest"
)

const key = "sk-test-0123456789abcdef"

// env is a fake environment.
func env(vars map[string]string) func(string) string {
	return func(name string) string { return vars[name] }
}

// TestResolve holds Resolve to the README's table: flags > env > defaults,
// and ANTHROPIC_API_KEY only for the Anthropic host.
func TestResolve(t *testing.T) {
	tests := []struct {
		name  string
		flags llm.Flags
		env   map[string]string
		want  llm.Config
	}{
		{name: "defaults", want: llm.Config{BaseURL: "https://api.anthropic.com", Model: "claude-haiku-4-5-20251001", L2Model: "claude-sonnet-5"}},
		{name: "env over defaults",
			env:  map[string]string{"REELIER_LLM_BASE_URL": "http://127.0.0.1:11434/v1", "REELIER_LLM_API_KEY": "k-env", "REELIER_LLM_MODEL": "m1", "REELIER_LLM_L2_MODEL": "m2"},
			want: llm.Config{BaseURL: "http://127.0.0.1:11434/v1", APIKey: "k-env", Model: "m1", L2Model: "m2"}},
		{name: "flags over env",
			flags: llm.Flags{BaseURL: "https://openrouter.ai/api/v1", APIKey: "k-flag", Model: "f1", L2Model: "f2"},
			env:   map[string]string{"REELIER_LLM_BASE_URL": "http://x", "REELIER_LLM_API_KEY": "k-env", "REELIER_LLM_MODEL": "m1", "REELIER_LLM_L2_MODEL": "m2"},
			want:  llm.Config{BaseURL: "https://openrouter.ai/api/v1", APIKey: "k-flag", Model: "f1", L2Model: "f2"}},
		{name: "anthropic key fallback on the anthropic host",
			env:  map[string]string{"ANTHROPIC_API_KEY": "k-anth"},
			want: llm.Config{BaseURL: "https://api.anthropic.com", APIKey: "k-anth", Model: "claude-haiku-4-5-20251001", L2Model: "claude-sonnet-5"}},
		{name: "anthropic host, any case and path",
			flags: llm.Flags{BaseURL: "https://API.Anthropic.com/v1"},
			env:   map[string]string{"ANTHROPIC_API_KEY": "k-anth"},
			want:  llm.Config{BaseURL: "https://API.Anthropic.com/v1", APIKey: "k-anth", Model: "claude-haiku-4-5-20251001", L2Model: "claude-sonnet-5"}},
		{name: "reelier key wins over the anthropic key",
			env:  map[string]string{"ANTHROPIC_API_KEY": "k-anth", "REELIER_LLM_API_KEY": "k-env"},
			want: llm.Config{BaseURL: "https://api.anthropic.com", APIKey: "k-env", Model: "claude-haiku-4-5-20251001", L2Model: "claude-sonnet-5"}},
		{name: "no anthropic fallback for another host",
			flags: llm.Flags{BaseURL: "https://openrouter.ai/api/v1"},
			env:   map[string]string{"ANTHROPIC_API_KEY": "k-anth"},
			want:  llm.Config{BaseURL: "https://openrouter.ai/api/v1", Model: "claude-haiku-4-5-20251001", L2Model: "claude-sonnet-5"}},
		{name: "no anthropic fallback for a look-alike host",
			env:  map[string]string{"REELIER_LLM_BASE_URL": "https://api.anthropic.com.evil.example", "ANTHROPIC_API_KEY": "k-anth"},
			want: llm.Config{BaseURL: "https://api.anthropic.com.evil.example", Model: "claude-haiku-4-5-20251001", L2Model: "claude-sonnet-5"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := llm.Resolve(tt.flags, env(tt.env)); got != tt.want {
				t.Errorf("Resolve =\n%+v\nwant\n%+v", got, tt.want)
			}
		})
	}
}

// TestNewClientChecks: the key and the URL are checked when a client is
// built, with errors that name what to set.
func TestNewClientChecks(t *testing.T) {
	tests := []struct {
		name string
		cfg  llm.Config
		want string
	}{
		{name: "no key, anthropic", cfg: llm.Config{BaseURL: "https://api.anthropic.com"},
			want: "no LLM API key for https://api.anthropic.com: set REELIER_LLM_API_KEY (or ANTHROPIC_API_KEY) or pass --llm-api-key"},
		{name: "no key, anthropic, any path", cfg: llm.Config{BaseURL: "https://api.anthropic.com/v1"},
			want: "no LLM API key for https://api.anthropic.com/v1: set REELIER_LLM_API_KEY (or ANTHROPIC_API_KEY) or pass --llm-api-key"},
		{name: "bad URL", cfg: llm.Config{BaseURL: "127.0.0.1:11434", APIKey: key},
			want: `invalid LLM base URL "127.0.0.1:11434": want http(s)://host[/path] (set --llm-base-url or REELIER_LLM_BASE_URL)`},
		{name: "no host", cfg: llm.Config{BaseURL: "https://", APIKey: key},
			want: `invalid LLM base URL "https://": want http(s)://host[/path] (set --llm-base-url or REELIER_LLM_BASE_URL)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := llm.NewClient(tt.cfg)
			if c != nil || err == nil || err.Error() != tt.want {
				t.Errorf("NewClient = %v, %v\nwant error %q", c, err, tt.want)
			}
		})
	}
}

// fake starts the fake provider with the replies.
func fake(t *testing.T, replies ...llmtest.Reply) *llmtest.Server {
	t.Helper()
	s := llmtest.New(replies, llmtest.Options{})
	t.Cleanup(func() {
		s.Close()
		for _, p := range s.Problems() {
			t.Errorf("malformed request: %s", p)
		}
	})
	return s
}

var ask = llm.Request{Model: "the-model", System: "be brief", Prompt: "heal step 1"}

// TestAdapters sends one prompt through each adapter to the fake provider,
// which checks the request's shape, and reads text and usage back.
func TestAdapters(t *testing.T) {
	for _, wire := range []struct {
		name string
		new  func(llm.Config) (llm.Client, error)
		base string // appended to the server URL
		path string
	}{
		{name: "anthropic", new: llm.NewAnthropic, path: "/v1/messages"},
		{name: "anthropic, base ends in /v1", new: llm.NewAnthropic, base: "/v1/", path: "/v1/messages"},
		{name: "openai", new: llm.NewOpenAI, base: "/v1", path: "/v1/chat/completions"},
		{name: "openai, no version path", new: llm.NewOpenAI, path: "/chat/completions"},
	} {
		t.Run(wire.name, func(t *testing.T) {
			s := fake(t, llmtest.Reply{Text: `{"reason":"r"}`, InputTokens: 321, OutputTokens: 45})
			c, err := wire.new(llm.Config{BaseURL: s.URL + wire.base, APIKey: key})
			if err != nil {
				t.Fatal(err)
			}
			resp, err := c.Complete(context.Background(), ask)
			if err != nil {
				t.Fatal(err)
			}
			if resp.Text != `{"reason":"r"}` || resp.Usage != (llm.Usage{InputTokens: 321, OutputTokens: 45}) {
				t.Errorf("response %+v", resp)
			}
			reqs := s.Requests()
			if len(reqs) != 1 || reqs[0].Path != wire.path || reqs[0].Model != "the-model" ||
				reqs[0].System != "be brief" || reqs[0].Prompt != "heal step 1" || reqs[0].Key != key {
				t.Errorf("requests %+v", reqs)
			}
		})
	}
}

// TestHostPicksAdapter: NewClient speaks the Anthropic wire to
// api.anthropic.com and chat completions elsewhere. The Anthropic host is
// reached on loopback through a dialer that sends every connection to the
// fake provider.
func TestHostPicksAdapter(t *testing.T) {
	s := llmtest.New([]llmtest.Reply{{Text: "a", InputTokens: 1, OutputTokens: 1}, {Text: "b", InputTokens: 1, OutputTokens: 1}}, llmtest.Options{})
	defer s.Close()
	tlsSrv := httptest.NewUnstartedServer(s.Config.Handler)
	tlsSrv.StartTLS()
	defer tlsSrv.Close()
	tr := tlsSrv.Client().Transport.(*http.Transport).Clone()
	tr.TLSClientConfig.ServerName = "example.com" // the test certificate's name
	tr.DialContext = func(ctx context.Context, network, _ string) (net.Conn, error) {
		return (&net.Dialer{}).DialContext(ctx, network, tlsSrv.Listener.Addr().String())
	}
	tr.DialTLSContext = func(ctx context.Context, network, _ string) (net.Conn, error) {
		conn, err := (&net.Dialer{}).DialContext(ctx, network, tlsSrv.Listener.Addr().String())
		if err != nil {
			return nil, err
		}
		tc := tls.Client(conn, tr.TLSClientConfig)
		return tc, tc.HandshakeContext(ctx)
	}
	anth := llm.Resolve(llm.Flags{}, env(map[string]string{"ANTHROPIC_API_KEY": key}))
	anth.HTTPClient = &http.Client{Transport: tr}
	other := llm.Resolve(llm.Flags{BaseURL: s.URL + "/v1"}, env(map[string]string{"REELIER_LLM_API_KEY": key}))
	for _, cfg := range []llm.Config{anth, other} {
		c, err := llm.NewClient(cfg)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.Complete(context.Background(), ask); err != nil {
			t.Fatal(err)
		}
	}
	reqs := s.Requests()
	if len(reqs) != 2 || reqs[0].Wire != llmtest.Anthropic || reqs[0].Model != "the-model" || reqs[1].Wire != llmtest.OpenAI {
		t.Errorf("requests %+v", reqs)
	}
	for _, p := range s.Problems() {
		t.Errorf("malformed request: %s", p)
	}
}

// TestProviderFaults: every provider fault is an error with the real
// reason, usage is kept when the provider reported it, and the key never
// appears in an error or a text.
func TestProviderFaults(t *testing.T) {
	tests := []struct {
		name      string
		reply     llmtest.Reply
		want      map[string]string // wire → error, with URL for the endpoint
		wantUsage llm.Usage
		wantText  string
	}{
		{name: "429", reply: llmtest.Reply{Status: 429, Text: "Number of request tokens has exceeded your per-minute rate limit"},
			want: map[string]string{
				"anthropic": "LLM request failed: URL answered HTTP 429 Too Many Requests: rate_limit_error: Number of request tokens has exceeded your per-minute rate limit",
				"openai":    "LLM request failed: URL answered HTTP 429 Too Many Requests: server_error: Number of request tokens has exceeded your per-minute rate limit"}},
		{name: "500", reply: llmtest.Reply{Status: 500, Text: "Internal server error"},
			want: map[string]string{
				"anthropic": "LLM request failed: URL answered HTTP 500 Internal Server Error: api_error: Internal server error",
				"openai":    "LLM request failed: URL answered HTTP 500 Internal Server Error: server_error: Internal server error"}},
		{name: "error text echoes the key", reply: llmtest.Reply{Status: 401, Text: "Incorrect API key provided: " + key},
			want: map[string]string{
				"anthropic": "LLM request failed: URL answered HTTP 401 Unauthorized: api_error: Incorrect API key provided: «redacted»",
				"openai":    "LLM request failed: URL answered HTTP 401 Unauthorized: server_error: Incorrect API key provided: «redacted»"}},
		{name: "non-JSON error body", reply: llmtest.Reply{Status: 502, Raw: "<html>bad\n gateway</html>"},
			want: map[string]string{
				"anthropic": "LLM request failed: URL answered HTTP 502 Bad Gateway: <html>bad gateway</html>",
				"openai":    "LLM request failed: URL answered HTTP 502 Bad Gateway: <html>bad gateway</html>"}},
		{name: "not JSON", reply: llmtest.Reply{Raw: "<html>ok</html>"},
			want: map[string]string{
				"anthropic": "LLM request failed: malformed response from URL: invalid character '<' looking for beginning of value; body starts \"<html>ok</html>\"",
				"openai":    "LLM request failed: malformed response from URL: invalid character '<' looking for beginning of value; body starts \"<html>ok</html>\""}},
		{name: "malformed JSON", reply: llmtest.Reply{Raw: `{"content": [`},
			want: map[string]string{
				"anthropic": `LLM request failed: malformed response from URL: unexpected end of JSON input; body starts "{\"content\": ["`,
				"openai":    `LLM request failed: malformed response from URL: unexpected end of JSON input; body starts "{\"content\": ["`}},
		{name: "no text, usage kept", reply: llmtest.Reply{Text: "  ", InputTokens: 50, OutputTokens: 0},
			want: map[string]string{
				"anthropic": `LLM request failed: the reply from URL has no text (stop_reason "end_turn")`,
				"openai":    `LLM request failed: the reply from URL has no text (finish_reason "stop")`},
			wantUsage: llm.Usage{InputTokens: 50}, wantText: "  "},
		{name: "reply echoes the key", reply: llmtest.Reply{Text: "here: $KEY", EchoKey: true, InputTokens: 5, OutputTokens: 5},
			wantUsage: llm.Usage{InputTokens: 5, OutputTokens: 5}, wantText: "here: «redacted»"},
	}
	for _, tt := range tests {
		for _, wire := range []string{"anthropic", "openai"} {
			t.Run(tt.name+"/"+wire, func(t *testing.T) {
				s := fake(t, tt.reply)
				c, path := client(t, wire, llm.Config{BaseURL: s.URL, APIKey: key})
				resp, err := c.Complete(context.Background(), ask)
				got := ""
				if err != nil {
					got = err.Error()
				}
				if want := strings.ReplaceAll(tt.want[wire], "URL", s.URL+path); got != want {
					t.Errorf("error %q\nwant  %q", got, want)
				}
				if resp.Usage != tt.wantUsage || resp.Text != tt.wantText {
					t.Errorf("response %+v, want usage %+v text %q", resp, tt.wantUsage, tt.wantText)
				}
				if strings.Contains(got+resp.Text, key) {
					t.Errorf("the key leaked: %q %q", got, resp.Text)
				}
			})
		}
	}
}

// TestOpenAIShapes covers replies peculiar to chat completions.
func TestOpenAIShapes(t *testing.T) {
	for _, tt := range []struct{ name, raw, want string }{
		{"no choices", `{"choices":[],"usage":{"prompt_tokens":7,"completion_tokens":0}}`, "LLM request failed: the reply from URL has no choices"},
		{"null content", `{"choices":[{"message":{"content":null},"finish_reason":"length"}],"usage":{"prompt_tokens":7,"completion_tokens":0}}`, `LLM request failed: the reply from URL has no text (finish_reason "length")`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := fake(t, llmtest.Reply{Raw: tt.raw})
			c, path := client(t, "openai", llm.Config{BaseURL: s.URL, APIKey: key})
			resp, err := c.Complete(context.Background(), ask)
			if want := strings.ReplaceAll(tt.want, "URL", s.URL+path); err == nil || err.Error() != want {
				t.Errorf("error %v, want %q", err, want)
			}
			if resp.Usage.InputTokens != 7 {
				t.Errorf("usage %+v, want the reported 7 input tokens", resp.Usage)
			}
		})
	}
	// Some compatible servers send the error as a plain string.
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, `{"error":"model \"x\" not found, try pulling it first"}`, http.StatusNotFound)
	}))
	defer srv.Close()
	c, _ := client(t, "openai", llm.Config{BaseURL: srv.URL, APIKey: key})
	_, err := c.Complete(context.Background(), ask)
	want := "LLM request failed: " + srv.URL + `/chat/completions answered HTTP 404 Not Found: model "x" not found, try pulling it first`
	if err == nil || err.Error() != want {
		t.Errorf("error %v\nwant %q", err, want)
	}
}

// TestTimeout: a provider that never answers fails the request when the
// configured timeout passes.
func TestTimeout(t *testing.T) {
	for _, wire := range []string{"anthropic", "openai"} {
		t.Run(wire, func(t *testing.T) {
			s := fake(t, llmtest.Reply{Hang: true})
			c, _ := client(t, wire, llm.Config{BaseURL: s.URL, APIKey: key, Timeout: 50 * time.Millisecond})
			_, err := c.Complete(context.Background(), ask)
			if err == nil || !strings.Contains(err.Error(), "Client.Timeout exceeded") || !strings.HasPrefix(err.Error(), "LLM request failed: Post ") {
				t.Errorf("error %v, want a client timeout", err)
			}
		})
	}
}

// client builds the named adapter and returns its endpoint path.
func client(t *testing.T, wire string, cfg llm.Config) (llm.Client, string) {
	t.Helper()
	var c llm.Client
	var err error
	path := "/chat/completions"
	if wire == "anthropic" {
		c, err = llm.NewAnthropic(cfg)
		path = "/v1/messages"
	} else {
		c, err = llm.NewOpenAI(cfg)
	}
	if err != nil {
		t.Fatal(err)
	}
	return c, path
}

// seen is what the header-recording server saw of one request.
type seen struct {
	path, model string
	header      http.Header
}

// headerServer starts a chat-completions server on 127.0.0.1 that records
// each request's path, model and headers and answers with status (200: a
// reply with text).
func headerServer(t *testing.T, status int) (*httptest.Server, func() []seen) {
	t.Helper()
	var mu sync.Mutex
	var reqs []seen
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body struct {
			Model string `json:"model"`
		}
		raw, _ := io.ReadAll(r.Body)
		json.Unmarshal(raw, &body)
		mu.Lock()
		reqs = append(reqs, seen{path: r.URL.Path, model: body.Model, header: r.Header.Clone()})
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		if status != http.StatusOK {
			w.WriteHeader(status)
			io.WriteString(w, `{"error":{"type":"invalid_request_error","message":"missing API key"}}`)
			return
		}
		io.WriteString(w, `{"choices":[{"message":{"content":"ok"},"finish_reason":"stop"}],"usage":{"prompt_tokens":3,"completion_tokens":1}}`)
	}))
	t.Cleanup(srv.Close)
	return srv, func() []seen {
		mu.Lock()
		defer mu.Unlock()
		return append([]seen(nil), reqs...)
	}
}

// TestOpenAIKeyOptional: an OpenAI-compatible host needs no key. Without
// one the request carries no Authorization header at all; with one it
// carries "Bearer <key>". A host that then refuses the request says that
// no key was sent and how to give one.
func TestOpenAIKeyOptional(t *testing.T) {
	tests := []struct {
		name     string
		env      map[string]string
		status   int
		wantAuth string // "" means no Authorization header
		wantErr  string // URL stands for the endpoint
	}{
		{name: "no key", status: 200},
		{name: "no key, the anthropic key is not sent elsewhere", env: map[string]string{"ANTHROPIC_API_KEY": "k-anth"}, status: 200},
		{name: "key", env: map[string]string{"REELIER_LLM_API_KEY": key}, status: 200, wantAuth: "Bearer " + key},
		{name: "no key, host wants one", status: 401,
			wantErr: "LLM request failed: URL answered HTTP 401 Unauthorized: invalid_request_error: missing API key (no API key was sent: set REELIER_LLM_API_KEY or pass --llm-api-key)"},
		{name: "wrong key", env: map[string]string{"REELIER_LLM_API_KEY": key}, status: 401, wantAuth: "Bearer " + key,
			wantErr: "LLM request failed: URL answered HTTP 401 Unauthorized: invalid_request_error: missing API key"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, requests := headerServer(t, tt.status)
			c, err := llm.NewClient(llm.Resolve(llm.Flags{BaseURL: srv.URL + "/v1"}, env(tt.env)))
			if err != nil {
				t.Fatalf("NewClient: %v", err)
			}
			_, err = c.Complete(context.Background(), ask)
			got := ""
			if err != nil {
				got = err.Error()
			}
			if want := strings.ReplaceAll(tt.wantErr, "URL", srv.URL+"/v1/chat/completions"); got != want {
				t.Errorf("error %q\nwant  %q", got, want)
			}
			reqs := requests()
			if len(reqs) != 1 {
				t.Fatalf("%d requests, want 1", len(reqs))
			}
			auth, sent := reqs[0].header["Authorization"]
			switch {
			case tt.wantAuth == "" && sent:
				t.Errorf("Authorization header %q sent without a key", auth)
			case tt.wantAuth != "" && reqs[0].header.Get("Authorization") != tt.wantAuth:
				t.Errorf("Authorization %q, want %q", reqs[0].header.Get("Authorization"), tt.wantAuth)
			}
			if v := reqs[0].header.Get("x-api-key"); v != "" {
				t.Errorf("x-api-key %q on the chat-completions wire", v)
			}
		})
	}
}

// TestREADMELocalExample runs the README's local-model example as written
// — its --llm-base-url and --llm-model, no key anywhere — against a server
// standing in for Ollama: every connection the client makes goes to a
// recording server on 127.0.0.1, so the test needs nothing listening on
// the example's port.
func TestREADMELocalExample(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	base := regexp.MustCompile(`--llm-base-url (http://127\.0\.0\.1:\S+)`).FindSubmatch(readme)
	model := regexp.MustCompile(`--llm-model (\S+)`).FindSubmatch(readme)
	if base == nil || model == nil {
		t.Fatal("README.md has no local example with --llm-base-url http://127.0.0.1:… and --llm-model")
	}
	srv, requests := headerServer(t, 200)
	cfg := llm.Resolve(llm.Flags{BaseURL: string(base[1]), Model: string(model[1])}, env(nil))
	cfg.HTTPClient = &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, network, _ string) (net.Conn, error) {
		return (&net.Dialer{}).DialContext(ctx, network, srv.Listener.Addr().String())
	}}}
	c, err := llm.NewClient(cfg)
	if err != nil {
		t.Fatalf("the README example builds no client: %v", err)
	}
	resp, err := c.Complete(context.Background(), llm.Request{Model: cfg.Model, System: "be brief", Prompt: "heal"})
	if err != nil || resp.Text != "ok" {
		t.Fatalf("Complete = %+v, %v", resp, err)
	}
	reqs := requests()
	if len(reqs) != 1 || reqs[0].path != "/v1/chat/completions" || reqs[0].model != string(model[1]) {
		t.Fatalf("requests %+v, want one to /v1/chat/completions for %s", reqs, model[1])
	}
	if _, sent := reqs[0].header["Authorization"]; sent {
		t.Errorf("Authorization header %q sent without a key", reqs[0].header.Get("Authorization"))
	}
}
