package redact

import (
	"context"
	"encoding/base64"
	"math/bits"
	"sort"
	"strings"
)

// Kind names the shape a secret was recognised by.
type Kind string

// The kinds of secret the detectors know.
const (
	KindSKKey        Kind = "sk-key"            // sk-… API keys (OpenAI, Anthropic and others)
	KindBearer       Kind = "bearer-token"      // the token of a `Bearer <token>` credential
	KindHex          Kind = "hex-secret"        // 32+ hex digits under a secret-named key
	KindGitHub       Kind = "github-token"      // ghp_…, gho_…, ghu_…, ghs_…, ghr_…, github_pat_…
	KindSlack        Kind = "slack-token"       // xoxb-… and friends, and incoming-webhook paths
	KindAWSKeyID     Kind = "aws-access-key-id" // AKIA…, ASIA…
	KindGoogleAPIKey Kind = "google-api-key"    // AIza…
	KindStripeLive   Kind = "stripe-live-key"   // sk_live_…, rk_live_…
	KindJWT          Kind = "jwt"               // a signed JSON Web Token
	KindPEM          Kind = "pem-private-key"   // a PEM (or PGP armored) private key block
	KindURLPassword  Kind = "url-password"      // the password in scheme://user:password@host
	KindQuerySecret  Kind = "query-secret"      // ?api_key=… and other secret-named query parameters

	// The kinds below are reported by FindAll only (see there).
	KindStripe          Kind = "stripe-key"            // sk_test_…, rk_test_…, whsec_…
	KindAWSSecretKey    Kind = "aws-secret-access-key" // 40 characters, next to AWS or "secret"
	KindAWSSessionToken Kind = "aws-session-token"     // IQoJb3JpZ2luX2Vj…, FwoGZXIvYXdzE…
	KindServiceToken    Kind = "service-token"         // glpat-…, npm_…, hf_…, pypi-…, ya29.…
	KindBasic           Kind = "basic-credentials"     // the base64 user:password of `Basic …`
	KindNamedValue      Kind = "named-value"           // the value of password=…, token: …, --api-key …
)

var kindLabels = map[Kind]string{
	KindSKKey:           "sk- API key",
	KindBearer:          "bearer token",
	KindHex:             "hexadecimal secret",
	KindGitHub:          "GitHub token",
	KindSlack:           "Slack token",
	KindAWSKeyID:        "AWS access key id",
	KindGoogleAPIKey:    "Google API key",
	KindStripeLive:      "Stripe live key",
	KindJWT:             "JSON Web Token",
	KindPEM:             "PEM private key",
	KindURLPassword:     "password in a URL",
	KindQuerySecret:     "secret query parameter",
	KindStripe:          "Stripe secret",
	KindAWSSecretKey:    "AWS secret access key",
	KindAWSSessionToken: "AWS session token",
	KindServiceToken:    "API token",
	KindBasic:           "Basic credentials",
	KindNamedValue:      "credential value",
}

// Label returns a short human description of the kind, such as "GitHub token".
func (k Kind) Label() string {
	if l, ok := kindLabels[k]; ok {
		return l
	}
	return string(k)
}

// Match is one secret found in a string: its kind and the byte span
// [Start, End) of the secret value.
type Match struct {
	Kind       Kind
	Start, End int
}

// matcher tries to recognise a secret whose trigger byte is s[i]. A
// matcher sees every position of the text whose byte it is registered
// for, so the text is scanned once whatever the number of detectors.
type matcher func(st *cursor, s string, i int) (Match, bool)

// triggers maps a byte to the matchers that may start there: field for
// Find and FindField, all for FindAll. When two matches cover the same
// span, the kind of the matcher with the lower rank wins, so a GitHub token
// after `Bearer ` is reported as a GitHub token.
var triggers triggerTables

type triggerTables struct{ field, all [256][]prioritised }

