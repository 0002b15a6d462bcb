package redact

import "strings"

// The named-value detectors find a secret by the name it is given in text
// rather than by its shape. Each looks for a credential name
// (IsCredentialName) and blanks the value that follows it:
//
//   - `NAME=value` and `NAME = value` (environment files, ini files,
//     command lines, query strings, connection strings, `--password=x`,
//     Go's `:=`): an unquoted value ends at white space or one of & ; , and
//     a quote (also # in a query string); in an ini-style line (`name =
//     value` at the start of a line) it runs to the end of the line.
//   - `name: value` (YAML, prose): a quoted value whatever it holds; an
//     unquoted one when it ends the line (three characters or more), or
//     when it looks generated (six or more, letters with digits or
//     symbols): "Password: at least 12 characters" stays prose.
//   - header lines — `Authorization:`, `Proxy-Authorization:`, `Cookie:`,
//     `Set-Cookie:` and credential names with a dash (`X-Api-Key:`) — at
//     the start of a line or right after the quote that opens a
//     command-line argument (`-H "Authorization: Basic …"`): the whole
//     value, to the end of the line or the closing quote.
//   - quoted names, as in JSON or Python text (`"token": "…"`,
//     `'password' => '…'`): the quoted value.
//   - `--name value` flags, whose value looks generated or is eight
//     characters or more ("use the --token flag" stays prose), and curl's
//     `-u user:password` / `--user user:password` (the password).
//   - netrc's `login NAME password VALUE`, and prose's "the password is
//     VALUE" / "API key is VALUE" when VALUE looks generated.
//   - YAML's `- name: DB_PASSWORD` followed by `value: VALUE`.
//
// Values that are not secrets themselves are left alone: references
// (`$VAR`, `${VAR}`, `$(cmd)`, `%VAR%`, `process.env.X`), templates
// (`{{x}}`), placeholders (`<password>`, `YOUR_API_KEY`, `********`,
// `[hidden]`), words such as null, none, true, required, calls
// (`getpass()`), YAML tags and anchors, and what was already redacted.

// maxNameLen bounds the backward scan for a name.
const maxNameLen = 64

func isNameByte(c byte) bool { return isAlnum(c) || c == '_' || c == '-' || c == '.' }

func isBlank(c byte) bool { return c == ' ' || c == '\t' }

// lineStart reports whether only blanks (and an `export `) stand between
// position i and the start of its line.
func lineStart(s string, i int) bool {
	j := i
	for j > 0 && isBlank(s[j-1]) {
		j--
	}
	if strings.HasSuffix(s[:j], "export") {
		k := j - len("export")
		if k < i && (k == 0 || s[k-1] == '\n' || s[k-1] == '\r' || isBlank(s[k-1])) && j < i {
			j = k
			for j > 0 && isBlank(s[j-1]) {
				j--
			}
		}
	}
	return j == 0 || s[j-1] == '\n' || s[j-1] == '\r' ||
		j > 1 && s[j-2] == '\\' && (s[j-1] == 'n' || s[j-1] == 'r') // an escaped line break
}

// isHeaderName reports whether name, followed by a colon, starts a
// credential header line.
func isHeaderName(name string) bool {
	switch strings.ToLower(name) {
	case "authorization", "proxy-authorization", "cookie", "set-cookie":
		return true
	}
	return strings.IndexByte(name, '-') > 0 && IsCredentialName(name)
}

