package redact_test

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"io"
	"math/rand/v2"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/reelier/reelier/redact"
)

// Secret-shaped values are assembled at run time so that no
// credential-looking literal sits in the source for scanners to trip on.
var (
	ghToken   = "ghp_" + strings.Repeat("aB3x", 9)
	slackTok  = "xoxb-" + "1234567890-abcdefABCDEF"
	awsKeyID  = "AKIA" + "IOSFODNN7EXAMPLE"
	googleKey = "AIza" + strings.Repeat("Sy0_", 8) + "abc"
	stripeKey = "sk_live_" + strings.Repeat("4eC3", 6)
	jwt       = "eyJhbGciOiJIUzI1NiJ9" + "." + "eyJzdWIiOiIxMjM0NTY3ODkwIn0" + "." + "dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"
	pemBlock  = "-----BEGIN RSA " + "PRIVATE KEY-----\nMIIEowIBAAKCAQEA7\n-----END RSA PRIVATE KEY-----"
	hex40     = strings.Repeat("3f9a2c7e10", 4)
	skLetters = "sk-" + "abcdefghijklmnop" // no digit: a 16-character part is enough
)

func redactString(t *testing.T, r *redact.Redactor, doc string) string {
	t.Helper()
	out, err := r.JSON([]byte(doc))
	if err != nil {
		t.Fatalf("JSON(%s): %v", doc, err)
	}
	return string(out)
}