type prioritised struct {
	match matcher
	rank  int
	// next, when set, holds every byte that can follow the trigger byte
	// in a match: the matcher is not called at a trigger followed by any
	// other byte (or by none), which it would refuse (#20: most letters
	// trigger some matcher, and the call cost more than the refusal).
	next string
}

func init() {
	register := func(bytes, next string, m matcher, rank int, allOnly bool) {
		for i := 0; i < len(bytes); i++ {
			c := bytes[i]
			triggers.all[c] = append(triggers.all[c], prioritised{m, rank, next})
			if !allOnly {
				triggers.field[c] = append(triggers.field[c], prioritised{m, rank, next})
			}
		}
	}
	// Ranks follow the order of specificity: the most specific kind first.
	// The second argument is next: the second bytes of each matcher's
	// prefixes (see there), empty for the matchers without a prefix.
	register("-", "-", matchPEM, 0, false)                 // -----BEGIN
	register("g", "hi", matchGitHub, 1, false)             // gh?_, github_pat_
	register("x", "o", matchSlackToken, 2, false)          // xox?-
	register("h", "o", matchSlackHook, 2, false)           // hooks.slack.com
	register("sr", "k", matchStripeLive, 3, false)         // sk_live_, rk_live_
	register("srw", "kh", matchStripe, 3, true)            // sk_test_, rk_test_, whsec_
	register("A", "KSBC", matchAWSKeyID, 4, false)         // AKIA, ASIA, ABIA, ACCA
	register("IF", "Qw", matchAWSSessionToken, 4, true)    // IQoJ…, FwoG…, FQoG…
	register("A", "I", matchGoogleAPIKey, 5, false)        // AIza
	register("e", "y", matchJWT, 6, false)                 // eyJ
	register("s", "k", matchSKKey, 7, false)               // sk-
	register("gnhpy", "lpfya", matchServiceToken, 7, true) // glpat-, npm_, hf_, pypi-, ya29.
	register(":", "/", matchURLPassword, 8, false)         // ://
	register("?&", "", matchQuerySecret, 9, false)
	register("Bb", "e", matchBearer, 10, false) // Bearer
	register("Bb", "a", matchBasic, 10, true)   // Basic
	register("=:", "", matchNamedValue, 12, true)
	register("-", "", matchFlagValue, 12, true)
	register("i", "s", matchIsValue, 12, true) // is
	register("p", "a", matchNetrc, 12, true)   // password
}

// Ranks of the detectors that are not triggered by one byte.
const (
	rankHex       = 11
	rankAWSSecret = 4
)

// ranked is a match with the rank of the matcher that found it.
type ranked struct {
	Match
	rank int
}

// Find returns the secrets in s that can be recognised without knowing
// where s came from, sorted by position, without overlaps.
func Find(s string) []Match { return scan("", s, false, false) }

// FindField is Find for a value stored under key (a JSON member name, a
// header name): it also reports runs of 32 or more hexadecimal digits when
// the key names a secret.
func FindField(key, value string) []Match {
	return scan(key, value, hasHexRun(value) && IsSecretKey(key), false)
}

// FindAll is FindField with every detector trace redaction uses: it also
// reports Stripe test and webhook secrets, AWS secret access keys (40
// characters with AWS, "secret" or an access key id before them, or under
// a key naming AWS or a secret) and session tokens, service tokens
// (GitLab, npm, Hugging Face, PyPI, Google OAuth), the base64 user:password
// of `Basic …`, and the values given to credential names in text —
// `password=…`, `DB_PASSWORD=…`, `password: …` (YAML), `"token": "…"`,
// header lines (`Authorization: …`, also inside a quoted command-line
// argument), `--api-key …`, `-u user:password`, netrc's
// `password …` and prose's "the password is …" (see named.go for the
// exact rules).
//
// Its extra kinds are kept out of FindField because they need a variable
// name for the linter's fix that the linter does not have yet.
func FindAll(key, value string) []Match {
	return scan(key, value, hasHexRun(value) && IsSecretKey(key), true)
}

