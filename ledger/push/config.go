package push

import (
	"fmt"
	"net/url"
	"strings"
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
	Key string
}

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
	case c.Key == "":
		return Config{}, fmt.Errorf("%s is not set: set it to an API key of the ledger; nothing was sent", EnvKey)
	}
	u, err := url.Parse(c.BaseURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return Config{}, fmt.Errorf("%s must be an http:// or https:// URL, got %q; nothing was sent", EnvURL, c.BaseURL)
	}
	c.BaseURL = strings.TrimRight(c.BaseURL, "/")
	return c, nil
}