func enc(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// TestRedactCatches holds one case per secret shape: the document after
// redaction must not contain the secret and must equal want.
func TestRedactCatches(t *testing.T) {
	r := redact.NewRedactor([]string{"MY_TOKEN", "SHORT", "UNSET"}, func(name string) (string, bool) {
		switch name {
		case "MY_TOKEN":
			return "hunter2-correct-horse", true
		case "SHORT":
			return "abc", true
		}
		return "", false
	})
	tests := []struct {
		name, in, secret, want string
	}{
		{"named env value", `{"q":"login as hunter2-correct-horse now"}`, "hunter2-correct-horse", `{"q":"login as «redacted:MY_TOKEN» now"}`},
		{"sk- key", `{"note":` + enc("use "+skLetters+" please") + `}`, skLetters, `{"note":"use «redacted» please"}`},
		{"Bearer", `{"h":"Bearer mF_9.B5f-4.1JqM"}`, "mF_9", `{"h":"Bearer «redacted»"}`},
		{"hex under a secret-named key", `{"signature":"` + hex40 + `"}`, hex40, `{"signature":"«redacted»"}`},
		{"hex under a credential name", `{"apiKey":"` + hex40 + `"}`, hex40, `{"apiKey":"«redacted»"}`},
		{"pass member", `{"pass":"hunter2"}`, "hunter2", `{"pass":"«redacted»"}`},
		{"value after a credential flag", `{"args":["srv","--api-key","plainvalue","--port","8080"]}`, "plainvalue", `{"args":["srv","--api-key","«redacted»","--port","8080"]}`},
		{"env line in text", `{"text":"HOME=/root\nDB_PASSWORD=hunter2\n"}`, "hunter2", `{"text":"HOME=/root\nDB_PASSWORD=«redacted»\n"}`},
		{"YAML line in text", `{"text":"db:\n  password: hunter2\n"}`, "hunter2", `{"text":"db:\n  password: «redacted»\n"}`},
		{"Basic in a command line", `{"cmd":"curl -H 'Authorization: Basic dXNlcjpwYXNz' https://x.test"}`, "dXNlcjpwYXNz", `{"cmd":"curl -H 'Authorization: «redacted»' https://x.test"}`},
		{"URL password with a raw #", `{"dsn":"mysql://root:pa#ss2026@localhost/shop"}`, "pa#ss2026", `{"dsn":"mysql://root:«redacted»@localhost/shop"}`},
		{"GitHub token", `{"text":` + enc("token "+ghToken) + `}`, ghToken, `{"text":"token «redacted»"}`},
		{"Slack token", `[` + enc(slackTok) + `]`, slackTok, `["«redacted»"]`},
		{"AWS access key id", `{"id":` + enc("key "+awsKeyID+".") + `}`, awsKeyID, `{"id":"key «redacted»."}`},
		{"Google API key", `{"u":` + enc("https://maps.test/?k="+googleKey) + `}`, googleKey, `{"u":"https://maps.test/?k=«redacted»"}`},
		{"Stripe live key", `{"s":` + enc(stripeKey) + `}`, stripeKey, `{"s":"«redacted»"}`},
		{"JWT", `{"session":` + enc("cookie "+jwt) + `}`, jwt, `{"session":"cookie «redacted»"}`},
		{"PEM private key", `{"k":` + enc("x\n"+pemBlock+"\ny") + `}`, "MIIEowIBAAKCAQEA7", `{"k":"x\n«redacted»\ny"}`},
		{"URL password", `{"dsn":"postgres://app:s3cr3t-pw@db.internal:5432/app"}`, "s3cr3t-pw", `{"dsn":"postgres://app:«redacted»@db.internal:5432/app"}`},
		{"Authorization member", `{"headers":{"Authorization":"Basic dXNlcjpwYXNz"}}`, "dXNlcjpwYXNz", `{"headers":{"Authorization":"«redacted»"}}`},
		{"Cookie member", `{"Cookie":"sid=abc; theme=dark"}`, "sid=abc", `{"Cookie":"«redacted»"}`},
		{"X-Api-Key member", `{"X-Api-Key":"plainletters"}`, "plainletters", `{"X-Api-Key":"«redacted»"}`},
		{"password member", `{"user":"ann","db_password":"hunter2"}`, "hunter2", `{"user":"ann","db_password":"«redacted»"}`},
		{"client_secret member", `{"client_secret":"opensesame"}`, "opensesame", `{"client_secret":"«redacted»"}`},
		{"header line in text", `{"text":"GET / HTTP/1.1\r\nAuthorization: Basic dXNlcjpwYXNz\r\nAccept: */*"}`, "dXNlcjpwYXNz", `{"text":"GET / HTTP/1.1\r\nAuthorization: «redacted»\r\nAccept: */*"}`},
		{"X-Api-Key line in text", `{"text":"x-api-key: plainletters\n"}`, "plainletters", `{"text":"x-api-key: «redacted»\n"}`},
		{"secret inside JSON text", `{"content":[{"type":"text","text":"{\"password\":\"hunter2\",\"n\":1}"}]}`, "hunter2", `{"content":[{"type":"text","text":"{\"password\":\"«redacted»\",\"n\":1}"}]}`},
		{"array inherits the member name", `{"token":["aaaaaaa","bbbbbbb"]}`, "aaaaaaa", `{"token":["«redacted»","«redacted»"]}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := redactString(t, r, tt.in)
			if strings.Contains(got, tt.secret) {
				t.Errorf("secret %q survived: %s", tt.secret, got)
			}
			if got != tt.want {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
		})
	}
}

// TestRedactLeavesOrdinaryData holds ordinary values that must come out
// byte for byte as they went in (compacted).
func TestRedactLeavesOrdinaryData(t *testing.T) {
	r := redact.NewRedactor(nil, nil)
	sha := strings.Repeat("9f86d081884c7d65", 4)
	tests := []struct{ name, in string }{
		{"UUID", `{"id":"123e4567-e89b-12d3-a456-426614174000","requestId":"8c7f1d2e-0b3a-4c5d-9e8f-1a2b3c4d5e6f"}`},
		{"hash in a non-secret field", `{"sha256":"` + sha + `","commit":"` + hex40 + `"}`},
		{"hash under a harmless key name", `{"idempotency_key":"` + sha + `","blob_key":"` + sha + `","keyword_hash":"` + sha[:32] + `","monkey":"` + hex40 + `"}`},
		{"product code", `{"sku":"sk-1000-blue-xlarge"}`},
		{"working directory", `{"pwd":"/home/ann/project"}`},
		{"dates", `{"from":"2026-07-14","at":"2026-07-18T14:02:01.200Z"}`},
		{"prose with sk- inside words", `{"text":"Our task-management-system and the risk-assessment-report are ready."}`},
		{"prose with Bearer", `{"text":"Bearer of bad news; Bearer authentication is described in RFC 6750."}`},
		{"harmless key names", `{"page_token":"CiAKGjBpNDd2Nmp2Zml2cXRw","idempotency_key":"order-42-retry","sort_key":"name"}`},
		{"key member that is not a credential", `{"key":"photos/2026/a.jpg","keys":["a","b"]}`},
		{"numbers, booleans, null, order", `{"z":1,"a":12345678901234567890,"f":1.50,"b":true,"n":null,"e":1e3}`},
		{"JSON text without secrets", `{"content":[{"type":"text","text":"{\n  \"b\": 1,\n  \"a\": [1, 2]\n}"}]}`},
		{"header line not a credential", `{"text":"Accept: */*\nContent-Type: application/json\nToken: 3 left"}`},
		{"URL without password", `{"u":"https://user@example.com/path?q=1"}`},
		{"masked URL password", `{"u":"postgres://app:****@db/app"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := redactString(t, r, tt.in); got != tt.in {
				t.Errorf("changed:\n in  %s\n out %s", tt.in, got)
			}
		})
	}
}

func TestRedactKeepsEscapesValid(t *testing.T) {
	r := redact.NewRedactor(nil, nil)
	in := `{"t":"<a href=\"x\">&amp;</a>\u2028line\u0001","Authorization":"Bearer zzzzzzzz1"}`
	got := redactString(t, r, in)
	var v map[string]string
	if err := json.Unmarshal([]byte(got), &v); err != nil {
		t.Fatalf("output is not JSON: %v\n%s", err, got)
	}
	if v["t"] != "<a href=\"x\">&amp;</a>\u2028line\u0001" || v["Authorization"] != redact.Redacted {
		t.Errorf("got %q", v)
	}
	if strings.Contains(got, "\u2028") {
		t.Errorf("raw U+2028 in output: %s", got)
	}
}

func TestRedactRejectsBadJSON(t *testing.T) {
	r := redact.NewRedactor(nil, nil)
	for _, in := range []string{`{"a":`, `{} {}`, `nope`} {
		if _, err := r.JSON([]byte(in)); err == nil {
			t.Errorf("JSON(%q) accepted", in)
		}
	}
}

func TestRedactorString(t *testing.T) {
	r := redact.NewRedactor(nil, nil)
	if got := r.String("", "npx server --token "+ghToken); got != "npx server --token «redacted»" {
		t.Errorf("got %q", got)
	}
}

func BenchmarkRedact(b *testing.B) {
	r := redact.NewRedactor(nil, nil)
	body := []byte(`{"content":[{"type":"text","text":"{\"bookings\":[{\"id\":\"bk_1\",\"status\":\"confirmed\",\"guest\":\"Ann\"},{\"id\":\"bk_2\",\"status\":\"pending\"}],\"next\":null}"}],"isError":false}`)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := r.JSON(body); err != nil {
			b.Fatal(err)
		}
	}
}

