package llm

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// The defaults of the README's BYOK table.
const (
	DefaultBaseURL = "https://api.anthropic.com"
	DefaultModel   = "claude-haiku-4-5-20251001"
	DefaultL2Model = "claude-sonnet-5"
	// DefaultTimeout bounds one request, response body included.
	DefaultTimeout = 60 * time.Second
	// AnthropicHost is the host served by the Anthropic Messages adapter;
	// every other host gets OpenAI-compatible chat completions.
	AnthropicHost = "api.anthropic.com"
)

// The environment variables Resolve reads.
const (
	EnvBaseURL = "REELIER_LLM_BASE_URL"
	EnvAPIKey  = "REELIER_LLM_API_KEY"
	// EnvAnthropicKey is read only when the base URL's host is
	// AnthropicHost.
	EnvAnthropicKey = "ANTHROPIC_API_KEY"
	EnvModel        = "REELIER_LLM_MODEL"
	EnvL2Model      = "REELIER_LLM_L2_MODEL"
)

// Flags are the values given on the command line; "" means not given.
type Flags struct {
	BaseURL string
	APIKey  string
	Model   string
	L2Model string
}

// Config is a resolved LLM configuration.
type Config struct {
	// BaseURL is the provider's root, such as https://api.anthropic.com or
	// http://127.0.0.1:11434/v1.
	BaseURL string
	// APIKey authenticates every request. The Anthropic wire needs one
	// (NewClient refuses an empty key for api.anthropic.com); an
	// OpenAI-compatible host gets no Authorization header without one, as
	// a local server such as Ollama expects.
	APIKey string
	// Model serves Level 1, L2Model Level 2.
	Model   string
	L2Model string
	// Timeout bounds each request; zero means DefaultTimeout.
	Timeout time.Duration
	// HTTPClient sends the requests; nil means a client of its own. Its
	// Timeout, when set, wins over Timeout.
	HTTPClient *http.Client
}

// Resolve picks each setting from the flags, else the environment, else the
// default. The key has no default: it falls back from REELIER_LLM_API_KEY
// to ANTHROPIC_API_KEY only when the base URL's host is api.anthropic.com.
// getenv is os.Getenv outside tests.
func Resolve(f Flags, getenv func(string) string) Config {
	c := Config{
		BaseURL: first(f.BaseURL, getenv(EnvBaseURL), DefaultBaseURL),
		Model:   first(f.Model, getenv(EnvModel), DefaultModel),
		L2Model: first(f.L2Model, getenv(EnvL2Model), DefaultL2Model),
	}
	c.APIKey = first(f.APIKey, getenv(EnvAPIKey))
	if c.APIKey == "" && isAnthropic(c.BaseURL) {
		c.APIKey = getenv(EnvAnthropicKey)
	}
	return c
}

// first returns the first non-empty value.
func first(values ...string) string {
	for _, v := range values {
		if v != "" {
			return v
		}
	}
	return ""
}

// isAnthropic reports whether base is served by the Anthropic adapter.
func isAnthropic(base string) bool {
	u, err := url.Parse(base)
	return err == nil && strings.EqualFold(u.Hostname(), AnthropicHost)
}

// NewClient checks the configuration and returns the adapter for its host.
// It is the only place a missing key is reported, so a run that never
// escalates never needs one; the error names the variables to set. Only
// the Anthropic wire requires a key: any other host is sent requests
// without an Authorization header when there is none.
func NewClient(c Config) (Client, error) {
	if isAnthropic(c.BaseURL) {
		return NewAnthropic(c)
	}
	return NewOpenAI(c)
}

// check validates the base URL and, when needKey is set, the key, naming
// what to set.
func (c Config) check(needKey bool) (*url.URL, error) {
	u, err := url.Parse(c.BaseURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("invalid LLM base URL %q: want http(s)://host[/path] (set --llm-base-url or %s)", c.BaseURL, EnvBaseURL)
	}
	if needKey && c.APIKey == "" {
		vars := EnvAPIKey
		if isAnthropic(c.BaseURL) {
			vars += " (or " + EnvAnthropicKey + ")"
		}
		return nil, fmt.Errorf("no LLM API key for %s: set %s or pass --llm-api-key", u.Redacted(), vars)
	}
	return u, nil
}

// httpClient returns the client requests go through.
func (c Config) httpClient() *http.Client {
	if c.HTTPClient != nil {
		if c.HTTPClient.Timeout == 0 {
			hc := *c.HTTPClient
			hc.Timeout = c.timeout()
			return &hc
		}
		return c.HTTPClient
	}
	return &http.Client{Timeout: c.timeout()}
}

func (c Config) timeout() time.Duration {
	if c.Timeout > 0 {
		return c.Timeout
	}
	return DefaultTimeout
}

// endpoint joins the base URL's path with the API path.
func endpoint(base *url.URL, path string) string {
	u := *base
	u.Path = strings.TrimRight(u.Path, "/") + path
	u.RawPath = ""
	return u.String()
}
