package render

import (
	"bytes"
	"strings"
	"testing"
)

func read(t *testing.T, src string) *Trace {
	t.Helper()
	tr, err := Read(strings.NewReader(src))
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

// TestTextColour: on a terminal, notes, tools and outcomes are coloured.
func TestTextColour(t *testing.T) {
	tr := read(t, `{"t":"meta","seq":0,"name":"n","startedAt":"s","wrapped":[]}
{"t":"note","seq":1,"ts":"s","text":"step"}
{"t":"call","seq":2,"i":0,"ts":"s","tool":"x","args":{}}
{"t":"result","seq":3,"i":0,"ok":false,"ms":1,"body":{"content":[],"isError":true}}
`)
	if len(tr.Problems) > 0 {
		t.Fatal(tr.Problems)
	}
	var b bytes.Buffer
	if err := tr.Text(&b, true); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"\x1b[1;36m## step\x1b[0m", "\x1b[1mx\x1b[0m", "\x1b[31merror\x1b[0m"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("no %q in %q", want, b.String())
		}
	}
}

// TestTextEscapes: a trace's names, notes, arguments and bodies cannot
// repaint the terminal, and neither can a bad line's reason.
func TestTextEscapes(t *testing.T) {
	tr := read(t, `{"t":"meta","seq":0,"name":"n\u001b[2J","startedAt":"s\r","wrapped":["srv\u202e"],"toolAnnotations":{"t\u0007":{"readOnlyHint":true}}}
{"t":"note","seq":1,"ts":"s","text":"step\u001b]0;owned\u0007 \u2066one"}
{"t":"call","seq":2,"i":0,"ts":"s","tool":"x\u001b[1m","args":{"q":"\u202e\u0085"}}
{"t":"result","seq":3,"i":0,"ok":true,"ms":1,"body":{"content":[{"type":"text","text":"a\rPASS\u001b[K\nb"}]}}
{"t":"bogus\u001b[2J"}
`)
	var out, errw bytes.Buffer
	if err := tr.Text(&out, false); err != nil {
		t.Fatal(err)
	}
	if err := tr.WriteProblems(&errw, "x\u202e.jsonl"); err != nil {
		t.Fatal(err)
	}
	for name, s := range map[string]string{"stdout": out.String(), "stderr": errw.String()} {
		for _, bad := range []string{"\x1b", "\r", "\a", "\u202e", "\u2066", "\u0085"} {
			if strings.Contains(s, bad) {
				t.Errorf("%s holds %q:\n%s", name, bad, s)
			}
		}
	}
	for _, want := range []string{`trace n\x1b[2J · started s\r · wrapped: srv\u202e`, `## step\x1b]0;owned\x07 \u2066one`, `[0] x\x1b[1m {"q":"\u202e`, `ok 1 ms a PASS\x1b[K b`} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("no %q in\n%s", want, out.String())
		}
	}
}

func TestReadProblems(t *testing.T) {
	tr := read(t, `{"t":"note","seq":1,"ts":"s","text":"first"}
{"t":"meta","seq":0,"name":"n","startedAt":"s","wrapped":[]}
{"t":"call","seq":2,"i":0,"ts":"s","tool":"x","args":{}}
{"t":"call","seq":3,"i":0,"ts":"s","tool":"x","args":{}}
{"t":"result","seq":4,"i":7,"ok":true,"ms":1,"body":{}}
`)
	var b bytes.Buffer
	tr.WriteProblems(&b, "t.jsonl")
	want := `t.jsonl:1: field "t": the first record must be meta
t.jsonl:2: field "t": the meta record must be the first record
t.jsonl:4: field "i": duplicate call index 0
t.jsonl:5: field "i": result for call index 7, which has no earlier call
`
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
	if empty := read(t, ""); !empty.Empty() {
		t.Error("an empty file is not Empty")
	}
}