// FuzzRedact: redaction never panics, is idempotent (redacting its own
// output changes nothing), turns any JSON document into valid JSON and
// refuses what is not JSON; String, for any key and text, is idempotent
// too. The corpora are its seeds.
func FuzzRedact(f *testing.F) {
	for _, seed := range []string{
		`{"a":"b"}`, `[1,"sk-abcdefghijkl",{"Authorization":"x"}]`, `"Bearer abc123def"`,
		`{"text":"{\"password\":\"p\"}"}`, `{"k":"` + hex40 + `","apiKey":"` + hex40 + `"}`, `null`,
		`{"t":"line\nAuthorization: Basic eA==\n"}`, `{"u":"https://a:b@c/"}`,
		`{"args":["--token","x","--password"]}`, `{"t":"password: 'a\\'b' token=\"c"}`,
	} {
		f.Add("", []byte(seed))
	}
	for _, name := range []string{"secrets.jsonl", "benign.jsonl"} {
		for _, it := range loadCorpus(f, name) {
			f.Add(it.Key, []byte(it.Text))
			f.Add("", corpusDoc(it))
		}
	}
	r := redact.NewRedactor([]string{"FUZZ_SECRET"}, func(string) (string, bool) { return "fuzz-secret-value", true })
	f.Fuzz(func(t *testing.T, key string, doc []byte) {
		once := r.String(key, string(doc))
		if twice := r.String(key, once); twice != once {
			t.Fatalf("String not idempotent under %q:\n%q\n%q\n%q", key, doc, once, twice)
		}
		out, err := r.JSON(doc)
		if !json.Valid(doc) {
			if err == nil {
				t.Fatalf("invalid JSON accepted: %q", doc)
			}
			return
		}
		if err != nil {
			t.Fatalf("valid JSON rejected: %v", err)
		}
		if !json.Valid(out) {
			t.Fatalf("invalid output %q", out)
		}
		again, err := r.JSON(out)
		if err != nil || string(again) != string(out) {
			t.Fatalf("not idempotent:\n%s\n%s", out, again)
		}
	})
}

