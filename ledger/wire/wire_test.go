package wire_test

import (
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
