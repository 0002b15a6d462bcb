package redact

import (
	"bufio"
	"os"
	"reflect"
	"strings"
	"sync"
	"testing"
)

// Secret-shaped test values are assembled at run time so that no
// credential-looking literal sits in the source for scanners to trip on.
var (
	ghToken     = "ghp_" + strings.Repeat("aB3x", 9)
	ghPAT       = "github_pat_" + strings.Repeat("Ab1_", 8)
	skKey       = "sk-" + "proj-" + strings.Repeat("Zq9T", 6)
	slackToken  = "xoxb-" + "1234567890-abcdefABCDEF"
	awsKeyID    = "AKIA" + "IOSFODNN7EXAMPLE"
	googleKey   = "AIza" + strings.Repeat("Sy0_", 8) + "abc"
	stripeLive  = "sk_live_" + strings.Repeat("4eC3", 6)
	jwt         = "eyJhbGciOiJIUzI1NiJ9" + "." + "eyJzdWIiOiIxMjM0NTY3ODkwIn0" + "." + "dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"
	hex40       = strings.Repeat("3f9a2c7e10", 4)
	bearerValue = "mF_9.B5f-4.1JqM"
	pemKey      = "-----BEGIN RSA " + "PRIVATE KEY-----\nMIIEowIBAAKCAQEA7\n-----END RSA PRIVATE KEY-----"
)

func TestFind(t *testing.T) {
	tests := []struct {
		name string
		key  string
		in   string
		kind Kind
		want string // the matched text
	}{
		{"github classic", "", "token " + ghToken, KindGitHub, ghToken},
		{"github fine-grained", "", ghPAT, KindGitHub, ghPAT},
		{"github behind bearer", "", "Bearer " + ghToken, KindGitHub, ghToken},
		{"sk key", "", "key=" + skKey + "!", KindSKKey, skKey},
		{"slack token", "", slackToken, KindSlack, slackToken},
		{"slack webhook", "url", "https://hooks.slack.com/services/T0001/B0002/XXXXXXXXXXXXXXXXXXXX", KindSlack, "T0001/B0002/XXXXXXXXXXXXXXXXXXXX"},
		{"aws key id", "", "id " + awsKeyID + ".", KindAWSKeyID, awsKeyID},
		{"google api key", "", "?k=" + googleKey, KindGoogleAPIKey, googleKey},
		{"stripe live key", "", stripeLive, KindStripeLive, stripeLive},
		{"jwt", "", "session " + jwt, KindJWT, jwt},
		{"pem", "", "x" + pemKey + "y", KindPEM, pemKey},
		{"pem one line", "", "-----BEGIN PRIVATE KEY-----MIIEv1-----END PRIVATE KEY-----", KindPEM, "-----BEGIN PRIVATE KEY-----MIIEv1-----END PRIVATE KEY-----"},
		{"pem cut short", "", "-----BEGIN EC PRIVATE KEY-----\nMHcCAQEE", KindPEM, "-----BEGIN EC PRIVATE KEY-----\nMHcCAQEE"},
		{"url password", "", "postgres://app:s3cr3t-pw@db.internal:5432/app", KindURLPassword, "s3cr3t-pw"},
		{"bearer", "", "Bearer " + bearerValue, KindBearer, bearerValue},
		{"bearer lower case", "", "bearer\t" + bearerValue, KindBearer, bearerValue},
		{"query secret", "", "https://api.test/v1/boards?key=0a1b2c3d4e5f6a7b&x=1", KindQuerySecret, "0a1b2c3d4e5f6a7b"},
		{"hex under secret key", "api_key", hex40, KindHex, hex40},
		{"hex under header", "X-Api-Key", hex40, KindHex, hex40},
		{"hex after scheme word", "Authorization", "token " + hex40, KindHex, hex40},
		{"hex under camel key", "clientSecret", hex40, KindHex, hex40},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ms := FindField(tt.key, tt.in)
			if len(ms) != 1 {
				t.Fatalf("FindField(%q, %q) = %v, want one match", tt.key, tt.in, ms)
			}
			m := ms[0]
			if m.Kind != tt.kind || tt.in[m.Start:m.End] != tt.want {
				t.Errorf("got %s %q, want %s %q", m.Kind, tt.in[m.Start:m.End], tt.kind, tt.want)
			}
			if m.Kind.Label() == string(m.Kind) {
				t.Errorf("kind %s has no label", m.Kind)
			}
		})
	}
}