// The redaction corpora: testdata/redact/secrets.jsonl holds realistic
// secrets in every shape they reach a trace in (JSON members, argument
// arrays, JSON carried as text, header lines, command lines, prose, env,
// ini and YAML files, URLs, connection strings, code, bare tokens), each
// with the exact substrings that must disappear; benign.jsonl holds
// look-alikes that must come out unchanged (hashes under names that are not
// secret names, UUIDs, git SHAs, base64 images and blobs, page cursors,
// product codes, public keys, prose about passwords and tokens,
// placeholders and references).
//
// A ⟦name⟧ in an item stands for a value made at run time by corpusValue,
// so that no credential-shaped literal sits in the repository; ⟦name#2⟧ is
// a second value of the same kind, and ⟦name@form⟧ the same value in
// another form (urlenc, escaped, indent4, line2).

// corpusItem is one line of a corpus.
type corpusItem struct {
	ID      string   `json:"id"`
	Shape   string   `json:"shape"`
	Kind    string   `json:"kind"`
	Key     string   `json:"key"`
	Text    string   `json:"text"`
	Secrets []string `json:"secrets"`
	Note    string   `json:"note"`
}

func loadCorpus(t testing.TB, name string) []corpusItem {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "redact", name))
	if err != nil {
		t.Fatal(err)
	}
	var items []corpusItem
	seen := map[string]bool{}
	for n, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var it corpusItem
		if err := json.Unmarshal([]byte(line), &it); err != nil {
			t.Fatalf("%s:%d: %v", name, n+1, err)
		}
		if it.ID == "" || it.Shape == "" || it.Text == "" || seen[it.ID] {
			t.Fatalf("%s:%d: an item needs a unique id, a shape and a text", name, n+1)
		}
		seen[it.ID] = true
		values := map[string]string{}
		it.Text = expand(t, it.ID, it.Text, values)
		for k, s := range it.Secrets {
			it.Secrets[k] = expand(t, it.ID, s, values)
			if !strings.Contains(it.Text, it.Secrets[k]) {
				t.Fatalf("%s: secret %q is not in the text", it.ID, it.Secrets[k])
			}
		}
		items = append(items, it)
	}
	return items
}

var placeholderRE = regexp.MustCompile(`⟦([a-z0-9-]+)(#[0-9]+)?(@[a-z0-9]+)?⟧`)

