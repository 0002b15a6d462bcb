// Package redact is the process's one redaction: the detectors that
// recognise credential-shaped text (API keys, access tokens, private keys,
// passwords pasted where a variable belongs), the Redactor that blanks
// them in everything recorded or shown — traces, --trace files, --verbose
// output, receipts, run records, a heal's prompt, the ledger — with one
// marker («redacted», «redacted:NAME»), the one set of secrets the user
// handed the process (RegisterSecret), the reading of those markers back
// (marker.go), and the scrubber that also redacts JSON quoted inside text
// (Text, JSON). The agent and the servers always get real values; only
// copies are redacted.
//
// The detectors are shared by the linter (which flags a secret written into
// a skill's action arguments) and by trace redaction (which blanks secrets
// before a trace reaches disk). Both need the same answer to "is this a
// secret, and where exactly does it start and end?", so a Match reports the
// byte span of the secret value alone: for `Bearer abc…` the span covers the
// token, not the scheme word, and for a URL with a password it covers the
// password, not the user name.
//
// FindField is the linter's set: token shapes, private keys, URL passwords,
// secret query parameters and hex under a secret-named key. FindAll, the
// redactor's, adds kinds the linter has no variable name for yet: Stripe
// test and webhook secrets, AWS secret access keys and session tokens,
// other services' tokens, Basic credentials, and the values given to
// credential names in text (named.go: env, ini and YAML lines, header
// lines, flags, prose). IsCredentialName says which names those are;
// IsSecretKey is the looser test for a name that may hold a secret.
//
// The detectors prefer missing an odd secret to flagging ordinary data:
// token-shaped detectors require a word boundary before their prefix; an
// sk- key needs a part that looks generated (so sk-1000-blue-xlarge, a
// product code, is not one); a bearer token needs a digit or symbol or 20
// characters (so "Bearer of bad news" is prose); a long hexadecimal string
// counts only under a name with a secret word as a whole word and no
// harmless one (a sha256 under "checksum", "idempotency_key" or
// "keyword_hash" is not a secret); a 40-character AWS secret key counts
// only next to AWS or "secret"; and a value given to a credential name is
// left alone when it is a reference, a template or a placeholder. This
// makes the set stricter than the minimal redaction patterns of the format
// specification (§2.3) in those ways, and wider in the kinds of credentials
// it knows.
package redact