// FindAllContext is FindAll that gives up when ctx ends, with ctx's error
// and no matches: the text must then not be shown as if it were searched.
// The context is looked at every checkEvery bytes of the text.
func FindAllContext(ctx context.Context, key, value string) ([]Match, error) {
	return scanContext(ctx, &triggers, key, value, hasHexRun(value) && IsSecretKey(key), true)
}

// checkEvery is how many bytes of a text a scan reads between looks at its
// context.
const checkEvery = 64 << 10

func scan(key, s string, hex, all bool) []Match {
	return scanWith(&triggers, key, s, hex, all)
}

// scanWith is scan with the given triggers (a test runs it without next).
func scanWith(tt *triggerTables, key, s string, hex, all bool) []Match {
	found, _ := scanContext(nil, tt, key, s, hex, all)
	return found
}

// scanContext is scanWith under ctx (nil: none).
func scanContext(ctx context.Context, tt *triggerTables, key, s string, hex, all bool) ([]Match, error) {
	table := &tt.field
	if all {
		table = &tt.all
	}
	var found []ranked
	st := &cursor{s: s}
	for i := 0; i < len(s); i++ {
		if ctx != nil && i%checkEvery == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		for _, t := range table[s[i]] {
			if t.next != "" && (i+1 >= len(s) || strings.IndexByte(t.next, s[i+1]) < 0) {
				continue
			}
			if m, ok := t.match(st, s, i); ok {
				found = append(found, ranked{m, t.rank})
			}
		}
	}
	if hex {
		for _, m := range findHex(s) {
			found = append(found, ranked{m, rankHex})
		}
	}
	if all && len(s) >= awsSecretLen {
		keyID := false
		for _, f := range found {
			keyID = keyID || f.Kind == KindAWSKeyID
		}
		for _, m := range findAWSSecret(key, s, keyID) {
			found = append(found, ranked{m, rankAWSSecret})
		}
	}
	return resolve(found), nil
}

// resolve sorts matches by start, longest first, then by rank, and merges
// every match that overlaps one kept before it into that one (which keeps
// its kind), so that no part of a secret found by one detector survives
// because another found a shorter span first.
func resolve(found []ranked) []Match {
	if len(found) == 0 {
		return nil
	}
	sort.Slice(found, func(i, j int) bool {
		a, b := found[i], found[j]
		switch {
		case a.Start != b.Start:
			return a.Start < b.Start
		case a.End != b.End:
			return a.End > b.End
		}
		return a.rank < b.rank
	})
	kept := []Match{found[0].Match}
	for _, m := range found[1:] {
		last := &kept[len(kept)-1]
		switch {
		case m.Start >= last.End:
			kept = append(kept, m.Match)
		case m.End > last.End:
			last.End = m.End
		}
	}
	return kept
}