// expand replaces the placeholders of s; values holds the item's values
// made so far, so a placeholder stands for one value throughout an item.
func expand(t testing.TB, id, s string, values map[string]string) string {
	return placeholderRE.ReplaceAllStringFunc(s, func(m string) string {
		sub := placeholderRE.FindStringSubmatch(m)
		base := sub[1] + sub[2]
		v, ok := values[base]
		if !ok {
			h := fnv.New64a()
			h.Write([]byte(id + "/" + base))
			v = corpusValue(t, rand.New(rand.NewPCG(h.Sum64(), 0x5eed)), sub[1])
			values[base] = v
		}
		switch sub[3] {
		case "":
			return v
		case "@urlenc":
			return url.QueryEscape(v)
		case "@escaped":
			return strings.ReplaceAll(v, "\n", `\n`)
		case "@indent4":
			return "    " + strings.ReplaceAll(v, "\n", "\n    ")
		case "@line2":
			return strings.Split(v, "\n")[1]
		}
		t.Fatalf("%s: unknown form %s", id, sub[3])
		return ""
	})
}

const (
	upperChars  = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	lowerChars  = "abcdefghijklmnopqrstuvwxyz"
	digitChars  = "0123456789"
	alnumChars  = upperChars + lowerChars + digitChars
	b64Chars    = alnumChars + "+/"
	b64urlChars = alnumChars + "-_"
	hexChars    = "0123456789abcdef"
)

func randString(r *rand.Rand, n int, alphabet string) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = alphabet[r.IntN(len(alphabet))]
	}
	return string(b)
}

func randBytes(r *rand.Rand, n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}

// armored is a block of the given label whose base64 body starts with
// lead, n characters in all, in lines of 64.
func armored(r *rand.Rand, label, headers, lead string, n int) string {
	body := lead + randString(r, n-len(lead), b64Chars)
	var lines []string
	for len(body) > 64 {
		lines = append(lines, body[:64])
		body = body[64:]
	}
	lines = append(lines, body)
	return "-----BEGIN " + label + "-----\n" + headers + strings.Join(lines, "\n") + "\n-----END " + label + "-----"
}

func pgpBlock(r *rand.Rand, kind, headers, lead string) string {
	b := armored(r, "PGP "+kind+" BLOCK", headers, lead, 1200)
	end := strings.LastIndex(b, "\n-----END")
	return b[:end] + "\n=" + randString(r, 4, b64Chars) + b[end:]
}

