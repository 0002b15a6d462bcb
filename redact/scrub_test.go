package redact_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/reelier/reelier/redact"
)

// Secrets assembled at run time, so no credential literal sits in the
// source.
var (
	scrubGHToken = "ghp_" + strings.Repeat("sCr7", 9)
	envValue     = "env-value-" + "Q7mZ2x"
	password     = "Hunter2-" + "scrub"
)

func redactor() *redact.Redactor {
	return redact.NewRedactor([]string{"SCRUB_SECRET"}, func(name string) (string, bool) {
		return envValue, name == "SCRUB_SECRET"
	})
}

func TestText(t *testing.T) {
	tests := []struct {
		name, key, in, want string
	}{
		{"prose stays", "", `json.status == "open" failed: got "closed"`, `json.status == "open" failed: got "closed"`},
		{"unbalanced stays", "", `a { b [ c "d`, `a { b [ c "d`},
		{"object quoted in prose", "", `json.user == "x" failed: got {"name":"ann","password":"` + password + `"}`,
			`json.user == "x" failed: got {"name":"ann","password":"«redacted»"}`},
		{"JSON quoted in a quoted string", "", `json.title == "x" failed: got "{\"password\":\"` + password + `\"}"`,
			`json.title == "x" failed: got "{\"password\":\"«redacted»\"}"`},
		{"filled action of a refusal", "", `Refusing to execute destructive step without --yes. Filled action: create_user {"name":"ann","password":"` + password + `"}`,
			`Refusing to execute destructive step without --yes. Filled action: create_user {"name":"ann","password":"«redacted»"}`},
		{"array quoted in prose", "", `got [{"client_secret":"` + password + `"}]`, `got [{"client_secret":"«redacted»"}]`},
		{"named value anywhere", "", "token " + envValue + " here", "token «redacted:SCRUB_SECRET» here"},
		{"shape in prose", "", "use " + scrubGHToken, "use «redacted»"},
		{"header line", "", "Authorization: Bearer abc.def-123456789", "Authorization: «redacted»"},
		{"credential key", "password", password, "«redacted»"},
	}
	r := redactor()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := redact.Text(r, tt.key, tt.in); got != tt.want {
				t.Errorf("Text(%q)\n got %s\nwant %s", tt.in, got, tt.want)
			}
		})
	}
}

func TestJSON(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"nothing blanked: byte for byte", `{"a": 1,  "b": "x { y"}`, `{"a": 1,  "b": "x { y"}`},
		{"a member", `{"password": "` + password + `"}`, `{"password":"«redacted»"}`},
		{"a message quoting an object", `{"failures":["got {\"token\":\"` + password + `\"}"]}`,
			`{"failures":["got {\"token\":\"«redacted»\"}"]}`},
		{"a message quoting a quoted object", `{"failures":["got \"{\\\"password\\\":\\\"` + password + `\\\"}\""]}`,
			`{"failures":["got \"{\\\"password\\\":\\\"«redacted»\\\"}\""]}`},
	}
	r := redactor()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := redact.JSON(r, []byte(tt.in))
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tt.want {
				t.Errorf("JSON(%s)\n got %s\nwant %s", tt.in, got, tt.want)
			}
		})
	}
	if _, err := redact.JSON(r, []byte(`{"a":`)); err == nil {
		t.Error("JSON of a cut-off document: no error")
	}
}

// TestCancelledNeverShowsUnsearched: when the context has ended before the
// redactor's own pass is done, TextContext gives redact.Unsearched and
// JSONContext no document — never the text with its secrets still in it.
func TestCancelledNeverShowsUnsearched(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	secret := "ghp_" + strings.Repeat("Ab3x", 9)
	got, err := redact.TextContext(ctx, nil, "", "token "+secret)
	if !errors.Is(err, context.Canceled) || got != redact.Unsearched {
		t.Errorf("TextContext: %q, %v", got, err)
	}
	doc, err := redact.JSONContext(ctx, nil, []byte(`{"t":"token `+secret+`"}`))
	if !errors.Is(err, context.Canceled) || doc != nil {
		t.Errorf("JSONContext: %q, %v", doc, err)
	}
}