// Character classes of the token shapes.
func isDigit(c byte) bool { return c >= '0' && c <= '9' }
func isUpper(c byte) bool { return c >= 'A' && c <= 'Z' }
func isLower(c byte) bool { return c >= 'a' && c <= 'z' }
func isAlpha(c byte) bool { return isUpper(c) || isLower(c) }
func isAlnum(c byte) bool { return isAlpha(c) || isDigit(c) }
func isHex(c byte) bool   { return isDigit(c) || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' }

// isWordByte reports letters, digits, '_' and '-': the bytes of key-like
// tokens and of the base64url alphabet. A prefix preceded by one of them is
// inside a longer word, not the start of a key.
func isWordByte(c byte) bool { return isAlnum(c) || c == '_' || c == '-' }

func isUpperAlnum(c byte) bool    { return isUpper(c) || isDigit(c) }
func isTokenByte(c byte) bool     { return isAlnum(c) || strings.IndexByte("._~+/=-", c) >= 0 }
func isQueryValue(c byte) bool    { return isAlnum(c) || strings.IndexByte("._~-%+/=", c) >= 0 }
func isSlackHookByte(c byte) bool { return isAlnum(c) || c == '/' }
func isBase64Byte(c byte) bool    { return isAlnum(c) || c == '+' || c == '/' || c == '=' }

// boundaryBefore reports whether position i starts a token: the byte
// before it does not continue a word.
func boundaryBefore(s string, i int) bool { return i == 0 || !isWordByte(s[i-1]) }

// run returns the end of the run of bytes from i on that satisfy ok.
func run(s string, i int, ok func(byte) bool) int {
	for i < len(s) && ok(s[i]) {
		i++
	}
	return i
}

func hasDigit(s string) bool {
	for i := 0; i < len(s); i++ {
		if isDigit(s[i]) {
			return true
		}
	}
	return false
}

// prefixed matches prefix at i, at a token boundary, followed by at least
// min bytes satisfying ok (and, when digit is set, holding a digit); the
// match is the whole token.
func prefixed(s string, i int, prefix string, ok func(byte) bool, min int, digit bool, kind Kind) (Match, bool) {
	if !strings.HasPrefix(s[i:], prefix) || !boundaryBefore(s, i) {
		return Match{}, false
	}
	body := i + len(prefix)
	end := run(s, body, ok)
	if end-body < min || (digit && !hasDigit(s[body:end])) {
		return Match{}, false
	}
	return Match{Kind: kind, Start: i, End: end}, true
}

// matchSKKey matches sk-… keys whose body looks generated rather than
// composed: one dash- or underscore-separated part of 16 or more
// characters, or of 8 or more that mixes two of upper case, lower case and
// digits. A product code such as sk-1000-blue-xlarge is left alone.
func matchSKKey(st *cursor, s string, i int) (Match, bool) {
	m, ok := prefixed(s, i, "sk-", isWordByte, 10, false, KindSKKey)
	if !ok || !randomParts(s[i+3:m.End]) {
		return Match{}, false
	}
	return m, true
}

// randomParts reports whether one part of body (cut at '-' and '_') is 16
// or more characters long, or 8 or more and of mixed character classes.
func randomParts(body string) bool {
	for len(body) > 0 {
		n := strings.IndexAny(body, "-_")
		if n < 0 {
			n = len(body)
		}
		part := body[:n]
		if len(part) >= 16 || len(part) >= 8 && classes(part) >= 2 {
			return true
		}
		if n == len(body) {
			break
		}
		body = body[n+1:]
	}
	return false
}

// The character classes classMask tells apart.
const (
	classUpper = 1 << iota
	classLower
	classDigit
	classOther
)

// classMask returns the character classes that stand in s, one bit each.
func classMask(s string) int {
	m := 0
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case isUpper(c):
			m |= classUpper
		case isLower(c):
			m |= classLower
		case isDigit(c):
			m |= classDigit
		default:
			m |= classOther
		}
	}
	return m
}

// classes counts the character classes (upper case, lower case, digits)
// in s.
func classes(s string) int {
	return bits.OnesCount(uint(classMask(s) &^ classOther))
}

var githubPrefixes = []string{"ghp_", "gho_", "ghu_", "ghs_", "ghr_"}

func matchGitHub(st *cursor, s string, i int) (Match, bool) {
	for _, p := range githubPrefixes {
		if m, ok := prefixed(s, i, p, isAlnum, 36, false, KindGitHub); ok {
			return m, true
		}
	}
	return prefixed(s, i, "github_pat_", func(c byte) bool { return isAlnum(c) || c == '_' }, 22, false, KindGitHub)
}

var slackPrefixes = []string{"xoxb-", "xoxp-", "xoxa-", "xoxr-", "xoxs-", "xoxe-"}

func matchSlackToken(st *cursor, s string, i int) (Match, bool) {
	for _, p := range slackPrefixes {
		if m, ok := prefixed(s, i, p, func(c byte) bool { return isAlnum(c) || c == '-' }, 10, true, KindSlack); ok {
			return m, true
		}
	}
	return Match{}, false
}