// corpusValue makes a value of the named kind: the shape of the real
// thing, with a random body.
func corpusValue(t testing.TB, r *rand.Rand, name string) string {
	switch name {
	case "aws-key-id":
		return "AKIA" + randString(r, 16, upperChars+"234567")
	case "aws-sts-key-id":
		return "ASIA" + randString(r, 16, upperChars+"234567")
	case "aws-secret":
		return randString(r, 40, b64Chars)
	case "aws-session":
		return "IQoJb3JpZ2luX2Vj" + randString(r, 340+r.IntN(60), b64Chars)
	case "aws-session-old":
		return "FwoGZXIvYXdzE" + randString(r, 280+r.IntN(40), b64Chars)
	case "aws-next-token":
		return base64.StdEncoding.EncodeToString(randBytes(r, 96+r.IntN(64)))
	case "gh-pat", "gh-oauth", "gh-user", "gh-server", "gh-refresh":
		return map[string]string{"gh-pat": "ghp_", "gh-oauth": "gho_", "gh-user": "ghu_", "gh-server": "ghs_", "gh-refresh": "ghr_"}[name] + randString(r, 36, alnumChars)
	case "gh-fine":
		return "github_pat_" + randString(r, 22, alnumChars) + "_" + randString(r, 59, alnumChars)
	case "slack-bot":
		return "xoxb-" + randString(r, 12, digitChars) + "-" + randString(r, 13, digitChars) + "-" + randString(r, 24, alnumChars)
	case "slack-user":
		return "xoxp-" + randString(r, 12, digitChars) + "-" + randString(r, 12, digitChars) + "-" + randString(r, 13, digitChars) + "-" + randString(r, 32, hexChars)
	case "slack-hook":
		return "T" + randString(r, 10, upperChars+digitChars) + "/B" + randString(r, 10, upperChars+digitChars) + "/" + randString(r, 24, alnumChars)
	case "google-key":
		return "AIza" + randString(r, 35, b64urlChars)
	case "google-oauth":
		return "ya29." + randString(r, 160, b64urlChars)
	case "stripe-live":
		return "sk_live_51" + randString(r, 97, alnumChars)
	case "stripe-test":
		return "sk_test_51" + randString(r, 97, alnumChars)
	case "stripe-test-short":
		return "sk_test_" + randString(r, 24, alnumChars)
	case "stripe-rk":
		return "rk_live_51" + randString(r, 97, alnumChars)
	case "stripe-whsec":
		return "whsec_" + randString(r, 32, alnumChars)
	case "stripe-pk-test":
		return "pk_test_51" + randString(r, 97, alnumChars)
	case "stripe-pk-live":
		return "pk_live_51" + randString(r, 97, alnumChars)
	case "stripe-cus":
		return "cus_" + randString(r, 14, alnumChars)
	case "stripe-ch":
		return "ch_3" + randString(r, 23, alnumChars)
	case "jwt":
		enc := base64.RawURLEncoding.EncodeToString
		payload := fmt.Sprintf(`{"sub":"%s","iat":%d,"exp":%d}`, randString(r, 12, alnumChars), 1721300000+r.IntN(1e6), 1721400000+r.IntN(1e6))
		return enc([]byte(`{"alg":"HS256","typ":"JWT"}`)) + "." + enc([]byte(payload)) + "." + randString(r, 43, b64urlChars)
	case "sk-legacy":
		return "sk-" + randString(r, 20, alnumChars) + "T3BlbkFJ" + randString(r, 20, alnumChars)
	case "sk-proj":
		return "sk-proj-" + randString(r, 74, b64urlChars) + "T3BlbkFJ" + randString(r, 74, b64urlChars)
	case "sk-svcacct":
		return "sk-svcacct-" + randString(r, 74, b64urlChars) + "T3BlbkFJ" + randString(r, 74, b64urlChars)
	case "sk-ant":
		return "sk-ant-api03-" + randString(r, 93, b64urlChars) + "AA"
	case "sk-hex":
		return "sk-" + randString(r, 32, hexChars)
	case "sk-or":
		return "sk-or-v1-" + randString(r, 64, hexChars)
	case "bearer-opaque":
		return randString(r, 40, alnumChars)
	case "basic":
		users := []string{"ann", "deploy", "ci-bot", "admin", "svc_reports"}
		return base64.StdEncoding.EncodeToString([]byte(users[r.IntN(len(users))] + ":" + randString(r, 10+r.IntN(8), alnumChars+"!#%&*-")))
	case "hex16u":
		return strings.ToUpper(randString(r, 16, hexChars))
	case "hex32", "hex40", "hex64":
		n := map[string]int{"hex32": 32, "hex40": 40, "hex64": 64}[name]
		return randString(r, n, hexChars)
	case "sha7":
		return randString(r, 7, hexChars)
	case "opaque24", "opaque32", "opaque48":
		n := map[string]int{"opaque24": 24, "opaque32": 32, "opaque48": 48}[name]
		return randString(r, n, alnumChars)
	case "uuid":
		b := randBytes(r, 16)
		b[6], b[8] = b[6]&0x0f|0x40, b[8]&0x3f|0x80
		return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:])
	case "ulid":
		return "01J" + randString(r, 23, "0123456789ABCDEFGHJKMNPQRSTVWXYZ")
	case "ksuid":
		return "2" + randString(r, 26, alnumChars)
	case "nanoid":
		return randString(r, 21, b64urlChars)
	case "glpat":
		return "glpat-" + randString(r, 20, b64urlChars)
	case "npm":
		return "npm_" + randString(r, 36, alnumChars)
	case "hf":
		return "hf_" + randString(r, 34, upperChars+lowerChars)
	case "pypi":
		return "pypi-AgEIcHlwaS5vcmc" + randString(r, 160, b64urlChars)
	case "django-secret":
		return "django-insecure-" + randString(r, 50, lowerChars+digitChars+"!@#$%^&*(-_=+)")
	case "b64-43":
		return randString(r, 43, b64Chars)
	case "b64-44":
		return randString(r, 43, b64Chars) + "="
	case "b64-76":
		return randString(r, 76, b64Chars)
	case "b64-88":
		return randString(r, 86, b64Chars) + "=="
	case "b64-600":
		return base64.StdEncoding.EncodeToString(randBytes(r, 450))
	case "b64-3000":
		return base64.StdEncoding.EncodeToString(randBytes(r, 2250))
	case "b64url-1500":
		return base64.RawURLEncoding.EncodeToString(randBytes(r, 1125))
	case "sas-sig":
		return url.QueryEscape(randString(r, 43, b64Chars) + "=")
	case "png-b64":
		return base64.StdEncoding.EncodeToString(append([]byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"), randBytes(r, 1500+r.IntN(1500))...))
	case "jpeg-b64":
		return base64.StdEncoding.EncodeToString(append([]byte("\xff\xd8\xff\xe0\x00\x10JFIF\x00"), randBytes(r, 2000)...))
	case "svg-b64":
		return base64.StdEncoding.EncodeToString([]byte(`<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24"><path d="M12 2l` + randString(r, 40, digitChars+" ") + `z"/></svg>`))
	case "pdf-b64":
		return base64.StdEncoding.EncodeToString(append([]byte("%PDF-1.7\n"), randBytes(r, 3000)...))
	case "page-token":
		return "Ci" + randString(r, 20+r.IntN(50), b64urlChars)
	case "cursor-b64json":
		return base64.StdEncoding.EncodeToString([]byte(fmt.Sprintf(`{"offset":%d,"ts":%d}`, r.IntN(5000), 1721300000+r.IntN(1e6))))
	case "ssh-ed25519-pub":
		return "AAAAC3NzaC1lZDI1NTE5AAAAI" + randString(r, 43, b64Chars)
	case "pem-rsa":
		return armored(r, "RSA PRIVATE KEY", "", "MIIEpAIBAAKCAQEA", 1588)
	case "pem-ec":
		return armored(r, "EC PRIVATE KEY", "", "MHcCAQEEI", 164)
	case "pem-pkcs8":
		return armored(r, "PRIVATE KEY", "", "MIIEvQIBADANBgkqhkiG9w0BAQEFAASC", 1624)
	case "pem-openssh":
		return armored(r, "OPENSSH PRIVATE KEY", "", "b3BlbnNzaC1rZXktdjEAAAAA", 400)
	case "pem-encrypted":
		return armored(r, "RSA PRIVATE KEY", "Proc-Type: 4,ENCRYPTED\nDEK-Info: AES-256-CBC,"+strings.ToUpper(randString(r, 32, hexChars))+"\n\n", "", 1600)
	case "pem-public":
		return armored(r, "PUBLIC KEY", "", "MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA", 392)
	case "pem-cert":
		return armored(r, "CERTIFICATE", "", "MIIDdzCCAl+gAwIBAgIE", 1200)
	case "pgp":
		return pgpBlock(r, "PRIVATE KEY", "Comment: GnuPG v2\n\n", "lQOYBG")
	case "pgp-bare":
		return pgpBlock(r, "PRIVATE KEY", "\n", "lQVYBG")
	case "pgp-public":
		return pgpBlock(r, "PUBLIC KEY", "\n", "mQINBG")
	}
	t.Fatalf("unknown corpus value %q", name)
	return ""
}

