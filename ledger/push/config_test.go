package push_test

import (
	"strings"
	"testing"

	"github.com/reelier/reelier/ledger/push"
)

// TestConfigFromEnv: a missing variable is named, the key's value never
// appears in an error, and a trailing slash is dropped.
func TestConfigFromEnv(t *testing.T) {
	const key = "rlk_secret-value"
	tests := []struct {
		name, url, key string
		want           push.Config
		err            string
	}{
		{"both set", "http://127.0.0.1:8787/", key, push.Config{BaseURL: "http://127.0.0.1:8787", Key: key}, ""},
		{"no url", "", key, push.Config{}, "REELIER_CLOUD_URL is not set"},
		{"no key", "https://ledger.example", "", push.Config{}, "REELIER_CLOUD_KEY is not set"},
		{"neither", "", "", push.Config{}, "REELIER_CLOUD_URL and REELIER_CLOUD_KEY are not set"},
		{"not a URL", "ledger.example:8787", key, push.Config{}, "REELIER_CLOUD_URL must be an http:// or https:// URL"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := map[string]string{push.EnvURL: tt.url, push.EnvKey: tt.key}
			got, err := push.ConfigFromEnv(func(k string) string { return env[k] })
			switch {
			case tt.err == "" && (err != nil || got != tt.want):
				t.Errorf("got %+v, %v; want %+v", got, err, tt.want)
			case tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)):
				t.Errorf("error %v, want one containing %q", err, tt.err)
			case err != nil && strings.Contains(err.Error(), key):
				t.Errorf("the error shows the key: %v", err)
			}
		})
	}
}
