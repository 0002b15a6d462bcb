package redact

import (
	"encoding/base64"
	"net/url"
	"strings"
	"testing"
)

// TestRegisteredSecret: a value registered once is blanked by every
// redactor of the process — a zero Redactor, NewRedactor's, JSON and
// String — raw, percent-encoded and inside base64 at any alignment;
// detector shapes inside percent-encoding and base64 are found too.
func TestRegisteredSecret(t *testing.T) {
	value := "regVal-" + "Tz8mQ4wXp2Lk"
	RegisterSecret("REG_TEST_KEY", value)
	b64 := base64.StdEncoding.EncodeToString
	awsID, awsKey := "AKIA"+"QX7RZ2M4TY6W8P3K", "wJalr"+"XUtnFEMI/K7MDENG/bPxRfiCY3x9Qz"
	tests := []struct{ name, in, leak string }{
		{"raw", "echo " + value, value},
		{"percent-encoded", "q=" + url.QueryEscape("x "+value+"/"), value[7:]},
		{"base64", b64([]byte(value)), b64([]byte(value))[:12]},
		{"base64, offset 1", b64([]byte("a" + value)), b64([]byte("a" + value))[4:16]},
		{"base64, offset 2", b64([]byte("ab" + value)), b64([]byte("ab" + value))[4:16]},
		{"url-safe base64", base64.URLEncoding.EncodeToString([]byte("user:" + value)), base64.URLEncoding.EncodeToString([]byte("user:" + value))[8:20]},
		{"password after %3D", "a=1%26password%3DHunter2-" + "regtest", "Hunter2-regtest"},
		{"base64 of AKIA…:secret", b64([]byte(awsID + ":" + awsKey)), b64([]byte(awsID + ":" + awsKey))[:16]},
	}
	for _, r := range []*Redactor{{}, NewRedactor(nil, nil)} {
		for _, tt := range tests {
			if got := r.String("", tt.in); strings.Contains(got, tt.leak) {
				t.Errorf("%s: String(%q) = %q", tt.name, tt.in, got)
			}
			doc, err := r.JSON([]byte(`{"text":` + quote(tt.in) + `}`))
			if err != nil || strings.Contains(string(doc), tt.leak) {
				t.Errorf("%s: JSON = %s, %v", tt.name, doc, err)
			}
		}
	}
	// Ordinary text, base64 of ordinary text and percent-encoded text
	// without a secret stay as they were.
	for _, in := range []string{
		"hello world", b64([]byte("just some ordinary words here")), "q=a%20b%20c&page=2",
		"identifierWithoutSecretsInIt", "sha256-" + strings.Repeat("ab12", 10),
	} {
		if got := (&Redactor{}).String("", in); got != in {
			t.Errorf("String(%q) = %q; want it unchanged", in, got)
		}
	}
	// Short values are not registered: they would blank ordinary words.
	RegisterSecret("SHORT", "abc")
	if got := (&Redactor{}).String("", "abc def"); got != "abc def" {
		t.Errorf("a short value was blanked: %q", got)
	}
}

func quote(s string) string {
	b := appendString(nil, s)
	return string(b)
}