// corpusDoc is the JSON document an item is carried in: the text under
// its key, or as the text of an MCP content block when it has none.
func corpusDoc(it corpusItem) []byte {
	var v any = map[string]any{"content": []any{map[string]any{"type": "text", "text": it.Text}}}
	if it.Key != "" {
		v = map[string]any{it.Key: it.Text}
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		panic(err)
	}
	return bytes.TrimSpace(buf.Bytes())
}

// jsonStrings returns every string (member names included) in a JSON
// document.
func jsonStrings(t testing.TB, doc []byte) []string {
	var out []string
	dec := json.NewDecoder(bytes.NewReader(doc))
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatalf("output is not JSON: %v\n%s", err, doc)
		}
		if s, ok := tok.(string); ok {
			out = append(out, s)
		}
	}
}

// shapeFigures counts, per shape, the items and how many came out right.
type shapeFigures struct{ items, right int }

func report(t *testing.T, what, verb string, figures map[string]*shapeFigures) {
	shapes := make([]string, 0, len(figures))
	total := shapeFigures{}
	for s, f := range figures {
		shapes = append(shapes, s)
		total.items += f.items
		total.right += f.right
	}
	sort.Strings(shapes)
	var b strings.Builder
	fmt.Fprintf(&b, "%s corpus: %d/%d %s\n", what, total.right, total.items, verb)
	for _, s := range shapes {
		fmt.Fprintf(&b, "  %-18s %3d items, %3d %s\n", s, figures[s].items, figures[s].right, verb)
	}
	t.Log(b.String())
}