// matchNamedValue is triggered at '=' and ':'.
func matchNamedValue(st *cursor, s string, i int) (Match, bool) {
	eq := s[i] == '='
	v := i + 1
	arrow := false // => after a quoted name (PHP, Ruby)
	if eq {
		if i > 0 && strings.IndexByte("=!<>:+-*/%|&^~", s[i-1]) >= 0 {
			return Match{}, false
		}
		if v < len(s) && s[v] == '>' {
			arrow, v = true, v+1
		} else if v < len(s) && (s[v] == '=' || s[v] == '~') {
			return Match{}, false
		}
	} else {
		switch {
		case v < len(s) && s[v] == '=':
			eq, v = true, v+1 // Go's :=
		case v < len(s) && (s[v] == ':' || s[v] == '/'), i > 0 && s[i-1] == ':':
			return Match{}, false
		}
	}

	// The name before the separator: blanks, then a name, quoted or not.
	j := i
	for j > 0 && i-j < 8 && isBlank(s[j-1]) {
		j--
	}
	spaced := j < i
	var q byte
	escaped, index := false, false
	if j > 1 && s[j-1] == ']' && (s[j-2] == '"' || s[j-2] == '\'') {
		index = true // config["password"] = …
		j--
	}
	if j > 0 && (s[j-1] == '"' || s[j-1] == '\'') {
		q = s[j-1]
		j--
		if q == '"' && j > 0 && s[j-1] == '\\' {
			escaped = true
			j--
		}
	}
	nameEnd := j
	for j > 0 && nameEnd-j <= maxNameLen && isNameByte(s[j-1]) {
		j--
	}
	nameStart := j
	afterEscape := false
	if nameStart+1 < nameEnd && nameStart > 0 && s[nameStart-1] == '\\' && strings.IndexByte("nrt", s[nameStart]) >= 0 {
		nameStart++ // text with JSON escapes: "…\nDB_PASSWORD=…"
		afterEscape = true
	}
	if nameStart == nameEnd || nameEnd-nameStart > maxNameLen {
		return Match{}, false
	}
	if arrow && q == 0 {
		return Match{}, false
	}
	if !eq && q == 0 && !afterEscape && nameStart > 0 && strings.IndexByte(" \t\r\n{[(,;\"'", s[nameStart-1]) < 0 {
		// A colon after a name inside a word (arn:aws:secretsmanager:…:secret:x)
		// does not give it a value.
		return Match{}, false
	}
	if q != 0 {
		open := string(q)
		if escaped {
			open = `\"`
		}
		if index {
			open = "[" + open
		}
		if !strings.HasSuffix(s[:nameStart], open) {
			return Match{}, false
		}
	}
	name := s[nameStart:nameEnd]
	atLine := q == 0 && (afterEscape || lineStart(s, nameStart))
	var argQuote byte // the quote opening a command-line argument that starts with the name
	if q == 0 && nameStart > 0 && (s[nameStart-1] == '"' || s[nameStart-1] == '\'') {
		argQuote = s[nameStart-1]
	}
	header := !eq && q == 0 && (atLine || argQuote != 0) && isHeaderName(name)
	if !header && !IsCredentialName(name) && !(!eq && name == "value" && pairedName(st, s, nameStart)) {
		// Prose names a credential in two words: "API key: …", "access token: …".
		if eq || q != 0 || nameStart < 2 || s[nameStart-1] != ' ' || !isAlpha(s[nameStart-2]) {
			return Match{}, false
		}
		w := nameStart - 1
		for w > 0 && nameStart-w < 20 && isAlpha(s[w-1]) {
			w--
		}
		if w > 0 && isNameByte(s[w-1]) || !IsCredentialName(s[w:nameEnd]) {
			return Match{}, false
		}
	}

	// The value after the separator.
	for v < len(s) && isBlank(s[v]) {
		v++
	}
	if v >= len(s) || s[v] == '\n' || s[v] == '\r' {
		return Match{}, false
	}
	if !header {
		if start, end, ok := quotedValue(st, s, v); ok {
			return named(s, start, end, name)
		}
		if q != 0 && !eq {
			// "name": value — JSON-like text with an unquoted value (a
			// number, null, an object) is not a credential.
			return Match{}, false
		}
	}
	switch {
	case header:
		end := st.lineEnd(v)
		if argQuote != 0 {
			if k := strings.IndexByte(s[v:end], argQuote); k >= 0 {
				end = v + k
			}
		}
		end = trimBlanks(s, v, end)
		if schemePlaceholder(s[v:end]) {
			return Match{}, false
		}
		return named(s, v, end, name)
	case eq:
		stops := " \t\r\n&;,\"'`"
		if nameStart > 0 && (s[nameStart-1] == '?' || s[nameStart-1] == '&') {
			stops += "#"
		}
		end := st.indexAny(v, stops)
		if spaced && atLine {
			end = trimBlanks(s, v, st.lineEnd(v))
		}
		if codeLike(s[v:end]) {
			return Match{}, false
		}
		return named(s, v, end, name)
	default:
		if strings.IndexByte("!&*|>", s[v]) >= 0 {
			return Match{}, false // a YAML tag, anchor, alias or block
		}
		end := st.indexAny(v, " \t\r\n,}]\"'")
		tok := s[v:end]
		rest := end
		for rest < len(s) && isBlank(s[rest]) {
			rest++
		}
		endsLine := rest == len(s) || strings.IndexByte("\r\n#", s[rest]) >= 0
		if !(endsLine && len(tok) >= 3 || generated(tok)) || codeLike(tok) {
			return Match{}, false
		}
		return named(s, v, end, name)
	}
}

