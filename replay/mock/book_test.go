package mock_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/reelier/reelier/replay/mock"
)

const meta = `{"t":"meta","seq":0,"name":"x","startedAt":"2026-12-01T09:00:00.000Z","wrapped":["srv"]`

func TestLoadErrors(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	tests := []struct {
		name, text, want string
	}{
		{"missing.jsonl", "", "PATH: cannot open it: no such file or directory"},
		{"empty.jsonl", "\n", "PATH: empty trace: no records"},
		{"corrupt.jsonl", meta + "}\n" + `{"t":"call","seq":1,"i":0,"ts":"s","tool":"a","args":{}` + "\n",
			`PATH:2: not a JSON record: expected a complete JSON object, found "{\"t\":\"call\",\"seq\":1,\"i\":0,\"ts\":\"s\",\"tool…" (unexpected end of JSON input)`},
		{"session.jsonl", `{"type":"user","message":{"role":"user","content":"hi"}}` + "\n", `PATH:1: field "t": missing or not a string`},
		{"notools.jsonl", meta + "}\n" + `{"t":"note","seq":1,"ts":"s","text":"only a note"}` + "\n",
			"PATH: no tools to serve: the meta record lists no servers' tools and no toolAnnotations, and the trace has no calls"},
		{"emptyservers.jsonl", meta + `,"servers":[{"name":"s","command":"srv","tools":[]}]}` + "\n",
			"PATH: no tools to serve: the meta record lists no servers' tools and no toolAnnotations, and the trace has no calls"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(dir, tt.name)
			if tt.text != "" {
				path = write(tt.name, tt.text)
			}
			_, err := mock.Load([]string{path})
			want := strings.ReplaceAll(tt.want, "PATH", path)
			if err == nil || err.Error() != want {
				t.Errorf("Load: %v\nwant %s", err, want)
			}
		})
	}
	if _, err := mock.Load(nil); err == nil || !strings.Contains(err.Error(), "no trace given") {
		t.Errorf("Load(nil) = %v", err)
	}
}

// TestLoadTools: where each served tool comes from, and what the command
// is told to say about it.
func TestLoadTools(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	def := func(name, schema string) string {
		return `{"name":"` + name + `","description":"d","inputSchema":` + schema + `}`
	}
	defs := write("defs.jsonl", meta+`,"servers":[{"name":"s","command":"srv","tools":["a","b","c"],"toolDefs":[`+
		def("a", `{"type":"object","properties":{"x":{"type":"string"}}}`)+`,`+def("b", `{"type":"array"}`)+`]}]}`+"\n")
	names := write("names.jsonl", meta+`,"toolAnnotations":{"z":{"readOnlyHint":true}},"servers":[{"name":"s","command":"srv","tools":["a","y"]}]}`+"\n"+
		`{"t":"call","seq":1,"i":0,"ts":"s","tool":"w","args":{}}`+"\n")
	other := write("other.jsonl", meta+`,"servers":[{"name":"s","command":"srv","tools":["a"],"toolDefs":[`+
		def("a", `{"type":"object"}`)+`]}]}`+"\n")
	book, err := mock.Load([]string{defs, names, other})
	if err != nil {
		t.Fatal(err)
	}
	type row struct {
		Name       string
		Permissive bool
		From       string
	}
	var got []row
	for _, tool := range book.Tools {
		got = append(got, row{tool.Name, tool.Permissive, filepath.Base(tool.From)})
	}
	want := []row{
		{"a", false, "defs.jsonl"},
		{"b", true, "defs.jsonl"}, // its schema is not an object's
		{"c", true, "defs.jsonl"}, // no definition
		{"y", true, "names.jsonl"},
		{"z", true, "names.jsonl"},
		{"w", true, "names.jsonl"}, // called only
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("tools (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]string{defs, names}, book.Permissive); d != "" {
		t.Errorf("permissive traces (-want +got):\n%s", d)
	}
	wantWarnings := []string{
		defs + `: server "s": tool "b": its schema's type is array, not "object"; served with a permissive input schema`,
		other + `: tool "a" is defined differently than in ` + defs + `; serving the definition from ` + defs,
	}
	if d := cmp.Diff(wantWarnings, book.Warnings); d != "" {
		t.Errorf("warnings (-want +got):\n%s", d)
	}
	wantNotices := []string{
		"reelier mock: warning: " + wantWarnings[0],
		"reelier mock: warning: " + wantWarnings[1],
		`reelier mock: 5 of 6 tools are served with a permissive input schema {"type":"object"}: ` + defs + ", " + names + " kept their names only, not their definitions",
	}
	if d := cmp.Diff(wantNotices, book.Notices()); d != "" {
		t.Errorf("notices (-want +got):\n%s", d)
	}
	z, _ := book.Tool("z")
	if !strings.Contains(string(z.Def), `"annotations":{"readOnlyHint":true}`) {
		t.Errorf("z lost its declared annotations: %s", z.Def)
	}
}