// TestFindAll holds one case per detector that only FindAll reports, and
// the sk- and URL-password refinements, with the exact span expected.
func TestFindAll(t *testing.T) {
	awsSecret := "fAk3" + strings.Repeat("Zt7q/", 6) + "b0dyQ1" // 40 characters
	session := "IQoJb3JpZ2luX2Vj" + strings.Repeat("Ab9+", 30)
	tests := []struct {
		name, key, in string
		kind          Kind
		want          string // the matched text; "" for no match
	}{
		{"stripe test key", "", "key " + "sk_test_" + strings.Repeat("4eC3", 6), KindStripe, "sk_test_" + strings.Repeat("4eC3", 6)},
		{"stripe webhook secret", "", "whsec_" + strings.Repeat("Zt7q", 8), KindStripe, "whsec_" + strings.Repeat("Zt7q", 8)},
		{"aws secret after its key id", "", "AKIA" + "IOSFODNN7EXAMPLE " + awsSecret, KindAWSSecretKey, awsSecret},
		{"aws secret after 'secret'", "", "Secret access key:\n" + awsSecret, KindAWSSecretKey, awsSecret},
		{"aws secret without context", "", "id " + awsSecret, "", ""},
		{"aws secret lower-case hex is a git sha", "", "aws commit " + strings.Repeat("3f9a2c7e10", 4), "", ""},
		{"aws session token", "", "token " + session, KindAWSSessionToken, session},
		{"gitlab token", "", "glpat-" + strings.Repeat("x7Yq", 5), KindServiceToken, "glpat-" + strings.Repeat("x7Yq", 5)},
		{"basic credentials", "", "Basic dXNlcjpwYXNz", KindBasic, "dXNlcjpwYXNz"},
		{"basic prose", "", "basic authentication", "", ""},
		{"env line", "", "DB_PASSWORD=hunter2", KindNamedValue, "hunter2"},
		{"env reference", "", "DB_PASSWORD=${DB_PASSWORD}", "", ""},
		{"ini line to the end", "", "password = correct horse", KindNamedValue, "correct horse"},
		{"yaml line", "", "  password: hunter2", KindNamedValue, "hunter2"},
		{"yaml prose", "", "Password: at least 8 characters", "", ""},
		{"quoted name", "", `x = {"token": "abc def"}`, KindNamedValue, "abc def"},
		{"header in a quoted argument", "", `curl -H "Authorization: Basic abc" x`, KindNamedValue, "Basic abc"},
		{"header placeholder", "", "Authorization: Bearer <token>", "", ""},
		{"flag value", "", "srv --api-key plainvalue99", KindNamedValue, "plainvalue99"},
		{"flag prose", "", "pass the --token flag", "", ""},
		{"curl user", "", "curl -u admin:s3cret x", KindNamedValue, "s3cret"},
		{"uid:gid", "", "docker run -u 1000:1000 img", "", ""},
		{"netrc", "", "machine h login ann password s3cret", KindNamedValue, "s3cret"},
		{"prose is", "", "the password is Tr0ub4dor&3.", KindNamedValue, "Tr0ub4dor&3"},
		{"prose is not", "", "the password is required.", "", ""},
		{"pwd is a directory", "", "PWD=/home/ann", "", ""},
		{"arn", "", "arn:aws:secretsmanager:us-east-1:1:secret:prod/db", "", ""},
		{"sk- product code", "", "sk-1000-blue-xlarge", "", ""},
		{"sk- key without digits", "", "sk-" + "abcdefghijklmnop", KindSKKey, "sk-abcdefghijklmnop"},
		{"url password with #", "", "mysql://root:pa#ss@db/x", KindURLPassword, "pa#ss"},
		{"url password with space", "", "amqp://u:a b@mq/", KindURLPassword, "a b"},
		{"url port is no password", "", "http://localhost:3000/?next=a@b", "", ""},
		{"url reference", "", "postgres://app:${DB_PASSWORD}@db/app", "", ""},
		{"pgp private key", "", "-----BEGIN PGP PRIVATE KEY BLOCK-----\n\nlQOYBG\n-----END PGP PRIVATE KEY BLOCK-----", KindPEM, "-----BEGIN PGP PRIVATE KEY BLOCK-----\n\nlQOYBG\n-----END PGP PRIVATE KEY BLOCK-----"},
		{"pgp public key", "", "-----BEGIN PGP PUBLIC KEY BLOCK-----\nmQINBG\n-----END PGP PUBLIC KEY BLOCK-----", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ms := FindAll(tt.key, tt.in)
			if tt.want == "" {
				if len(ms) > 0 {
					t.Fatalf("FindAll(%q) = %s %q, want nothing", tt.in, ms[0].Kind, tt.in[ms[0].Start:ms[0].End])
				}
				return
			}
			if len(ms) == 0 {
				t.Fatalf("FindAll(%q) found nothing", tt.in)
			}
			m := ms[len(ms)-1] // the case's secret comes last
			if m.Kind != tt.kind || tt.in[m.Start:m.End] != tt.want {
				t.Errorf("got %s %q, want %s %q", m.Kind, tt.in[m.Start:m.End], tt.kind, tt.want)
			}
			if m.Kind.Label() == string(m.Kind) {
				t.Errorf("kind %s has no label", m.Kind)
			}
		})
	}
}