// pairedName reports whether the YAML line before the `value:` at i is
// `name: CREDENTIAL` (`- name: DB_PASSWORD` / `value: …`, as Kubernetes
// and compose environment lists are written).
func pairedName(st *cursor, s string, i int) bool {
	ls := st.lineStart(i) - 1
	if ls < 0 || s[ls] != '\n' {
		return false
	}
	prev := s[st.lineStart(ls):ls]
	prev = strings.TrimLeft(strings.TrimSpace(prev), "- ")
	v, ok := strings.CutPrefix(prev, "name:")
	if !ok {
		return false
	}
	v = strings.Trim(strings.TrimSpace(v), `"'`)
	return IsCredentialName(v)
}

// named returns the value s[start:end] given to name as a match, unless it
// is empty or not a secret itself.
func named(s string, start, end int, name string) (Match, bool) {
	v := s[start:end]
	if v == "" || placeholder(v) || isPath(v) && strings.EqualFold(strings.Trim(name, "-_"), "pwd") {
		return Match{}, false
	}
	return Match{Kind: KindNamedValue, Start: start, End: end}, true
}

// quotedValue returns the inside of the quoted string that starts at v
// (", ' or `, or \" in text that is itself JSON-escaped), up to its closing
// quote or the end of the line.
func quotedValue(st *cursor, s string, v int) (start, end int, ok bool) {
	close := ""
	switch {
	case s[v] == '"' || s[v] == '\'' || s[v] == '`':
		close = s[v : v+1]
	case strings.HasPrefix(s[v:], `\"`):
		close = `\"`
	default:
		return 0, 0, false
	}
	start = v + len(close)
	le := st.lineEnd(start)
	for k := start; k < le; k++ {
		if strings.HasPrefix(s[k:], close) && (len(close) == 2 || k == start || s[k-1] != '\\') {
			return start, k, true
		}
	}
	return start, le, true
}

func trimBlanks(s string, start, end int) int {
	for end > start && isBlank(s[end-1]) {
		end--
	}
	return end
}

// generated reports whether an unquoted word looks like a generated secret
// rather than a word of prose: six characters or more, with a letter and a
// digit or a symbol.
//
// Only the first judged bytes are looked at.
func generated(w string) bool {
	if len(w) < 6 {
		return false
	}
	w = w[:min(len(w), judged)]
	letter, other := false, false
	for i := 0; i < len(w); i++ {
		if isAlpha(w[i]) {
			letter = true
		} else {
			other = true
		}
	}
	return letter && other
}

