package push

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/reelier/reelier/ledger/wire"
)

// The environment variables that configure a push; there are no flags and
// no defaults.
const (
	EnvURL = "REELIER_CLOUD_URL"
	EnvKey = "REELIER_CLOUD_KEY"
)

// Config is where records go and the key that admits them.
type Config struct {
	// BaseURL is the ledger's base URL without a trailing slash.
	BaseURL string
	// Key is the bearer API key. It is never printed or put in an error.
	// Empty only for a ledger that said it needs none (Resolve).
	Key string
}

// ErrNoKey is wrapped by ConfigFromEnv's error when the URL is set and
// usable but the key is not.
var ErrNoKey = errors.New("no API key")

// noKey is that error: the message, and the URL for Resolve.
type noKey struct {
	msg     string
	baseURL string
}

func (e *noKey) Error() string { return e.msg }
func (e *noKey) Unwrap() error { return ErrNoKey }

// ConfigFromEnv reads EnvURL and EnvKey through getenv. When either is
// unset or empty the error names the missing variables, and only their
// names; an unusable URL is reported without the key either.
func ConfigFromEnv(getenv func(string) string) (Config, error) {
	c := Config{BaseURL: strings.TrimSpace(getenv(EnvURL)), Key: getenv(EnvKey)}
	switch {
	case c.BaseURL == "" && c.Key == "":
		return Config{}, fmt.Errorf("%s and %s are not set: set them to the ledger's base URL and an API key; nothing was sent", EnvURL, EnvKey)
	case c.BaseURL == "":
		return Config{}, fmt.Errorf("%s is not set: set it to the ledger's base URL; nothing was sent", EnvURL)
	}
	u, err := url.Parse(c.BaseURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return Config{}, fmt.Errorf("%s must be an http:// or https:// URL, got %q; nothing was sent", EnvURL, c.BaseURL)
	}
	c.BaseURL = strings.TrimRight(c.BaseURL, "/")
	if c.Key == "" {
		return Config{}, &noKey{msg: fmt.Sprintf("%s is not set: set it to an API key of the ledger; nothing was sent", EnvKey), baseURL: c.BaseURL}
	}
	return c, nil
}

// LedgerFromEnv is the ledger EnvURL names, as the state file keys it
// (no trailing slash), or "" when it is unset or not an http(s) URL. It
// reads nothing else: the dry run's way to pick a ledger's cursor.
func LedgerFromEnv(getenv func(string) string) string {
	s := strings.TrimSpace(getenv(EnvURL))
	u, err := url.Parse(s)
	if s == "" || err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return ""
	}
	return strings.TrimRight(s, "/")
}

// infoTimeout bounds the question Resolve asks a ledger.
const infoTimeout = 10 * time.Second

// Resolve is ConfigFromEnv for a push that may go to a ledger without
// keys: when only the key is missing it asks the ledger (GET
// wire.InfoPath, which needs no key) whether it needs one, and a ledger
// that answers that it holds no key — open, answering loopback clients
// only — is pushed to without one. Any other answer, or none, keeps
// ConfigFromEnv's error (the key is needed). hc nil means a plain client.
func Resolve(ctx context.Context, getenv func(string) string, hc *http.Client) (Config, error) {
	c, err := ConfigFromEnv(getenv)
	var nk *noKey
	if !errors.As(err, &nk) {
		return c, err
	}
	info, ierr := (&Client{Config: Config{BaseURL: nk.baseURL}, HTTP: hc}).Info(ctx)
	if ierr != nil || info.Keys {
		return Config{}, err
	}
	return Config{BaseURL: nk.baseURL}, nil
}

// Info asks the ledger what it asks of a pusher (wire.Info). A ledger
// older than the question answers 404: an error.
func (c *Client) Info(ctx context.Context) (wire.Info, error) {
	var info wire.Info
	ctx, cancel := context.WithTimeout(ctx, infoTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.Config.BaseURL+wire.InfoPath, nil)
	if err != nil {
		return info, err
	}
	if c.Config.Key != "" {
		req.Header.Set("Authorization", "Bearer "+c.Config.Key)
	}
	hc := c.HTTP
	if hc == nil {
		hc = defaultHTTP
	}
	resp, err := hc.Do(req)
	if err != nil {
		return info, err
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, maxAnswer))
	if resp.StatusCode != http.StatusOK {
		return info, fmt.Errorf("the ledger answered %s", statusText(resp.StatusCode))
	}
	if err := json.Unmarshal(body, &info); err != nil {
		return info, fmt.Errorf("the ledger's answer is not its info: %v", err)
	}
	return info, nil
}
