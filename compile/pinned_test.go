package compile_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/reelier/reelier/testkit/tracegen"
)

// TestLargeOutputsPinned compiles large generated traces and compares
// the SHA-256 of the printed skill and of the summary's JSON with the
// sums the compiler gave before its performance work (#20, computed with
// main at 98718f3): a change that alters any byte of a large compile
// fails here, whichever path (NewFile+Write, or Compile+format.Source,
// which compileFile requires to agree) it is in. The sums were taken
// again for #33 (branch sel-compile), after reading the diff of each
// output against main's: positional picks of one-element lists became
// `only(json.lines)` (the element's own fields still checked), listing picks
// `only(lines /…/ where …)`, and the question on a pick no rule explains
// says so.
// The joined sums also change when a trace joins testdata/traces.
func TestLargeOutputsPinned(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles about 12,000 calls")
	}
	for _, tt := range []struct {
		name           string
		src            func(t *testing.T) []byte
		skill, summary string
	}{
		{"dense-2000", func(*testing.T) []byte { return tracegen.Trace(2000, tracegen.Dense) },
			"b8dbab5662cb4bf738c2d02f6c707cfbdc647b91f0d3a41c7ba730de36a69e3b",
			"e09846a31a0d17c924b668f274e7a2695ca0b246c3c08802e556dcc17cbd99c2"},
		{"typical-300", func(*testing.T) []byte { return tracegen.Trace(300, tracegen.Typical) },
			"d5deec0c80476e1b70197cffd6028f99fd0afd749d270efcb181cc3dff6c2b24",
			"a2485cb5216dd839335d9570b9a15820711121454c557c8eaa3a0f4a011156ef"},
		{"mixed-2000-seed1", func(*testing.T) []byte { return tracegen.Mixed(2000, 1) },
			"a6716ce701374b0ada7f881385d143bd7b308d0ff957142562b610ff06e94916",
			"33ebbeabb1cf4dc9821bbdb02eae95d80c34df9a60db4cce7fefcd28721d7b5e"},
		{"mixed-3000-seed7", func(*testing.T) []byte { return tracegen.Mixed(3000, 7) },
			"c02e212652d2321db1d10bb7b209af5da59f0ee8f097755a60aa9cb6fdd98535",
			"13d25d2965399fac00baf8eeab8ece126822e27a53c1eb119e169452284473c7"},
		{"testdata-joined-x4", func(t *testing.T) []byte { return joinedTraces(t, 4) },
			"6b442260241bbd842f76ca05d217ecb4c7c09b3f46ce2a618ac786aba7afb757",
			"f9c95d60356a71aab452f227af12ade24180e127f2cb7033c8417e8dcca6f4b7"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), tt.name+".jsonl")
			if err := os.WriteFile(path, tt.src(t), 0o644); err != nil {
				t.Fatal(err)
			}
			out, src := compileFile(t, path)
			sum, err := json.Marshal(out.Summary)
			if err != nil {
				t.Fatal(err)
			}
			skill, summary := sha(src), sha(sum)
			t.Logf("%d steps, %d binds, %d questions; skill %d bytes", out.Summary.Steps, out.Summary.Binds, len(out.Summary.Questions), len(src))
			if skill != tt.skill {
				t.Errorf("skill SHA-256 %s, want %s", skill, tt.skill)
			}
			if summary != tt.summary {
				t.Errorf("summary SHA-256 %s, want %s", summary, tt.summary)
			}
		})
	}
}

func sha(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// joinedTraces joins the golden traces into one, times over: the first
// trace's meta, then every other record with its seq and call index
// moved past those before it.
func joinedTraces(t *testing.T, times int) []byte {
	var out bytes.Buffer
	seq, base := 0, 0
	for round := 0; round < times; round++ {
		for k, path := range traceFiles(t) {
			raw, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			top := 0
			for _, line := range bytes.Split(raw, []byte("\n")) {
				if len(bytes.TrimSpace(line)) == 0 {
					continue
				}
				var rec map[string]json.RawMessage
				if err := json.Unmarshal(line, &rec); err != nil {
					t.Fatalf("%s: %v", path, err)
				}
				if string(rec["t"]) == `"meta"` && (round > 0 || k > 0) {
					continue
				}
				rec["seq"] = json.RawMessage(itoa(seq))
				seq++
				if iv, ok := rec["i"]; ok {
					var i int
					if err := json.Unmarshal(iv, &i); err != nil {
						t.Fatalf("%s: %v", path, err)
					}
					rec["i"] = json.RawMessage(itoa(base + i))
					top = max(top, base+i+1)
				}
				b, err := json.Marshal(rec)
				if err != nil {
					t.Fatal(err)
				}
				out.Write(b)
				out.WriteByte('\n')
			}
			base = max(base, top)
		}
	}
	return out.Bytes()
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }
