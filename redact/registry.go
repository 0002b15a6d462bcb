package redact

import (
	"context"
	"encoding/base64"
	"net/url"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf8"
)

// The process has one set of secrets the user handed it: the values of
// the variables named by REELIER_REDACT, header values expanded from the
// environment (--wrap-header 'X-Api-Key: $KEY'), and --secret-var values.
// Whoever learns one registers it here (RegisterSecret), and every
// Redactor — made by RedactorFromEnv, NewRedactor or as a zero value, for
// the recorded trace, the --trace file, --verbose output, receipts, run
// records, the ledger — blanks it, as «redacted:NAME», in what it
// redacts: raw, percent-encoded, or inside standard or URL-safe base64.
// The agent and the servers still get the real value; only what is
// recorded or shown is redacted.

// registered is the process's secrets, longest value first; it is
// replaced whole on each registration, so readers need no lock.
var registered atomic.Pointer[[]registeredSecret]

var registerMu sync.Mutex

// registeredSecret is one secret and the forms it is looked for in.
type registeredSecret struct {
	name  string
	value string
	// forms are the value's encodings that differ from it: percent-
	// encoded (query and path escaping) and base64 (standard and URL-safe,
	// at each of the three alignments a value can have inside a longer
	// base64 text: only the characters that depend on the value alone).
	forms []string
	b64   []string // the base64 forms: a match blanks its whole base64 run
}

// RegisterSecret adds value, given by the user under name (a variable or
// header name, used in the «redacted:NAME» that replaces it), to the
// secrets every Redactor of the process blanks. Values shorter than six
// bytes are ignored (they would blank ordinary words); registering a
// value twice is harmless. It is safe to call from any goroutine.
func RegisterSecret(name, value string) {
	if len(value) < minNamedSecret || strings.TrimSpace(value) == "" {
		return
	}
	registerMu.Lock()
	defer registerMu.Unlock()
	var list []registeredSecret
	if p := registered.Load(); p != nil {
		for _, s := range *p {
			if s.value == value {
				return
			}
		}
		list = append(list, *p...)
	}
	list = append(list, newRegistered(name, value))
	sort.SliceStable(list, func(i, j int) bool { return len(list[i].value) > len(list[j].value) })
	registered.Store(&list)
}

// RegisterEnvSecrets registers the values of the environment variables
// named by REELIER_REDACT, looked up with lookup (os.LookupEnv).
func RegisterEnvSecrets(getenv func(string) string, lookup func(string) (string, bool)) {
	for _, name := range strings.Split(getenv(RedactEnv), ",") {
		name = strings.TrimSpace(name)
		if name == "" {
			continue
		}
		if v, ok := lookup(name); ok {
			RegisterSecret(name, v)
		}
	}
}

// registeredSecrets returns the process's registered secrets.
func registeredSecrets() []registeredSecret {
	if p := registered.Load(); p != nil {
		return *p
	}
	return nil
}

func newRegistered(name, value string) registeredSecret {
	s := registeredSecret{name: name, value: value}
	add := func(list *[]string, f string) {
		if len(f) >= minNamedSecret && f != value && !strings.Contains(value, f) {
			for _, g := range *list {
				if g == f {
					return
				}
			}
			*list = append(*list, f)
		}
	}
	add(&s.forms, url.QueryEscape(value))
	add(&s.forms, url.PathEscape(value))
	add(&s.forms, strings.ReplaceAll(url.QueryEscape(value), "+", "%20"))
	for k := 0; k < 3; k++ {
		pad := make([]byte, k, k+len(value))
		enc := base64.StdEncoding.EncodeToString(append(pad, value...))
		// The first characters encode the pad bytes with the value's
		// first ones; the last ones the value's last bytes with what
		// follows it. Keep only those that depend on the value alone.
		from := (k*8 + 5) / 6
		to := ((k + len(value)) / 3) * 4
		if to-from < 8 {
			continue
		}
		core := enc[from:to]
		add(&s.b64, core)
		add(&s.b64, strings.NewReplacer("+", "-", "/", "_").Replace(core))
	}
	return s
}

// blankRegistered replaces every registered secret in s, in any of its
// forms: «redacted:NAME» for the value and its percent-encodings, and
// the whole run of base64 a base64 form sits in.
func blankRegistered(named []namedSecret, s string) string {
	reg := registeredSecrets()
	for _, n := range named {
		s = strings.ReplaceAll(s, n.value, NamedRedacted(n.name))
	}
	for _, r := range reg {
		s = strings.ReplaceAll(s, r.value, NamedRedacted(r.name))
		for _, f := range r.forms {
			s = strings.ReplaceAll(s, f, NamedRedacted(r.name))
		}
		for _, f := range r.b64 {
			for from := 0; from < len(s); {
				k := strings.Index(s[from:], f)
				if k < 0 {
					break
				}
				k += from
				start, end := base64Run(s, k), base64RunEnd(s, k+len(f))
				blank := NamedRedacted(r.name)
				s = s[:start] + blank + s[end:]
				from = start + len(blank)
			}
		}
	}
	return s
}