// matchSlackHook matches the secret path of an incoming-webhook URL.
func matchSlackHook(st *cursor, s string, i int) (Match, bool) {
	const hook = "hooks.slack.com/services/"
	if !strings.HasPrefix(s[i:], hook) {
		return Match{}, false
	}
	body := i + len(hook)
	end := run(s, body, isSlackHookByte)
	return Match{Kind: KindSlack, Start: body, End: end}, end-body >= 20
}

func matchStripeLive(st *cursor, s string, i int) (Match, bool) {
	if m, ok := prefixed(s, i, "sk_live_", isAlnum, 16, false, KindStripeLive); ok {
		return m, true
	}
	return prefixed(s, i, "rk_live_", isAlnum, 16, false, KindStripeLive)
}

// matchStripe matches Stripe's test-mode secret and restricted keys and
// webhook signing secrets. Publishable keys (pk_…) are public by design.
func matchStripe(st *cursor, s string, i int) (Match, bool) {
	if m, ok := prefixed(s, i, "sk_test_", isAlnum, 16, false, KindStripe); ok {
		return m, true
	}
	if m, ok := prefixed(s, i, "rk_test_", isAlnum, 16, false, KindStripe); ok {
		return m, true
	}
	return prefixed(s, i, "whsec_", isAlnum, 24, false, KindStripe)
}

// matchAWSKeyID matches the 20-character access key id: a four-letter
// prefix and exactly sixteen upper-case letters or digits.
func matchAWSKeyID(st *cursor, s string, i int) (Match, bool) {
	if len(s)-i < 20 || !boundaryBefore(s, i) {
		return Match{}, false
	}
	switch s[i : i+4] {
	case "AKIA", "ASIA", "ABIA", "ACCA":
	default:
		return Match{}, false
	}
	end := run(s, i+4, isUpperAlnum)
	return Match{Kind: KindAWSKeyID, Start: i, End: end}, end-i == 20 && (end == len(s) || !isAlnum(s[end]))
}

// awsSessionPrefixes start the base64 of an STS session token.
var awsSessionPrefixes = []string{"IQoJb3JpZ2luX2Vj", "FwoGZXIvYXdzE", "FQoGZXIvYXdzE"}

// matchAWSSessionToken matches an STS session token: one of its known
// openings followed by base64 (or its URL encoding), 100 characters or
// more in all.
func matchAWSSessionToken(st *cursor, s string, i int) (Match, bool) {
	if !boundaryBefore(s, i) {
		return Match{}, false
	}
	for _, p := range awsSessionPrefixes {
		if strings.HasPrefix(s[i:], p) {
			end := run(s, i+len(p), func(c byte) bool { return isBase64Byte(c) || c == '%' })
			return Match{Kind: KindAWSSessionToken, Start: i, End: end}, end-i >= 100
		}
	}
	return Match{}, false
}

func matchGoogleAPIKey(st *cursor, s string, i int) (Match, bool) {
	if !strings.HasPrefix(s[i:], "AIza") || !boundaryBefore(s, i) {
		return Match{}, false
	}
	end := run(s, i+4, isWordByte)
	return Match{Kind: KindGoogleAPIKey, Start: i, End: end}, end-i == 39
}

// serviceTokens are the prefixes of other services' tokens, with the
// bytes and the least length of their bodies.
var serviceTokens = []struct {
	prefix string
	ok     func(byte) bool
	min    int
}{
	{"glpat-", isWordByte, 20},               // GitLab personal access token
	{"npm_", isAlnum, 36},                    // npm access token
	{"hf_", isAlnum, 30},                     // Hugging Face token
	{"pypi-AgEIcHlwaS5vcmc", isWordByte, 50}, // PyPI API token
	{"ya29.", func(c byte) bool { return isWordByte(c) || c == '.' }, 50}, // Google OAuth access token
}

