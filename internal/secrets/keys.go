package secrets

// secretWords are key words that name a credential on their own.
var secretWords = map[string]bool{
	"password": true, "passwd": true, "pwd": true, "passphrase": true,
	"secret": true, "secrets": true, "token": true, "tokens": true,
	"key": true, "apikey": true, "authorization": true, "auth": true,
	"credential": true, "credentials": true, "signature": true,
	"accesstoken": true, "authtoken": true, "accesskey": true,
	"secretkey": true, "privatekey": true, "clientsecret": true,
}

// harmlessQualifiers turn a credential word into something that is not a
// secret: an idempotency key, a sort key, a pagination token.
var harmlessQualifiers = map[string]bool{
	"idempotency": true, "cache": true, "sort": true, "partition": true,
	"primary": true, "foreign": true, "public": true, "object": true,
	"row": true, "lookup": true, "dedup": true, "dedupe": true,
	"routing": true, "hash": true, "group": true, "index": true,
	"page": true, "next": true, "continuation": true, "pagination": true,
	"cursor": true, "sync": true, "max": true, "count": true,
	"type": true, "name": true, "id": true,
}

// IsSecretKey reports whether a field, header or parameter name names a
// secret: it contains a word such as token, secret, key, password or
// authorization, and no word that makes it harmless (idempotency_key,
// page_token, token_type, key_id).
func IsSecretKey(key string) bool {
	secret, harmless := false, false
	eachWord(key, func(w []byte) {
		harmless = harmless || harmlessQualifiers[string(w)]
		secret = secret || secretWords[string(w)]
	})
	return secret && !harmless
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
