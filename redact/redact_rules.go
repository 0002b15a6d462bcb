package redact

import (
	"strings"
)

// The rules that decide from a value's name alone. Everything found inside
// a value — token shapes, private keys, URL passwords, credential
// assignments and header lines in text — is the detectors' (FindAll),
// so the linter and the redactor agree on what a secret looks like.

// wholeValue reports whether the string s stored under name is a
// credential as a whole: the name is a credential name (Authorization,
// Cookie, X-Api-Key, password, pass, pwd, credentials, client_secret,
// access_token, AWS_SECRET_ACCESS_KEY, db_password, githubToken…), or it
// is `auth` holding base64 user:password (a Docker config). A working
// directory under `pwd` (a path) is not a password.
func wholeValue(name, s string) bool {
	if name == "" {
		return false
	}
	if IsCredentialName(name) {
		return !(isPath(s) && normalizedIs(name, "pwd"))
	}
	return normalizedIs(name, "auth") && IsBasicCredentials(s)
}

// isPath reports whether s is a file system path.

// normalizedIs reports whether name, without its separators and in any
// case, is word.
func normalizedIs(name, word string) bool {
	j := 0
	for i := 0; i < len(name); i++ {
		c := name[i]
		if c == '-' || c == '_' || c == '.' || c == ' ' {
			continue
		}
		if j >= len(word) || c|0x20 != word[j] {
			return false
		}
		j++
	}
	return j == len(word)
}

// flagName returns the credential name a command-line word such as
// "--api-key" gives the next word of an argument array, or "".
func flagName(s string) string {
	if !strings.HasPrefix(s, "--") || strings.IndexByte(s, '=') >= 0 || !IsCredentialName(s[2:]) {
		return ""
	}
	return s[2:]
}

// isNameMember reports whether member names the variable of a name/value
// pair.
func isNameMember(member string) bool {
	switch member {
	case "name", "Name", "key", "Key":
		return true
	}
	return false
}

// minSecretName is the shortest member name looked into: no secret the
// detectors know fits in fewer bytes, and most names are shorter.
const minSecretName = 16

// blankName blanks the secrets in a member name (a map keyed by tokens), to
// a fixed point as text does.
func blankName(s string) string {
	if len(s) < minSecretName {
		return s
	}
	for range maxPasses {
		ms := FindAll("", s)
		if len(ms) == 0 {
			break
		}
		s = replaceMatches(s, ms)
	}
	return s
}