func matchServiceToken(st *cursor, s string, i int) (Match, bool) {
	for _, t := range serviceTokens {
		if s[i] != t.prefix[0] {
			continue
		}
		if m, ok := prefixed(s, i, t.prefix, t.ok, t.min, false, KindServiceToken); ok {
			return m, true
		}
	}
	return Match{}, false
}

// matchJWT matches header.payload.signature where header and payload are
// base64url JSON objects (so both start with "eyJ").
func matchJWT(st *cursor, s string, i int) (Match, bool) {
	if !strings.HasPrefix(s[i:], "eyJ") || !boundaryBefore(s, i) {
		return Match{}, false
	}
	h := run(s, i+3, isWordByte)
	if h >= len(s) || s[h] != '.' || !strings.HasPrefix(s[h+1:], "eyJ") {
		return Match{}, false
	}
	p := run(s, h+4, isWordByte)
	if p >= len(s) || s[p] != '.' {
		return Match{}, false
	}
	sig := run(s, p+1, isWordByte)
	return Match{Kind: KindJWT, Start: i, End: sig}, sig-(p+1) >= 8
}

// matchPEM matches a private key block — PEM (`-----BEGIN … PRIVATE
// KEY-----`) or OpenPGP armor (`-----BEGIN PGP PRIVATE KEY BLOCK-----`) —
// from its BEGIN line to its END line (or to the end of the text when the
// block is cut short). Public keys, certificates and signatures are left
// alone.
func matchPEM(st *cursor, s string, i int) (Match, bool) {
	const begin, end, dashes = "-----BEGIN ", "-----END ", "-----"
	if !strings.HasPrefix(s[i:], begin) {
		return Match{}, false
	}
	from := i + len(begin)
	k := strings.Index(s[from:], dashes)
	if k < 0 || k > 64 {
		return Match{}, false
	}
	if label := s[from : from+k]; !strings.HasSuffix(label, "PRIVATE KEY") && !strings.HasSuffix(label, "PRIVATE KEY BLOCK") {
		return Match{}, false
	}
	stop := len(s)
	if j := st.index(from, end); j >= 0 {
		tail := j + len(end)
		if k := strings.Index(s[tail:], dashes); k >= 0 {
			stop = tail + k + len(dashes)
		}
	}
	return Match{Kind: KindPEM, Start: i, End: stop}, true
}

// matchURLPassword matches the password of scheme://user:password@host,
// triggered at the colon of "://". Masked (`****`), templated
// (`{{pass}}`), referenced (`${DB_PASSWORD}`) and placeholder
// (`<password>`) passwords are left alone.
//
// A password may hold a raw '/', '?', '#' or space, which end the
// authority of a well-formed URL: when the authority up to the first of
// them has a colon but no '@', the password runs on to the next '@' on the
// line that is followed by a host name, unless what follows the colon is a
// port (digits, then '/', '?', '#', white space or the end).
func matchURLPassword(st *cursor, s string, i int) (Match, bool) {
	if !strings.HasPrefix(s[i:], "://") || i == 0 || !isAlpha(s[i-1]) {
		return Match{}, false
	}
	from := i + 3
	auth := from + strings.IndexAny(s[from:], "/?# \t\r\n\"'<>")
	if auth < from {
		auth = len(s)
	}
	var pwStart, pwEnd int
	if at := strings.LastIndexByte(s[from:auth], '@'); at >= 0 {
		colon := strings.IndexByte(s[from:from+at], ':')
		if colon < 0 {
			return Match{}, false
		}
		pwStart, pwEnd = from+colon+1, from+at
	} else {
		colon := strings.IndexByte(s[from:auth], ':')
		if colon < 0 {
			return Match{}, false
		}
		pwStart = from + colon + 1
		if d := run(s, pwStart, isDigit); d > pwStart && d-pwStart <= 5 && (d == len(s) || strings.IndexByte("/?# \t\r\n\"'<>", s[d]) >= 0) {
			return Match{}, false // a port
		}
		pwEnd = hostAt(s, pwStart)
		if pwEnd < 0 {
			return Match{}, false
		}
	}
	pw := s[pwStart:pwEnd]
	if pw == "" || strings.Trim(pw, "*xX•") == "" || placeholder(pw) {
		return Match{}, false
	}
	return Match{Kind: KindURLPassword, Start: pwStart, End: pwEnd}, true
}

