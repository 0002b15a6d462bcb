package jsondata

import (
	"bytes"
	"encoding/json"
)

// StdString is s as encoding/json writes a string, without HTML escaping
// (<, > and & stay as they are). It is not AppendString's form: it writes
// U+2028 and U+2029 as \u2028 and \u2029 and a byte that is not UTF-8 as
// \ufffd, so the files written with it keep the bytes they always had.
func StdString(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.Encode(s) // a string always encodes
	return string(bytes.TrimSuffix(b.Bytes(), []byte("\n")))
}