// TestRedactCorpus: every secret of secrets.jsonl is blanked, through
// Redactor.JSON (the item as a JSON document) and through Redactor.String
// (the item as text under its key); every value of benign.jsonl comes out
// unchanged through both. The figures per shape are logged (go test -v).
func TestRedactCorpus(t *testing.T) {
	r := redact.NewRedactor(nil, nil)
	secretsCorpus := loadCorpus(t, "secrets.jsonl")
	benign := loadCorpus(t, "benign.jsonl")
	if len(secretsCorpus) < 200 || len(benign) < 200 {
		t.Fatalf("the corpora have %d and %d items; each needs 200 or more", len(secretsCorpus), len(benign))
	}

	blanked := map[string]*shapeFigures{}
	for _, it := range secretsCorpus {
		f := blanked[it.Shape]
		if f == nil {
			f = &shapeFigures{}
			blanked[it.Shape] = f
		}
		f.items++
		var missed []string
		out, err := r.JSON(corpusDoc(it))
		if err != nil {
			t.Fatalf("%s: %v", it.ID, err)
		}
		strs := append(jsonStrings(t, out), string(out))
		text := r.String(it.Key, it.Text)
		for _, secret := range it.Secrets {
			for _, s := range strs {
				if strings.Contains(s, secret) {
					missed = append(missed, "JSON: "+secret)
					break
				}
			}
			if strings.Contains(text, secret) {
				missed = append(missed, "String: "+secret)
			}
		}
		if len(missed) > 0 {
			t.Errorf("%s: a secret survived (%s)\n  in:  %.300q\n  out: %.300q", it.ID, strings.Join(missed, "; "), it.Text, text)
			continue
		}
		f.right++
	}

	left := map[string]*shapeFigures{}
	for _, it := range benign {
		f := left[it.Shape]
		if f == nil {
			f = &shapeFigures{}
			left[it.Shape] = f
		}
		f.items++
		doc := corpusDoc(it)
		out, err := r.JSON(doc)
		if err != nil {
			t.Fatalf("%s: %v", it.ID, err)
		}
		text := r.String(it.Key, it.Text)
		if string(out) != string(doc) || text != it.Text {
			t.Errorf("%s: changed\n  in:  %.300q\n  out: %.300q\n  json: %.300s", it.ID, it.Text, text, out)
			continue
		}
		f.right++
	}
	report(t, "secrets", "blanked", blanked)
	report(t, "benign", "left alone", left)
}