// hostAt returns the position of the first '@' from i on, within the line
// and 128 bytes, that is followed by a host name and the end of an
// authority; -1 when there is none.
func hostAt(s string, i int) int {
	limit := min(len(s), i+128)
	for j := i; j < limit; j++ {
		switch s[j] {
		case '\n', '\r', '"', '\'', '<', '>':
			return -1
		case ':':
			if strings.HasPrefix(s[j:], "://") {
				return -1
			}
		case '@':
			h := run(s, j+1, func(c byte) bool { return isAlnum(c) || c == '.' || c == '-' || c == '_' })
			if h > j+1 && (h == len(s) || strings.IndexByte(":/?# \t\r\n\"'", s[h]) >= 0) {
				return j
			}
		}
	}
	return -1
}

// matchQuerySecret matches the value of a secret-named query parameter
// (`?api_key=…`, `&token=…`) of 12 or more characters mixing letters and
// digits.
func matchQuerySecret(st *cursor, s string, i int) (Match, bool) {
	eq := run(s, i+1, isWordByte)
	if eq >= len(s) || s[eq] != '=' || eq == i+1 {
		return Match{}, false
	}
	end := run(s, eq+1, isQueryValue)
	v := s[eq+1 : end]
	if len(v) < 12 || !hasDigit(v) || strings.IndexFunc(v, func(r rune) bool { return r < 128 && isAlpha(byte(r)) }) < 0 {
		return Match{}, false
	}
	return Match{Kind: KindQuerySecret, Start: eq + 1, End: end}, IsSecretKey(s[i+1 : eq])
}

// matchBearer matches the token of `Bearer <token>` (either case of the
// scheme's first letter): eight or more token characters, with a digit or
// another non-letter in them or twenty or more long, so that "Bearer
// authentication" stays prose. A placeholder (YOUR_TOKEN) is left alone.
func matchBearer(st *cursor, s string, i int) (Match, bool) {
	tok, end, ok := afterScheme(s, i, "earer")
	if !ok {
		return Match{}, false
	}
	t := s[tok:end]
	if len(t) < 8 || placeholder(t) || len(t) < 20 && strings.IndexFunc(t, func(r rune) bool { return r >= 128 || !isAlpha(byte(r)) }) < 0 {
		return Match{}, false
	}
	return Match{Kind: KindBearer, Start: tok, End: end}, true
}

// matchBasic matches the credentials of `Basic <base64>`: base64 that
// decodes to printable text holding a colon and something after it
// ("user:password").
func matchBasic(st *cursor, s string, i int) (Match, bool) {
	tok, end, ok := afterScheme(s, i, "asic")
	if !ok || end-tok < 8 || !isBasicCredentials(s[tok:end]) {
		return Match{}, false
	}
	return Match{Kind: KindBasic, Start: tok, End: end}, true
}

// afterScheme returns the token after an authentication scheme word (its
// first letter in either case at s[i], rest as given) and the blanks after
// it.
func afterScheme(s string, i int, rest string) (tok, end int, ok bool) {
	if !strings.HasPrefix(s[i+1:], rest) || !boundaryBefore(s, i) {
		return 0, 0, false
	}
	w := i + 1 + len(rest)
	tok = run(s, w, func(c byte) bool { return c == ' ' || c == '\t' })
	if tok == w {
		return 0, 0, false
	}
	return tok, run(s, tok, isTokenByte), true
}

