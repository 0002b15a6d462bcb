package secrets

import (
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
	KindPEM          Kind = "pem-private-key"   // a PEM private key block
	KindURLPassword  Kind = "url-password"      // the password in scheme://user:password@host
	KindQuerySecret  Kind = "query-secret"      // ?api_key=… and other secret-named query parameters
)

var kindLabels = map[Kind]string{
	KindSKKey:        "sk- API key",
	KindBearer:       "bearer token",
	KindHex:          "hexadecimal secret",
	KindGitHub:       "GitHub token",
	KindSlack:        "Slack token",
	KindAWSKeyID:     "AWS access key id",
	KindGoogleAPIKey: "Google API key",
	KindStripeLive:   "Stripe live key",
	KindJWT:          "JSON Web Token",
	KindPEM:          "PEM private key",
	KindURLPassword:  "password in a URL",
	KindQuerySecret:  "secret query parameter",
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
type matcher func(s string, i int) (Match, bool)

// triggers maps a byte to the matchers that may start there, in priority
// order: when two matches cover the same span, the kind of the matcher
// listed first in matchers wins, so a GitHub token after `Bearer ` is
// reported as a GitHub token.
var triggers [256][]prioritised

type prioritised struct {
	match matcher
	rank  int
}

func init() {
	register := func(bytes string, m matcher, rank int) {
		for i := 0; i < len(bytes); i++ {
			triggers[bytes[i]] = append(triggers[bytes[i]], prioritised{m, rank})
		}
	}
	// Ranks follow the order of specificity: the most specific kind first.
	register("-", matchPEM, 0)
	register("g", matchGitHub, 1)
	register("x", matchSlackToken, 2)
	register("h", matchSlackHook, 2)
	register("sr", matchStripe, 3)
	register("A", matchAWSKeyID, 4)
	register("A", matchGoogleAPIKey, 5)
	register("e", matchJWT, 6)
	register("s", matchSKKey, 7)
	register(":", matchURLPassword, 8)
	register("?&", matchQuerySecret, 9)
	register("Bb", matchBearer, 10)
}

// rankHex ranks the key-dependent hex detector below every matcher.
const rankHex = 11

// ranked is a match with the rank of the matcher that found it.
type ranked struct {
	Match
	rank int
}

// Find returns the secrets in s that can be recognised without knowing
// where s came from, sorted by position, without overlaps.
func Find(s string) []Match { return scan(s, false) }

// FindField is Find for a value stored under key (a JSON member name, a
// header name): it also reports runs of 32 or more hexadecimal digits when
// the key names a secret.
func FindField(key, value string) []Match {
	return scan(value, hasHexRun(value) && IsSecretKey(key))
}

func scan(s string, hex bool) []Match {
	var found []ranked
	for i := 0; i < len(s); i++ {
		for _, t := range triggers[s[i]] {
			if m, ok := t.match(s, i); ok {
				found = append(found, ranked{m, t.rank})
			}
		}
	}
	if hex {
		for _, m := range findHex(s) {
			found = append(found, ranked{m, rankHex})
		}
	}
	return resolve(found)
}

// resolve sorts matches by start, longest first, then by rank, and drops
// every match that overlaps one kept before it.
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
		if m.Start >= kept[len(kept)-1].End {
			kept = append(kept, m.Match)
		}
	}
	return kept
}

// Character classes of the token shapes.
func isDigit(c byte) bool { return c >= '0' && c <= '9' }
func isUpper(c byte) bool { return c >= 'A' && c <= 'Z' }
func isAlpha(c byte) bool { return isUpper(c) || c >= 'a' && c <= 'z' }
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

func matchSKKey(s string, i int) (Match, bool) {
	return prefixed(s, i, "sk-", isWordByte, 10, true, KindSKKey)
}

var githubPrefixes = []string{"ghp_", "gho_", "ghu_", "ghs_", "ghr_"}

func matchGitHub(s string, i int) (Match, bool) {
	for _, p := range githubPrefixes {
		if m, ok := prefixed(s, i, p, isAlnum, 36, false, KindGitHub); ok {
			return m, true
		}
	}
	return prefixed(s, i, "github_pat_", func(c byte) bool { return isAlnum(c) || c == '_' }, 22, false, KindGitHub)
}

var slackPrefixes = []string{"xoxb-", "xoxp-", "xoxa-", "xoxr-", "xoxs-", "xoxe-"}

