// Package tracegen generates large recorded traces for benchmarks: n
// narrated calls in which every call sends values from earlier results.
package tracegen

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
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

// Mixed returns a trace of n calls drawn, by a generator seeded with
// seed, from many shapes of call and result: JSON texts, structured
// content, plain-text listings, errors, failed and missing results,
// redacted arguments, dates, writes read back, destructive tools,
// composed strings holding earlier values, and notes or none. The same
// n and seed give the same bytes. Tests pin the compiled skill of such
// traces, so any change to what the compiler makes shows.
func Mixed(n int, seed uint64) []byte {
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	var b bytes.Buffer
	b.WriteString(`{"t":"meta","seq":0,"name":"mixed","startedAt":"2026-07-18T14:02:00.000Z","wrapped":["srv"],"toolAnnotations":{"drop_item":{"destructiveHint":true},"fetch_item":{"readOnlyHint":true}}}` + "\n")
	seq := 1
	line := func(format string, args ...any) {
		fmt.Fprintf(&b, format, args...)
		b.WriteByte('\n')
		seq++
	}
	quote := func(s string) string {
		q, _ := json.Marshal(s)
		return string(q)
	}
	words := []string{"alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliet"}
	names := []string{"Priya Raman", "Ada Lovelace", "Grace Hopper", "Alan Turing", "Edsger Dijkstra"}
	// ids are values earlier results held, for later calls to send.
	var ids, owners, skus, written []string
	pick := func(xs []string, or string) string {
		if len(xs) == 0 {
			return or
		}
		// Mostly recent values, sometimes old ones.
		if r.IntN(4) > 0 {
			return xs[len(xs)-1-r.IntN(min(len(xs), 3))]
		}
		return xs[r.IntN(len(xs))]
	}
	for i := 0; i < n; i++ {
		for k := r.IntN(3); k > 0; k-- {
			text := fmt.Sprintf("Step %d: %s the %s of %s", i, words[r.IntN(len(words))], words[r.IntN(len(words))], names[r.IntN(len(names))])
			if r.IntN(10) == 0 {
				text += "\nwith a second line\tand a tab"
			}
			line(`{"t":"note","seq":%d,"ts":"2026-07-18T14:02:01.000Z","text":%s}`, seq, quote(text))
		}
		var tool, args, body string
		ok := true
		id := fmt.Sprintf("it_%05d_%s", i, words[i%len(words)])
		owner := fmt.Sprintf("usr_%04d", r.IntN(500))
		switch kind := r.IntN(12); kind {
		case 0, 1: // a JSON text result with an object and a list
			tool = "fetch_item"
			args = fmt.Sprintf(`{"id":%s,"owner":%s,"page":%d}`, quote(pick(ids, "it_start")), quote(pick(owners, "usr_0000")), 1+r.IntN(3))
			sku := fmt.Sprintf("sku-%d-%d", i, r.IntN(100))
			doc := fmt.Sprintf(`{"id":%s,"owner":{"id":%s,"name":%s},"lines":[{"sku":%s,"qty":%d,"price":%d.5}],"status":"open","total":%d,"created":"2026-07-18T14:02:%02dZ","uuid":"%08x-1234-4abc-8def-%012x"}`,
				quote(id), quote(owner), quote(names[r.IntN(len(names))]), quote(sku), 1+r.IntN(9), 100+r.IntN(900), 1000+r.IntN(100000), r.IntN(60), r.Uint32(), r.Uint64()&0xffffffffffff)
			body = fmt.Sprintf(`{"content":[{"type":"text","text":%s}]}`, quote(doc))
			ids, owners, skus = append(ids, id), append(owners, owner), append(skus, sku)
		case 2: // structured content beside its text
			tool = "get_summary"
			args = fmt.Sprintf(`{"item":%s,"count":%d}`, quote(pick(ids, "it_start")), r.IntN(100000))
			doc := fmt.Sprintf(`{"item":%s,"score":%d,"label":%s}`, quote(id), r.IntN(1000), quote(words[r.IntN(len(words))]))
			body = fmt.Sprintf(`{"content":[{"type":"text","text":%s}],"structuredContent":%s}`, quote(doc), doc)
			ids = append(ids, id)
		case 3: // a plain-text listing
			tool = "search_docs"
			args = fmt.Sprintf(`{"query":%s}`, quote("report for "+pick(owners, "usr_0000")+" about "+words[r.IntN(len(words))]))
			var t strings.Builder
			fmt.Fprintf(&t, "Found %d documents\n", 2+r.IntN(3))
			for k := 0; k < 3; k++ {
				fmt.Fprintf(&t, "- name: report-%d-%d.txt owner=%s\n", i, k, owner)
			}
			t.WriteString("Prepared by " + names[r.IntN(len(names))])
			body = fmt.Sprintf(`{"content":[{"type":"text","text":%s}]}`, quote(t.String()))
			owners = append(owners, owner)
		case 4: // a write, later read back
			tool = "save_note"
			w := fmt.Sprintf("note %s %d", words[r.IntN(len(words))], i)
			args = fmt.Sprintf(`{"title":%s,"when":"2026-07-%02d","tags":[%s,%s]}`, quote(w), 1+r.IntN(28), quote(words[r.IntN(len(words))]), quote(pick(skus, "sku-0-0")))
			body = `{"content":[{"type":"text","text":"{\"saved\": true}"}]}`
			written = append(written, w)
		case 5: // a read showing what was written
			tool = "list_notes"
			args = `{"limit":50}`
			body = fmt.Sprintf(`{"content":[{"type":"text","text":%s}]}`, quote("notes:\n"+pick(written, "none")+"\n"+pick(written, "none")))
		case 6: // destructive, with a composed string
			tool = "drop_item"
			args = fmt.Sprintf(`{"target":%s,"reason":%s}`, quote(pick(ids, "it_start")), quote("dropped by "+pick(owners, "usr_0000")+" on 2026-07-18"))
			body = `{"content":[{"type":"text","text":"dropped"}]}`
		case 7: // an error result
			tool = "fetch_item"
			args = fmt.Sprintf(`{"id":%s}`, quote(pick(ids, "it_start")))
			body = `{"content":[{"type":"text","text":"item not found"}],"isError":true}`
		case 8: // a failed call
			tool = "get_summary"
			args = fmt.Sprintf(`{"item":%s}`, quote(pick(ids, "it_start")))
			body = `{"content":[{"type":"text","text":"timeout"}]}`
			ok = false
		case 9: // a redacted secret
			tool = "login"
			args = fmt.Sprintf(`{"user":%s,"password":"«redacted»","token":"Bearer «redacted»"}`, quote(pick(owners, "usr_0000")))
			body = `{"content":[{"type":"text","text":"{\"session\":\"s-1\",\"expires_in\":3600}"}]}`
		case 10: // numbers and a number held as a string
			tool = "price_check"
			args = fmt.Sprintf(`{"sku":%s,"amount":%d,"rate":0.%d}`, quote(pick(skus, "sku-0-0")), 1000+r.IntN(100000), r.IntN(100))
			body = fmt.Sprintf(`{"content":[{"type":"text","text":%s}]}`, quote(fmt.Sprintf(`{"amount":"%d","currency":"EUR","items":[%d,%d]}`, 1000+r.IntN(100000), r.IntN(10), r.IntN(10))))
		default: // a non-object argument list
			tool = "batch_get"
			args = fmt.Sprintf(`[%s,%s]`, quote(pick(ids, "it_start")), quote(pick(skus, "sku-0-0")))
			body = fmt.Sprintf(`{"content":[{"type":"text","text":%s},{"type":"text","text":"second part"}]}`, quote("batch of 2 for "+pick(owners, "usr_0000")))
		}
		line(`{"t":"call","seq":%d,"i":%d,"ts":"2026-07-18T14:02:01.000Z","tool":%s,"args":%s}`, seq, i, quote(tool), args)
		if r.IntN(40) == 0 {
			continue // no result recorded
		}
		line(`{"t":"result","seq":%d,"i":%d,"ok":%t,"ms":%d,"body":%s}`, seq, i, ok, r.IntN(300), body)
	}
	if r.IntN(2) == 0 {
		line(`{"t":"note","seq":%d,"ts":"2026-07-18T14:02:09.000Z","text":"All done"}`, seq)
	}
	return b.Bytes()
}
