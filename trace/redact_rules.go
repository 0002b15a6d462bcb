package trace

import (
	"regexp"
	"strings"

	"github.com/reelier/reelier/internal/secrets"
)

// The always-on rules of the format specification (§2.3), which
// internal/secrets deliberately narrows (its sk- and Bearer detectors want
// a digit in the token, and its hex rule wants a whole word naming a
// secret). The trace writer keeps the reference breadth, with one
// refinement each for sk- keys and Bearer credentials so that prose
// survives: the prefix must start a word ("task-management-system" is not
// a key), and a Bearer token made only of letters must be 20 or more long
// ("Bearer authentication" is a phrase, not a credential).
var (
	skKeyRE  = regexp.MustCompile(`sk-[A-Za-z0-9_-]{10,}`)
	bearerRE = regexp.MustCompile(`Bearer\s+[A-Za-z0-9._~+/=-]{8,}`)
	// headerLineRE finds "Name: value" lines in free text.
	headerLineRE = regexp.MustCompile(`(?m)^[ \t]*([A-Za-z][A-Za-z0-9_-]*)[ \t]*:[ \t]*([^\r\n]*[^\s])`)
)

// redactReferenceShapes applies the specification's sk-, Bearer and
// hex-under-a-secret-key rules to s, stored under key.
func redactReferenceShapes(key, s string) string {
	if isHexSecret(s) && hexKey(key) {
		return Redacted
	}
	if strings.Contains(s, "sk-") {
		s = replaceAtWordStart(s, skKeyRE, func(string) bool { return true })
	}
	if strings.Contains(s, "Bearer") {
		s = replaceAtWordStart(s, bearerRE, plausibleBearer)
	}
	return s
}

// hexKeyWords are the reference rule's words for a member name that can
// hold a hexadecimal secret, matched anywhere in the name and in any case,
// so "apiKey" and "x_token" count.
var hexKeyWords = []string{"token", "secret", "key", "password", "authorization"}

func hexKey(key string) bool {
	for _, w := range hexKeyWords {
		if containsFold(key, w) {
			return true
		}
	}
	return false
}

// isHexSecret reports whether s is 32 or more hexadecimal digits and
// nothing else.
func isHexSecret(s string) bool {
	if len(s) < 32 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
			return false
		}
	}
	return true
}

// containsFold reports whether s contains word (lower-case ASCII) in any
// case.
func containsFold(s, word string) bool {
	for i := 0; i+len(word) <= len(s); i++ {
		if strings.EqualFold(s[i:i+len(word)], word) {
			return true
		}
	}
	return false
}

// replaceAtWordStart blanks every match of re that starts a word and that
// keep accepts.
func replaceAtWordStart(s string, re *regexp.Regexp, keep func(string) bool) string {
	locs := re.FindAllStringIndex(s, -1)
	if len(locs) == 0 {
		return s
	}
	var b strings.Builder
	last := 0
	for _, l := range locs {
		if l[0] > 0 && isWordByte(s[l[0]-1]) || !keep(s[l[0]:l[1]]) {
			continue
		}
		b.WriteString(s[last:l[0]])
		b.WriteString(Redacted)
		last = l[1]
	}
	b.WriteString(s[last:])
	return b.String()
}

// plausibleBearer reports whether a "Bearer <token>" match looks like a
// credential rather than a phrase.
func plausibleBearer(m string) bool {
	tok := strings.TrimLeft(m[len("Bearer"):], " \t\r\n\f\v")
	if len(tok) >= 20 {
		return true
	}
	return strings.IndexFunc(tok, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z')
	}) >= 0
}

func isWordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-'
}

// credentialNames are member and header names, lower-cased with every
// separator removed, whose whole value is a credential.
var credentialNames = map[string]bool{
	"authorization": true, "proxyauthorization": true, "cookie": true, "setcookie": true,
	"apikey": true, "xapikey": true, "xauthtoken": true, "xaccesstoken": true, "xapitoken": true,
	"password": true, "passwd": true, "passphrase": true, "secret": true, "clientsecret": true,
	"apisecret": true, "token": true, "accesstoken": true, "refreshtoken": true, "idtoken": true,
	"authtoken": true, "sessiontoken": true, "apitoken": true, "bearertoken": true,
	"privatekey": true, "secretkey": true, "secretaccesskey": true,
}

// credentialSuffixes make a longer name a credential name too ("db_password",
// "stripeApiKey", "githubToken"), unless internal/secrets calls it harmless
// ("next_page_token").
var credentialSuffixes = []string{"password", "passwd", "secret", "apikey", "token", "accesskey", "privatekey"}

// isCredentialName reports whether the value under a member or header name
// is a credential as a whole.
func isCredentialName(name string) bool {
	if name == "" {
		return false
	}
	n := normalizeName(name)
	if credentialNames[n] {
		return true
	}
	for _, suf := range credentialSuffixes {
		if strings.HasSuffix(n, suf) && secrets.IsSecretKey(name) {
			return true
		}
	}
	return false
}

// isCredentialHeader is isCredentialName for a "Name: value" line of free
// text, where only header-shaped names count: a prose line "Token: 3 left"
// is not a header.
func isCredentialHeader(name string) bool {
	switch n := normalizeName(name); {
	case n == "authorization" || n == "proxyauthorization" || n == "cookie" || n == "setcookie":
		return true
	default:
		return strings.Contains(name, "-") && isCredentialName(name)
	}
}

func normalizeName(name string) string {
	var b strings.Builder
	for i := 0; i < len(name); i++ {
		c := name[i]
		switch {
		case c >= 'A' && c <= 'Z':
			b.WriteByte(c + 'a' - 'A')
		case c >= 'a' && c <= 'z' || c >= '0' && c <= '9':
			b.WriteByte(c)
		}
	}
	return b.String()
}

// headerWords are in the name of every header isCredentialHeader accepts.
var headerWords = []string{"auth", "cookie", "key", "token", "secret", "passw", "passphrase"}

// mayNameCredentialHeader is a quick test that spares the header-line
// pattern most strings.
func mayNameCredentialHeader(s string) bool {
	for _, w := range headerWords {
		if containsFold(s, w) {
			return true
		}
	}
	return false
}

// redactHeaderLines blanks the values of credential header lines in s.
func redactHeaderLines(s string) string {
	if !strings.Contains(s, ":") || !mayNameCredentialHeader(s) {
		return s
	}
	locs := headerLineRE.FindAllStringSubmatchIndex(s, -1)
	var b strings.Builder
	last := 0
	for _, l := range locs {
		if !isCredentialHeader(s[l[2]:l[3]]) || s[l[4]:l[5]] == Redacted {
			continue
		}
		b.WriteString(s[last:l[4]])
		b.WriteString(Redacted)
		last = l[5]
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}
