package redact

// secretWords are key words that name a credential on their own.
var secretWords = map[string]bool{
	"password": true, "passwd": true, "pwd": true, "pass": true, "passphrase": true,
	"secret": true, "secrets": true, "token": true, "tokens": true,
	"key": true, "apikey": true, "authorization": true, "auth": true,
	"credential": true, "credentials": true, "creds": true, "signature": true, "sig": true,
	"accesstoken": true, "authtoken": true, "accesskey": true,
	"secretkey": true, "privatekey": true, "clientsecret": true,
}

// harmlessQualifiers turn a credential word into something that is not a
// secret: an idempotency key, a cache or blob key, a sort key, a
// pagination token, a key's public fingerprint.
var harmlessQualifiers = map[string]bool{
	"idempotency": true, "cache": true, "sort": true, "partition": true,
	"primary": true, "foreign": true, "public": true, "publishable": true, "object": true,
	"row": true, "lookup": true, "dedup": true, "dedupe": true,
	"routing": true, "hash": true, "group": true, "index": true,
	"page": true, "next": true, "continuation": true, "pagination": true,
	"cursor": true, "sync": true, "max": true, "count": true,
	"type": true, "name": true, "id": true,
	"blob": true, "file": true, "bucket": true, "asset": true, "image": true,
	"lock": true, "shard": true, "range": true, "composite": true, "unique": true,
	"natural": true, "correlation": true, "version": true, "revision": true,
	"fingerprint": true, "checksum": true, "length": true,
	"has": true, "is": true, "requires": true, "uses": true,
}

// IsSecretKey reports whether a field, header or parameter name names a
// secret: it contains a word such as token, secret, key, password or
// authorization, and no word that makes it harmless (idempotency_key,
// cache_key, blob_key, page_token, token_type, key_id). Words are whole:
// "monkey", "keyword_hash" and "tokenizer_hash" name no secret.
func IsSecretKey(key string) bool {
	secret, harmless := false, false
	eachWord(key, func(w []byte) {
		harmless = harmless || harmlessQualifiers[string(w)]
		secret = secret || secretWords[string(w)]
	})
	return secret && !harmless
}

// credentialNames are names, lower-cased with every byte that is not a
// letter or digit removed, whose whole value is a credential.
var credentialNames = map[string]bool{
	"authorization": true, "proxyauthorization": true, "cookie": true, "setcookie": true,
	"apikey": true, "xapikey": true, "xauthtoken": true, "xaccesstoken": true, "xapitoken": true,
	"password": true, "passwd": true, "pass": true, "pwd": true, "passphrase": true,
	"secret": true, "secrets": true, "clientsecret": true, "apisecret": true,
	"token": true, "accesstoken": true, "refreshtoken": true, "idtoken": true,
	"authtoken": true, "sessiontoken": true, "apitoken": true, "bearertoken": true,
	"privatekey": true, "secretkey": true, "secretaccesskey": true, "accountkey": true,
	"credentials": true, "credential": true, "creds": true, "basicauth": true,
	"pgpassword": true, "rediscliauth": true,
}

// credentialSuffixes make a longer name a credential name too
// ("db_password", "stripeApiKey", "AWS_SESSION_TOKEN", "DB_PASS"), when
// the suffix is a word of its own and no word makes the name harmless
// (IsSecretKey: "next_page_token" is not one).
var credentialSuffixes = []string{
	"password", "passwd", "pwd", "pass", "passphrase", "secret", "apikey", "token",
	"accesskey", "privatekey", "secretkey", "encryptionkey", "masterkey",
	"credentials", "credential",
}

// maxName is the longest name IsCredentialName looks at.
const maxName = 96

// IsCredentialName reports whether the value under a member, header,
// variable or flag name is a credential as a whole: Authorization, Cookie,
// X-Api-Key, password, pass, pwd, credentials, client_secret,
// access_token, AWS_SECRET_ACCESS_KEY, db_password, githubToken,
// --api-key and the like.
func IsCredentialName(name string) bool {
	if name == "" || len(name) > maxName {
		return false
	}
	var buf [maxName]byte
	n := 0
	for i := 0; i < len(name); i++ {
		c := name[i]
		switch {
		case isUpper(c):
			buf[n] = c + 'a' - 'A'
			n++
		case isAlnum(c):
			buf[n] = c
			n++
		}
	}
	norm := buf[:n]
	if n == 0 {
		return false
	}
	// Every credential name ends in one of these letters: a cheap test
	// that spares most names the lookups.
	switch norm[n-1] {
	case 'd', 'y', 'n', 's', 'e', 't', 'l', 'h', 'r':
	default:
		return false
	}
	if credentialNames[string(norm)] {
		return true
	}
	for _, suf := range credentialSuffixes {
		if n >= len(suf) && string(norm[n-len(suf):]) == suf {
			return IsSecretKey(name)
		}
	}
	return false
}

// eachWord calls fn with each word of key, lower-cased: key is cut at every
// byte that is not a letter or digit and at every lower-to-upper case
// change, so "X-Api-Key", "api_key" and "apiKey" all give api and key
// (with an x first for the header). Words longer than the buffer are
// skipped: no credential word is that long. The word slice is only valid
// during the call.
func eachWord(key string, fn func(w []byte)) {
	var buf [32]byte
	start := -1
	for i := 0; i <= len(key); i++ {
		boundary := i == len(key) || !isAlnum(key[i])
		camel := i > 0 && i < len(key) && isUpper(key[i]) && !isUpper(key[i-1]) && isAlnum(key[i-1])
		if start >= 0 && (boundary || camel) {
			if n := i - start; n <= len(buf) {
				for j := 0; j < n; j++ {
					c := key[start+j]
					if isUpper(c) {
						c += 'a' - 'A'
					}
					buf[j] = c
				}
				fn(buf[:n])
			}
			start = -1
		}
		if start < 0 && i < len(key) && isAlnum(key[i]) {
			start = i
		}
	}
}