// stopWords are values that say something about a credential rather than
// being one.
var stopWords = map[string]bool{
	"null": true, "none": true, "nil": true, "true": true, "false": true, "undefined": true,
	"yes": true, "no": true, "n/a": true, "na": true, "tbd": true, "todo": true,
	"required": true, "optional": true, "hidden": true, "masked": true, "redacted": true,
	"unset": true, "empty": true, "secret": true, "password": true, "token": true,
	"...": true, "…": true, "flag": true, "option": true, "argument": true,
}

// placeholder reports whether v stands for a secret without being one: a
// reference, a template, a mask, a placeholder or a word about it, or what
// redaction already put there.
//
// Only the first judged bytes of a longer value are looked at, so that
// judging the values of many triggers in a row costs time linear in the
// text (issue #28); a long value is a placeholder only by its ends.
func placeholder(v string) bool {
	head := v[:min(len(v), judged)]
	if v == "" || strings.Contains(head, "«redacted") {
		return true
	}
	switch v[0] {
	case '$':
		return true // $VAR, ${VAR}, $(cmd), ${{ secrets.X }}
	case '{':
		return strings.HasPrefix(v, "{{") || strings.HasPrefix(v, "{%")
	case '<':
		return v[len(v)-1] == '>'
	case '[':
		return v[len(v)-1] == ']'
	case '%':
		return len(v) > 2 && v[len(v)-1] == '%' || strings.HasPrefix(v, "%(")
	}
	if len(v) > judged {
		return hasFold(head, "your")
	}
	if stopWords[strings.ToLower(v)] || allSame(v) {
		return true
	}
	if hasFold(v, "your") {
		return true // YOUR_API_KEY, your-token-here
	}
	// An upper-case identifier (DB_PASSWORD) names a variable.
	upper := strings.IndexByte(v, '_') >= 0
	for i := 0; i < len(v) && upper; i++ {
		upper = isUpper(v[i]) || v[i] == '_'
	}
	return upper
}

// judged is how much of a value placeholder and generated look at.
const judged = 256

// allSame reports whether v is one character repeated (********, xxxxxx).
func allSame(v string) bool {
	if len(v) < 3 {
		return false
	}
	for i := 1; i < len(v); i++ {
		if v[i] != v[0] {
			return false
		}
	}
	return true
}

// schemePlaceholder reports whether a header value is a scheme word and a
// placeholder ("Bearer <token>", "Basic $CREDENTIALS", "token YOUR_TOKEN").
func schemePlaceholder(v string) bool {
	if placeholder(v) {
		return true
	}
	_, rest, ok := strings.Cut(v, " ")
	return ok && placeholder(strings.TrimSpace(rest))
}

// referenceRoots start a dotted name that reads a secret from elsewhere.
var referenceRoots = []string{"process.env.", "os.environ", "env.", "secrets.", "settings.", "config.", "vars.", "inputs.", "params."}

// codeLike reports whether an unquoted value is code that reads a secret
// (getpass(), os.getenv("X"), process.env.X) rather than the secret.
func codeLike(v string) bool {
	for _, r := range referenceRoots {
		if strings.HasPrefix(v, r) {
			return true
		}
	}
	if v == "" || !isAlpha(v[0]) && v[0] != '_' {
		return false
	}
	k := run(v, 0, func(c byte) bool { return isAlnum(c) || c == '_' || c == '.' })
	return k < len(v) && v[k] == '('
}

// isPath reports whether v is a file system path (the working directory
// under PWD).
func isPath(v string) bool {
	return strings.HasPrefix(v, "/") || strings.HasPrefix(v, "~") ||
		len(v) > 2 && isAlpha(v[0]) && v[1] == ':' && (v[2] == '\\' || v[2] == '/')
}

