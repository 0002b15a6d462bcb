package trace

import (
	"encoding/json"
	"reflect"
	"testing"
)

// FuzzParseFast holds the reflection-free path to the general one: every
// line it accepts, the general path reads to the same record.
func FuzzParseFast(f *testing.F) {
	for _, s := range []string{
		`{"t":"call","seq":2,"i":0,"ts":"2026-07-18T14:02:03.000Z","tool":"get","args":{"a":[1,"x"]}}`,
		`{"t":"result","seq":3,"i":0,"ok":true,"ms":12,"body":{"content":[{"type":"text","text":"{\"a\":1}"}]}}`,
		`{"t":"note","seq":1,"ts":"s","text":"line\nbreak \u00e9"}`,
		`{"t":"call","seq":2,"i":0,"ts":"s","tool":"x","args":null}`,
		`{"t":"call","SEQ":5,"seq":2,"i":0,"ts":"s","tool":"x","args":{}}`,
		`{"t":"result","seq":3,"i":0,"ok":"yes","ms":1,"body":1}`,
		`{"t":"meta","seq":0,"name":"n","startedAt":"s","wrapped":[]}`,
		`{"t":"call","seq":1,"seq":2,"i":0,"ts":"s","tool":"x","args":{},"extra":[1]}`,
		`{"t":"result","seq":3,"i":0,"ok":true,"ms":1,"body":{},"relay":[{"method":"roots/list","params":{},"ok":true,"result":{"roots":[]}}],"notified":{"notifications/progress":2}}`,
		`{"t":"result","seq":3,"i":0,"ok":false,"ms":1,"body":{},"cancelled":true}`,
		`{"t":"result","seq":3,"i":0,"ok":true,"ms":1,"body":{},"Relay":null,"NOTIFIED":{}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		if !json.Valid(raw) {
			return
		}
		fast := parseFast(raw)
		if fast == nil {
			return
		}
		general, err := parseGeneral(raw, 1)
		if err != nil {
			t.Fatalf("the fast path accepted a line the general path rejects (%v): %s", err, raw)
		}
		if !reflect.DeepEqual(fast, general) {
			t.Fatalf("fast %#v; general %#v; line %s", fast, general, raw)
		}
		if lent := own(parseFastInto(raw, new(lent))); !reflect.DeepEqual(lent, fast) {
			t.Fatalf("lent %#v; fast %#v; line %s", lent, fast, raw)
		}
	})
}
