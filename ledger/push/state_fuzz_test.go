package push_test

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/reelier/reelier/ledger/push"
)

// FuzzReadState feeds the state reader arbitrary files (version 1, version
// 2, neither): nothing panics; a file it reads yields, for every ledger,
// a State with no nil entry and no negative cursor, and a file it refuses
// is reported as corrupt.
//
//	go test ./ledger/push -run XXX -fuzz FuzzReadState -fuzztime 60s
func FuzzReadState(f *testing.F) {
	f.Add([]byte(`{"weekly": {"pushed": 2, "skillUploaded": true, "rejected": [{"index": 1, "reason": "r", "at": "t"}]}}`))
	f.Add([]byte(`{"version": 2, "ledgers": {"http://a": {"weekly": {"pushed": 3}}, "": {"x": null}}}`))
	f.Add([]byte(`{"version": 2, "ledgers": null}`))
	f.Add([]byte(`{"version": "2"}`))
	f.Add([]byte(`[]`))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(dir, "push-state.json")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		for _, url := range []string{"", "http://a"} {
			st, err := push.ReadState(path, url)
			if err != nil {
				if !push.IsCorrupt(err) {
					t.Fatalf("%q: an error that is not corruption: %v", data, err)
				}
				continue
			}
			for name, s := range st {
				if s == nil || s.Pushed < 0 {
					t.Fatalf("%q: ledger %q skill %q read as %+v", data, url, name, s)
				}
			}
			again, err := push.ReadState(path, url)
			if err != nil || !reflect.DeepEqual(st, again) {
				t.Fatalf("%q: reading twice gave %+v then %+v, %v", data, st, again, err)
			}
		}
	})
}