// matchFlagValue matches the value of a credential flag given as a
// separate word (`--api-key VALUE`), and the password of curl's `-u
// user:password` / `--user user:password`. `--name=VALUE` is
// matchNamedValue's.
func matchFlagValue(st *cursor, s string, i int) (Match, bool) {
	if i > 0 && !isBlank(s[i-1]) && s[i-1] != '\n' && s[i-1] != '"' && s[i-1] != '\'' {
		return Match{}, false
	}
	var name string
	var v int
	switch {
	case strings.HasPrefix(s[i:], "-u ") || strings.HasPrefix(s[i:], "-u\t"):
		name, v = "u", i+2
	case strings.HasPrefix(s[i:], "--"):
		e := run(s, i+2, func(c byte) bool { return isAlnum(c) || c == '_' || c == '-' })
		if e == i+2 || e >= len(s) || !isBlank(s[e]) {
			return Match{}, false
		}
		name, v = s[i+2:e], e
	default:
		return Match{}, false
	}
	user := name == "u" || name == "user"
	if !user && !IsCredentialName(name) {
		return Match{}, false
	}
	for v < len(s) && isBlank(s[v]) {
		v++
	}
	if v >= len(s) || s[v] == '-' {
		return Match{}, false
	}
	start, end, quoted := quotedValue(st, s, v)
	if !quoted {
		start, end = v, st.indexAny(v, " \t\r\n")
		if end < v {
			end = len(s)
		}
	}
	val := s[start:end]
	if user {
		u, pw, ok := strings.Cut(val, ":")
		if !ok || pw == "" || u == "" || run(u, 0, isDigit) == len(u) && run(pw, 0, isDigit) == len(pw) {
			return Match{}, false
		}
		start += len(u) + 1
		return named(s, start, end, name)
	}
	if !quoted && !(generated(val) || len(val) >= 8) || stopWords[strings.ToLower(val)] {
		return Match{}, false
	}
	return named(s, start, end, name)
}

// matchIsValue matches prose that gives a credential: "the password is
// VALUE", "my API key is VALUE", when VALUE is quoted or looks generated.
func matchIsValue(st *cursor, s string, i int) (Match, bool) {
	if !strings.HasPrefix(s[i:], "is ") || i < 2 || s[i-1] != ' ' {
		return Match{}, false
	}
	w := i - 1
	for w > 0 && i-1-w < 20 && isAlpha(s[w-1]) {
		w--
	}
	if w == i-1 {
		return Match{}, false
	}
	if !IsCredentialName(s[w : i-1]) {
		// Two words: "API key is", "access token is".
		if w < 2 || s[w-1] != ' ' {
			return Match{}, false
		}
		p := w - 1
		for p > 0 && w-1-p < 20 && isAlpha(s[p-1]) {
			p--
		}
		if p == w-1 || !IsCredentialName(s[p:i-1]) {
			return Match{}, false
		}
	}
	v := i + 3
	for v < len(s) && isBlank(s[v]) {
		v++
	}
	if v >= len(s) {
		return Match{}, false
	}
	if start, end, ok := quotedValue(st, s, v); ok {
		return named(s, start, end, "")
	}
	end := st.indexAny(v, " \t\r\n")
	for end > v && strings.IndexByte(".,;:)", s[end-1]) >= 0 {
		end--
	}
	if !generated(s[v:end]) {
		return Match{}, false
	}
	return named(s, v, end, "")
}

// matchNetrc matches the password of a netrc line
// (`machine HOST login USER password VALUE`).
func matchNetrc(st *cursor, s string, i int) (Match, bool) {
	if !strings.HasPrefix(s[i:], "password") || i == 0 || !isBlank(s[i-1]) {
		return Match{}, false
	}
	v := i + len("password")
	if v >= len(s) || !isBlank(s[v]) {
		return Match{}, false
	}
	ls := st.lineStart(i)
	if l, t := st.index(ls, "login "), st.index(ls, "login\t"); !(l >= 0 && l+len("login ") <= i) && !(t >= 0 && t+len("login\t") <= i) {
		return Match{}, false
	}
	for v < len(s) && isBlank(s[v]) {
		v++
	}
	end := st.indexAny(v, " \t\r\n")
	return named(s, v, end, "password")
}