// TestFindFieldKinds: FindField reports only the kinds the linter names.
func TestFindFieldKinds(t *testing.T) {
	for _, in := range []string{"DB_PASSWORD=hunter2", "sk_test_" + strings.Repeat("4eC3", 6), "Basic dXNlcjpwYXNz"} {
		if ms := FindField("", in); len(ms) > 0 {
			t.Errorf("FindField(%q) = %v, want nothing", in, ms)
		}
	}
}

func TestIsCredentialName(t *testing.T) {
	tests := map[string]bool{
		"password": true, "pass": true, "pwd": true, "credentials": true, "Authorization": true,
		"X-Api-Key": true, "db_password": true, "DB_PASS": true, "githubToken": true, "PGPASSWORD": true,
		"AWS_SECRET_ACCESS_KEY": true, "aws_session_token": true, "encryption_key": true, "--api-key": true,
		"next_page_token": false, "idempotency_key": false, "has_password": false, "password_policy": false,
		"bypass": false, "compass": false, "token_type": false, "max_tokens": false, "public_key": false,
		"key": false, "signingkey": false, "": false, "cache_token": false,
	}
	for name, want := range tests {
		if got := IsCredentialName(name); got != want {
			t.Errorf("IsCredentialName(%q) = %v, want %v", name, got, want)
		}
	}
}

func TestFindSeveral(t *testing.T) {
	in := "a=" + skKey + " b=" + ghToken + " c=https://u:pw12@h/"
	ms := Find(in)
	var kinds []Kind
	for _, m := range ms {
		kinds = append(kinds, m.Kind)
	}
	want := []Kind{KindSKKey, KindGitHub, KindURLPassword}
	if len(kinds) != len(want) {
		t.Fatalf("kinds = %v, want %v", kinds, want)
	}
	for i := range want {
		if kinds[i] != want[i] {
			t.Errorf("kinds[%d] = %s, want %s", i, kinds[i], want[i])
		}
	}
}

// TestOrdinaryData runs every line of testdata/ordinary.txt, a corpus of
// values that are not secrets (UUIDs, hashes under non-secret keys, dates,
// prose, URLs, templates), through FindField and expects nothing. A line
// may start with `key<TAB>` to give the field name it is stored under.
func TestOrdinaryData(t *testing.T) {
	f, err := os.Open("testdata/ordinary.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	n := 0
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		key, value, ok := strings.Cut(line, "\t")
		if !ok {
			key, value = "", line
		}
		n++
		if ms := FindField(key, value); len(ms) > 0 {
			t.Errorf("FindField(%q, %q) = %s at %d:%d, want nothing", key, value, ms[0].Kind, ms[0].Start, ms[0].End)
		}
	}
	if n < 40 {
		t.Fatalf("corpus has %d entries; expected at least 40", n)
	}
}

func TestIsSecretKey(t *testing.T) {
	tests := map[string]bool{
		"api_key": true, "apiKey": true, "X-Api-Key": true, "Authorization": true,
		"password": true, "client_secret": true, "access_token": true, "token": true,
		"APIKEY": true, "refresh_token": true, "key": true,
		"idempotency_key": false, "Idempotency-Key": false, "page_token": false,
		"nextPageToken": false, "max_tokens": false, "token_type": false,
		"sha256": false, "checksum": false, "monkey": false, "keyboard": false,
		"name": false, "id": false, "": false, "sort_key": false, "key_id": false,
		"cache_key": false, "dedup_key": false, "blob_key": false, "keyword_hash": false,
		"tokenizer_hash": false, "pass": true, "sig": true,
	}
	for key, want := range tests {
		if got := IsSecretKey(key); got != want {
			t.Errorf("IsSecretKey(%q) = %v, want %v", key, got, want)
		}
	}
}

