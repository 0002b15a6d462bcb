// Package secrets recognises credential-shaped text: API keys, access
// tokens, private keys and passwords that were pasted where a variable
// belongs.
//
// The detectors are shared by the linter (which flags a secret written into
// a skill's action arguments) and by trace redaction (which blanks secrets
// before a trace reaches disk). Both need the same answer to "is this a
// secret, and where exactly does it start and end?", so a Match reports the
// byte span of the secret value alone: for `Bearer abc…` the span covers the
// token, not the scheme word, and for a URL with a password it covers the
// password, not the user name.
//
// The detectors prefer missing an odd secret to flagging ordinary data:
// every token-shaped detector requires a word boundary before its prefix and
// a digit somewhere in the token, so prose such as "task-management-system"
// or "Bearer of bad news" is left alone, and a long hexadecimal string counts
// only under a secret-named key (a sha256 under "checksum" is not a secret).
// This makes the set stricter than the minimal redaction patterns of the
// format specification (§2.3) in those two ways, and wider in the kinds of
// credentials it knows.
package secrets