func matchSlackToken(s string, i int) (Match, bool) {
	for _, p := range slackPrefixes {
		if m, ok := prefixed(s, i, p, func(c byte) bool { return isAlnum(c) || c == '-' }, 10, true, KindSlack); ok {
			return m, true
		}
	}
	return Match{}, false
}

// matchSlackHook matches the secret path of an incoming-webhook URL.
func matchSlackHook(s string, i int) (Match, bool) {
	const hook = "hooks.slack.com/services/"
	if !strings.HasPrefix(s[i:], hook) {
		return Match{}, false
	}
	body := i + len(hook)
	end := run(s, body, isSlackHookByte)
	return Match{Kind: KindSlack, Start: body, End: end}, end-body >= 20
}

func matchStripe(s string, i int) (Match, bool) {
	if m, ok := prefixed(s, i, "sk_live_", isAlnum, 16, false, KindStripeLive); ok {
		return m, true
	}
	return prefixed(s, i, "rk_live_", isAlnum, 16, false, KindStripeLive)
}

// matchAWSKeyID matches the 20-character access key id: a four-letter
// prefix and exactly sixteen upper-case letters or digits.
func matchAWSKeyID(s string, i int) (Match, bool) {
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

func matchGoogleAPIKey(s string, i int) (Match, bool) {
	if !strings.HasPrefix(s[i:], "AIza") || !boundaryBefore(s, i) {
		return Match{}, false
	}
	end := run(s, i+4, isWordByte)
	return Match{Kind: KindGoogleAPIKey, Start: i, End: end}, end-i == 39
}

// matchJWT matches header.payload.signature where header and payload are
// base64url JSON objects (so both start with "eyJ").
func matchJWT(s string, i int) (Match, bool) {
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

// matchPEM matches a private key block from its BEGIN line to its END line
// (or to the end of the text when the block is cut short).
func matchPEM(s string, i int) (Match, bool) {
	const begin, end, dashes = "-----BEGIN ", "-----END ", "-----"
	if !strings.HasPrefix(s[i:], begin) {
		return Match{}, false
	}
	from := i + len(begin)
	k := strings.Index(s[from:], dashes)
	if k < 0 || !strings.HasSuffix(s[from:from+k], "PRIVATE KEY") {
		return Match{}, false
	}
	stop := len(s)
	if j := strings.Index(s[from:], end); j >= 0 {
		tail := from + j + len(end)
		if k := strings.Index(s[tail:], dashes); k >= 0 {
			stop = tail + k + len(dashes)
		}
	}
	return Match{Kind: KindPEM, Start: i, End: stop}, true
}

// matchURLPassword matches the password of scheme://user:password@host,
// triggered at the colon of "://". Masked (`****`) and templated
// (`{{pass}}`) passwords are left alone.
func matchURLPassword(s string, i int) (Match, bool) {
	if !strings.HasPrefix(s[i:], "://") || i == 0 || !isAlpha(s[i-1]) {
		return Match{}, false
	}
	from := i + 3
	auth := from + strings.IndexAny(s[from:], "/?# \t\n\"")
	if auth < from {
		auth = len(s)
	}
	at := strings.LastIndexByte(s[from:auth], '@')
	if at < 0 {
		return Match{}, false
	}
	colon := strings.IndexByte(s[from:from+at], ':')
	if colon < 0 {
		return Match{}, false
	}
	pw := s[from+colon+1 : from+at]
	if pw == "" || strings.Contains(pw, "{{") || strings.Trim(pw, "*xX•") == "" {
		return Match{}, false
	}
	return Match{Kind: KindURLPassword, Start: from + colon + 1, End: from + at}, true
}

// matchQuerySecret matches the value of a secret-named query parameter
// (`?api_key=…`, `&token=…`) of 12 or more characters mixing letters and
// digits.
func matchQuerySecret(s string, i int) (Match, bool) {
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
// scheme's first letter): eight or more token characters, one a digit.
func matchBearer(s string, i int) (Match, bool) {
	if !strings.HasPrefix(s[i+1:], "earer") || !boundaryBefore(s, i) {
		return Match{}, false
	}
	tok := run(s, i+6, func(c byte) bool { return c == ' ' || c == '\t' })
	if tok == i+6 {
		return Match{}, false
	}
	end := run(s, tok, isTokenByte)
	return Match{Kind: KindBearer, Start: tok, End: end}, end-tok >= 8 && hasDigit(s[tok:end])
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
