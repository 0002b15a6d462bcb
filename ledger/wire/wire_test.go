package wire_test

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strings"
	"testing"

	"github.com/reelier/reelier/ledger/wire"
)

const record = `{"skill":"weekly","note":"<b> & </b>","steps":[]}`

// TestIdempotencyKey: the key is a stable function of the skill and the
// record's content, blind to JSON whitespace, and changes with either.
func TestIdempotencyKey(t *testing.T) {
	k := wire.IdempotencyKey("weekly", []byte(record))
	if len(k) != 64 || strings.Trim(k, "0123456789abcdef") != "" {
		t.Fatalf("key %q is not lowercase hex SHA-256", k)
	}
	for _, tt := range []struct {
		name, skill, record string
		same                bool
	}{
		{"same again", "weekly", record, true},
		{"whitespace", "weekly", "  {\"skill\": \"weekly\",\n \"note\": \"<b> & </b>\", \"steps\": [ ]}\n", true},
		{"other skill", "monthly", record, false},
		{"other record", "weekly", strings.Replace(record, "[]", "[1]", 1), false},
		{"boundary moved", "weeklyx", record[1:], false},
	} {
		if got := wire.IdempotencyKey(tt.skill, []byte(tt.record)); (got == k) != tt.same {
			t.Errorf("%s: key %s, first %s; want same=%v", tt.name, got, k, tt.same)
		}
	}
}

// TestEncodeRunUpload: the body is valid JSON whose record is the line
// byte for byte (no HTML escaping, no re-ordering).
func TestEncodeRunUpload(t *testing.T) {
	body := wire.EncodeRunUpload(`we"ird`, []byte(record+"\n"))
	var up wire.RunUpload
	if err := json.Unmarshal(body, &up); err != nil {
		t.Fatalf("%s: %v", body, err)
	}
	if up.SkillName != `we"ird` || string(up.Record) != record {
		t.Errorf("decoded %q %s", up.SkillName, up.Record)
	}
	if !strings.Contains(string(body), `"record":`+record+`}`) {
		t.Errorf("record not embedded verbatim: %s", body)
	}
}

// TestEncodeSignedRunUpload: the bundle goes in verbatim beside the
// record, left out when empty; RecordSHA256 is the hash of the history
// line with its newline, however the line was trimmed.
func TestEncodeSignedRunUpload(t *testing.T) {
	bundle := `{"mediaType":"x","a":"<b>"}`
	for _, tc := range []struct {
		bundle, want string
	}{
		{bundle, `{"skillName":"weekly","record":` + record + `,"bundle":` + bundle + `}`},
		{"", `{"skillName":"weekly","record":` + record + `}`},
		{" \n", `{"skillName":"weekly","record":` + record + `}`},
	} {
		body := wire.EncodeSignedRunUpload("weekly", []byte(record+"\n"), []byte(tc.bundle))
		if string(body) != tc.want {
			t.Errorf("bundle %q: body %s\nwant %s", tc.bundle, body, tc.want)
		}
		if !json.Valid(body) {
			t.Errorf("not JSON: %s", body)
		}
	}
	sum := sha256.Sum256([]byte(record + "\n"))
	for _, line := range []string{record, record + "\n", " " + record + "\r\n"} {
		if got := wire.RecordSHA256([]byte(line)); got != hex.EncodeToString(sum[:]) {
			t.Errorf("RecordSHA256(%q) = %s", line, got)
		}
	}
}
