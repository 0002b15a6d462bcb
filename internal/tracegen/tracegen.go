// Package tracegen generates large recorded traces for benchmarks: n
// narrated calls in which every call sends values from earlier results.
package tracegen

import (
	"bytes"
	"fmt"
	"strings"
)

// Result sizes of the generated traces (order lines per result).
const (
	// Dense results, about 450 bytes each: the skill is as large as the
	// trace.
	Dense = 2
	// Typical results, about 2 KB each.
	Typical = 20
)

// Trace returns a trace of n narrated calls in which every call sends
// values from earlier results: the previous result's id (an object path),
// an owner id from two results back, and the first line's SKU (an array
// path), alongside literals of its own. Each result lists lines order
// lines.
func Trace(n, lines int) []byte {
	var b bytes.Buffer
	b.WriteString(`{"t":"meta","seq":0,"name":"generated","startedAt":"2026-07-18T14:02:00.000Z","wrapped":["srv"]}` + "\n")
	seq := 1
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, `{"t":"note","seq":%d,"ts":"2026-07-18T14:02:01.000Z","text":"Step %d of the generated workflow"}`+"\n", seq, i)
		seq++
		args := fmt.Sprintf(`{"page":%d,"query":"q-%d"}`, 100000+i, i)
		if i >= 2 {
			args = fmt.Sprintf(`{"id":"obj_%06d","owner":"usr_%06d","sku":"sku_%06d_0","page":%d,"filters":{"kind":"k%d","limit":%d}}`, i-1, i-2, i-1, 100000+i, i%7, 5000+i)
		}
		fmt.Fprintf(&b, `{"t":"call","seq":%d,"i":%d,"ts":"2026-07-18T14:02:01.000Z","tool":"get_object","args":%s}`+"\n", seq, i, args)
		seq++
		var text strings.Builder
		fmt.Fprintf(&text, `{"id":"obj_%06d","owner":{"id":"usr_%06d","name":"Owner number %d"},"lines":[`, i, i, i)
		for l := 0; l < lines; l++ {
			if l > 0 {
				text.WriteByte(',')
			}
			fmt.Fprintf(&text, `{"sku":"sku_%06d_%d","qty":%d,"price":%d.25}`, i, l, (i+l)%9+1, 100+l)
		}
		fmt.Fprintf(&text, `],"status":"open","total":%d.50,"note":"generated result body for call %d"}`, 10000+i, i)
		fmt.Fprintf(&b, `{"t":"result","seq":%d,"i":%d,"ok":true,"ms":12,"body":{"content":[{"type":"text","text":%q}]}}`+"\n", seq, i, text.String())
		seq++
	}
	return b.Bytes()
}