// isBasicCredentials reports whether b64 decodes to printable
// "user:password".
func isBasicCredentials(b64 string) bool {
	raw := strings.TrimRight(b64, "=")
	if strings.ContainsAny(raw, "=-_.~") {
		return false
	}
	dec, err := base64.RawStdEncoding.DecodeString(raw)
	if err != nil {
		return false
	}
	colon := -1
	for k, c := range dec {
		if c < 0x20 || c > 0x7e {
			return false
		}
		if c == ':' && colon < 0 {
			colon = k
		}
	}
	return colon >= 0 && colon < len(dec)-1
}

// IsBasicCredentials reports whether s is the base64 of printable
// "user:password", as the `auth` member of a Docker config holds.
func IsBasicCredentials(s string) bool {
	return len(s) >= 8 && run(s, 0, isBase64Byte) == len(s) && isBasicCredentials(s)
}

// hasHexRun reports whether s holds 32 hexadecimal digits in a row, the
// cheap test before the key is looked at.
func hasHexRun(s string) bool {
	n := 0
	for i := 0; i < len(s); i++ {
		if isHex(s[i]) {
			if n++; n >= 32 {
				return true
			}
		} else {
			n = 0
		}
	}
	return false
}

// findHex returns the runs of 32 or more hexadecimal digits that stand
// alone (not inside a longer word). Only FindField looks for them.
func findHex(s string) []Match {
	var out []Match
	for i := 0; i < len(s); {
		if !isHex(s[i]) || !boundaryBefore(s, i) {
			i++
			continue
		}
		end := run(s, i, isHex)
		if end-i >= 32 && (end == len(s) || !isWordByte(s[end])) {
			out = append(out, Match{Kind: KindHex, Start: i, End: end})
		}
		i = end
	}
	return out
}

// awsSecretLen is the length of an AWS secret access key.
const awsSecretLen = 40

// awsContext is how far before a 40-character run the words AWS or
// "secret" are looked for.
const awsContext = 256

// findAWSSecret returns the AWS secret access keys in s: runs of exactly
// 40 base64 characters (letters, digits, '/', '+') standing alone, with
// upper and lower case letters and a digit, '/' or '+' in them, that come
// with AWS context — an access key id anywhere in s (keyID), a key naming
// AWS or a secret, or "aws" or "secret" (any case) in the 256 bytes before.
// Without context a 40-character identifier is not taken for a key.
func findAWSSecret(key, s string, keyID bool) []Match {
	keyCtx := keyID || awsWord(key)
	if !keyCtx && !strings.Contains(s, "ecret") && !strings.Contains(s, "ECRET") && !hasFold(s, "aws") {
		return nil
	}
	var out []Match
	for i := 0; i+awsSecretLen <= len(s); {
		if !isAlnum(s[i]) && s[i] != '/' && s[i] != '+' {
			i++
			continue
		}
		end := run(s, i, func(c byte) bool { return isAlnum(c) || c == '/' || c == '+' })
		if end-i == awsSecretLen && (i == 0 || strings.IndexByte("_-=", s[i-1]) < 0) &&
			(end == len(s) || strings.IndexByte("_-=", s[end]) < 0) && awsSecretShape(s[i:end]) &&
			(keyCtx || awsWord(s[max(0, i-awsContext):i])) {
			out = append(out, Match{Kind: KindAWSSecretKey, Start: i, End: end})
		}
		i = end
	}
	return out
}

// awsSecretShape reports whether s mixes upper case, lower case and
// something else (digits, '/', '+'), as a secret access key does.
func awsSecretShape(s string) bool {
	m := classMask(s)
	return m&classUpper != 0 && m&classLower != 0 && m&(classDigit|classOther) != 0
}

// awsWord reports whether s mentions AWS or a secret, in any case.
func awsWord(s string) bool { return hasFold(s, "aws") || hasFold(s, "secret") }

// hasFold reports whether s contains word (lower-case ASCII) in any case.
func hasFold(s, word string) bool {
	for i := 0; i+len(word) <= len(s); i++ {
		if s[i]|0x20 == word[0] && strings.EqualFold(s[i:i+len(word)], word) {
			return true
		}
	}
	return false
}