func isB64(c byte) bool {
	return c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '+' || c == '/' || c == '-' || c == '_'
}

// base64Run returns the start of the run of base64 characters holding
// position k.
func base64Run(s string, k int) int {
	for k > 0 && isB64(s[k-1]) {
		k--
	}
	return k
}

// base64RunEnd returns the end of the run of base64 characters (and its
// padding) going on at k.
func base64RunEnd(s string, k int) int {
	for k < len(s) && isB64(s[k]) {
		k++
	}
	for n := 0; n < 2 && k < len(s) && s[k] == '='; n++ {
		k++
	}
	return k
}

// minB64Run is the shortest run of base64 decoded to look for a secret
// inside: 16 characters, 12 bytes.
const minB64Run = 16

// encodedMatches returns the spans of s to blank because a secret the
// detectors know sits inside an encoding: percent-encoded text
// (`password%3Dhunter2`, a token in a URL-encoded form body) and
// standard or URL-safe base64 (`QUtJQ...` wrapping `AKIA…:secret`). A
// secret in percent-encoded text is blanked where it is; a base64 run
// holding one is blanked whole. Each encoding is decoded once, so the
// cost stays linear in len(s).
//
// Under a context (nil: none) it gives up when the context ends, with its
// error.
func encodedMatches(ctx context.Context, key, s string) ([]Match, error) {
	var out []Match
	if strings.IndexByte(s, '%') >= 0 {
		ms, err := percentMatches(ctx, key, s)
		if err != nil {
			return nil, err
		}
		out = append(out, ms...)
	}
	for i := 0; i < len(s); {
		if !isB64(s[i]) {
			i++
			continue
		}
		end := base64RunEnd(s, i)
		if end-i >= minB64Run {
			found, err := b64Secret(ctx, key, s[i:end])
			if err != nil {
				return nil, err
			}
			if found {
				out = append(out, Match{Kind: KindNamedValue, Start: i, End: end})
			}
		}
		i = end
	}
	return out, nil
}

// percentMatches decodes the %XX escapes of s, finds the secrets in the
// decoded text, and returns their spans in s.
func percentMatches(ctx context.Context, key, s string) ([]Match, error) {
	var dec []byte
	var at []int // at[j] is where dec[j] came from in s
	escaped := false
	for i := 0; i < len(s); i++ {
		if s[i] == '%' && i+2 < len(s) && isHex(s[i+1]) && isHex(s[i+2]) {
			dec = append(dec, unhex(s[i+1])<<4|unhex(s[i+2]))
			at = append(at, i)
			i += 2
			escaped = true
			continue
		}
		dec = append(dec, s[i])
		at = append(at, i)
	}
	if !escaped {
		return nil, nil
	}
	at = append(at, len(s))
	found, err := FindAllContext(ctx, key, string(dec))
	if err != nil {
		return nil, err
	}
	var out []Match
	for _, m := range found {
		out = append(out, Match{Kind: m.Kind, Start: at[m.Start], End: at[m.End]})
	}
	return out, nil
}

func unhex(c byte) byte {
	switch {
	case c >= 'a':
		return c - 'a' + 10
	case c >= 'A':
		return c - 'A' + 10
	}
	return c - '0'
}

// b64Secret reports whether run, a run of base64 characters, decodes
// (standard or URL-safe, padded or not) to printable text in which the
// detectors find a secret.
func b64Secret(ctx context.Context, key, run string) (bool, error) {
	body := strings.TrimRight(run, "=")
	enc := base64.RawStdEncoding
	if strings.ContainsAny(body, "-_") {
		if strings.ContainsAny(body, "+/") {
			return false, nil
		}
		enc = base64.RawURLEncoding
	}
	// A lone character after the last whole quantum holds no whole byte.
	if len(body)%4 == 1 {
		body = body[:len(body)-1]
	}
	dec, err := enc.DecodeString(body)
	if err != nil || !utf8.Valid(dec) {
		return false, nil
	}
	for _, c := range dec {
		if c < 0x20 && c != '\n' && c != '\r' && c != '\t' || c == 0x7f {
			return false, nil
		}
	}
	found, err := FindAllContext(ctx, key, string(dec))
	return len(found) > 0, err
}