func FuzzFind(f *testing.F) {
	for _, s := range []string{ghToken, "Bearer " + bearerValue, pemKey, "https://a:b@c", "?token=abc123def456ghi", jwt} {
		f.Add("api_key", s)
	}
	f.Fuzz(func(t *testing.T, key, s string) {
		prev := -1
		for _, m := range FindField(key, s) {
			if m.Start < 0 || m.End > len(s) || m.Start >= m.End || m.Start < prev {
				t.Fatalf("bad match %+v in %q", m, s)
			}
			prev = m.End
		}
	})
}

// unfiltered returns triggers without next: every matcher is called at
// every trigger byte, as before the filter. (triggers is filled by init,
// after package variables.)
var unfiltered = sync.OnceValue(func() *triggerTables {
	tt := new(triggerTables)
	for c := range 256 {
		for _, p := range triggers.field[c] {
			p.next = ""
			tt.field[c] = append(tt.field[c], p)
		}
		for _, p := range triggers.all[c] {
			p.next = ""
			tt.all[c] = append(tt.all[c], p)
		}
	}
	return tt
})

// checkNextFilter fails unless the scans with and without the next
// filter find the same secrets in s.
func checkNextFilter(t *testing.T, key, s string) {
	t.Helper()
	hex := hasHexRun(s) && IsSecretKey(key)
	for _, all := range []bool{false, true} {
		got, want := scanWith(&triggers, key, s, hex, all), scanWith(unfiltered(), key, s, hex, all)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("scan(%q, %q, all=%v) with the next filter = %v, without = %v", key, s, all, got, want)
		}
	}
}

// TestNextFilter holds the trigger filter to the unfiltered scan on every
// secret and ordinary value of the tests, each also cut at every byte.
func TestNextFilter(t *testing.T) {
	values := []string{ghToken, ghPAT, skKey, slackToken, awsKeyID, googleKey, stripeLive, jwt, hex40, "Bearer " + bearerValue, "bearer " + bearerValue, pemKey,
		"https://user:" + "hunter2pass@example.test/x", "?api_key=abc123def456ghi&token=zz", "password=" + "s3cretValue!", "the password is " + "Tr0ub4dor&3",
		"machine h login u password " + "pw1234567", "--api-key " + "abcdef123456", "Basic " + "dXNlcjpwYXNzd29yZA==", "sk_test_" + strings.Repeat("4eC3", 6),
		"rk_live_" + strings.Repeat("4eC3", 6), "whsec_" + strings.Repeat("4eC3", 8), "glpat-" + strings.Repeat("x1", 12), "npm_" + strings.Repeat("a1", 20),
		"hf_" + strings.Repeat("b2", 16), "ya29." + strings.Repeat("c3", 30), "IQoJb3JpZ2luX2Vj" + strings.Repeat("A", 120), "FwoGZXIvYXdzE" + strings.Repeat("B", 120),
		"ASIA" + "IOSFODNN7EXAMPLE", "https://hooks.slack.com/services/T0001/B0002/XXXXXXXXXXXXXXXXXXXX"}
	f, err := os.Open("testdata/ordinary.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		values = append(values, sc.Text())
	}
	for _, v := range values {
		for _, key := range []string{"", "api_key", "aws_secret"} {
			checkNextFilter(t, key, v)
			for i := range len(v) {
				checkNextFilter(t, key, v[:i])
				checkNextFilter(t, key, v[i:])
			}
		}
	}
}

// FuzzNextFilter holds the trigger filter to the unfiltered scan.
func FuzzNextFilter(f *testing.F) {
	for _, s := range []string{ghToken, ghPAT, skKey, slackToken, awsKeyID, googleKey, jwt, "Bearer " + bearerValue, pemKey, "https://a:b@c", "?token=abc123def456ghi", "password: hunter22"} {
		f.Add("api_key", s)
	}
	f.Fuzz(func(t *testing.T, key, s string) {
		checkNextFilter(t, key, s)
	})
}
