package replay

import (
	"bytes"
	"fmt"
	"strconv"

	"github.com/reelier/reelier/redact"
	"github.com/reelier/reelier/tool/jsondata"
)

// markerBytes starts every redaction placeholder (trace.Markers).
var markerBytes = []byte("«redacted")

// placeholderError refuses filled arguments that still hold a recording's
// redaction placeholder («redacted», «redacted:NAME»): the placeholder
// stands where a secret was and is never the secret, so sending it would
// make a call the recording never made — and a server that accepts it
// would let the step pass doing something else. Whether the skill holds it
// literally, an input was given it or an earlier result returned it, the
// step fails before the call, naming the argument's path. nil when args
// hold none.
func placeholderError(step int, args []byte) error {
	if !bytes.Contains(args, markerBytes) {
		return nil
	}
	doc, err := jsondata.Parse(string(args))
	if err != nil {
		return nil
	}
	path, m, s, ok := findPlaceholder(doc, "")
	if !ok {
		return nil
	}
	where := "the arguments"
	if path != "" {
		where = "argument " + path
	}
	hint := "make it an input and supply it with --var, a --var-file line or REELIER_VAR_<name>"
	if m.Name != "" {
		name := m.InputName()
		hint = fmt.Sprintf("make it an input ({{%s}}) and supply it with --var, a --var-file line or REELIER_VAR_%s", name, name)
	}
	return fmt.Errorf("Refusing to send step %d's %s: it holds the recording's redaction placeholder %s, not a value — %s", step, where, s[m.Start:m.End], hint)
}

// findPlaceholder returns the path of the first string in v, in document
// order, that holds a placeholder, the placeholder and the string. The
// path is written as skill paths are (headers.Authorization, ids.1), a
// member name other than letters, digits, _ and - quoted in brackets
// (["a b"].1).
func findPlaceholder(v any, path string) (string, redact.Marker, string, bool) {
	switch v := v.(type) {
	case string:
		if ms := redact.Markers(v, nil); len(ms) > 0 {
			return path, ms[0], v, true
		}
	case *jsondata.Object:
		for _, m := range v.Members {
			if p, mk, s, ok := findPlaceholder(m.Value, pathJoin(path, m.Key, plainKey(m.Key))); ok {
				return p, mk, s, true
			}
		}
	case []any:
		for i, e := range v {
			if p, mk, s, ok := findPlaceholder(e, pathJoin(path, strconv.Itoa(i), true)); ok {
				return p, mk, s, true
			}
		}
	}
	return "", redact.Marker{}, "", false
}

// pathJoin appends a segment to a path: after a dot when it is plain,
// quoted in brackets otherwise.
func pathJoin(path, seg string, plain bool) string {
	switch {
	case !plain:
		return path + "[" + strconv.Quote(seg) + "]"
	case path == "":
		return seg
	}
	return path + "." + seg
}

// plainKey reports a member name a path writes as it is.
func plainKey(k string) bool {
	for i := 0; i < len(k); i++ {
		c := k[i]
		if !(c == '_' || c == '-' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			return false
		}
	}
	return k != ""
}
