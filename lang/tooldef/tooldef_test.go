package tooldef

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// memoryCreate is server-memory's create_entities as it lists it.
const memoryCreate = `{"name":"create_entities","title":"Create Entities","description":"Create multiple new entities",
"inputSchema":{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{"entities":{"type":"array","items":{"type":"object",
"properties":{"name":{"type":"string","description":"The name"},"entityType":{"type":"string"},"observations":{"type":"array","items":{"type":"string"}}},
"required":["name","entityType","observations"]}}},"required":["entities"]},
"annotations":{"title":"Create","readOnlyHint":false,"destructiveHint":false,"idempotentHint":false,"openWorldHint":false},
"outputSchema":{"type":"object","properties":{"entities":{"type":"array"}}}}`

// edit returns def with fn applied to its decoded form.
func edit(t *testing.T, def string, fn func(m map[string]any)) json.RawMessage {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(def), &m); err != nil {
		t.Fatal(err)
	}
	fn(m)
	out, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func obj(m map[string]any, path ...string) map[string]any {
	for _, p := range path {
		m = m[p].(map[string]any)
	}
	return m
}

func TestCompareDefs(t *testing.T) {
	in := func(m map[string]any) map[string]any { return obj(m, "inputSchema") }
	item := func(m map[string]any) map[string]any { return obj(m, "inputSchema", "properties", "entities", "items") }
	tests := []struct {
		name string
		edit func(m map[string]any)
		want []string
	}{
		{"key order only: the definition re-encoded with its keys sorted", func(map[string]any) {}, nil},
		{"added optional", func(m map[string]any) {
			obj(in(m), "properties")["dryRun"] = map[string]any{"type": "boolean"}
		}, []string{"input field dryRun added (boolean, optional)"}},
		{"added required", func(m map[string]any) {
			obj(in(m), "properties")["tenant"] = map[string]any{"type": "string"}
			in(m)["required"] = []any{"entities", "tenant"}
		}, []string{"input field tenant added (string, required)"}},
		{"removed", func(m map[string]any) {
			delete(obj(in(m), "properties"), "entities")
			in(m)["required"] = []any{}
		}, []string{"input field entities removed (it was {entityType: string, name: string, observations: string[]}[])"}},
		{"retyped", func(m map[string]any) {
			obj(item(m), "properties", "name")["type"] = "integer"
		}, []string{"input field entities[].name retyped: string → integer"}},
		{"nested added", func(m map[string]any) {
			obj(item(m), "properties")["priority"] = map[string]any{"type": "number"}
		}, []string{"input field entities[].priority added (number, optional)"}},
		{"nested no longer required", func(m map[string]any) {
			item(m)["required"] = []any{"name", "entityType"}
		}, []string{"input field entities[].observations is no longer required"}},
		{"now required", func(m map[string]any) {
			in(m)["required"] = []any{}
		}, []string{"input field entities is no longer required"}},
		{"union type", func(m map[string]any) {
			obj(item(m), "properties", "name")["type"] = []any{"string", "null"}
		}, []string{"input field entities[].name retyped: string → string|null"}},
		{"constraint only", func(m map[string]any) {
			obj(item(m), "properties", "entityType")["enum"] = []any{"person", "place"}
		}, []string{"inputSchema changed beyond field names, types and requiredness (an enum, format, default or bound; digest "}},
		{"description only is no change", func(m map[string]any) {
			obj(item(m), "properties", "name")["description"] = "Reworded"
			m["description"] = "Reworded too"
			in(m)["$schema"] = "https://json-schema.org/draft/2020-12/schema"
			obj(m, "annotations")["title"] = "Another title"
		}, nil},
		{"annotation only", func(m map[string]any) {
			obj(m, "annotations")["readOnlyHint"] = true
			delete(obj(m, "annotations"), "openWorldHint")
		}, []string{"annotation readOnlyHint: false → true", "annotation openWorldHint: false → unset"}},
		{"output removed", func(m map[string]any) { delete(m, "outputSchema") }, []string{"outputSchema removed"}},
		{"output changed", func(m map[string]any) {
			obj(m, "outputSchema", "properties")["count"] = map[string]any{"type": "integer"}
		}, []string{"outputSchema changed (digest "}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			old, new := json.RawMessage(memoryCreate), edit(t, memoryCreate, tt.edit)
			changes, err := CompareDefs(old, new)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, c := range changes {
				got = append(got, c.String())
			}
			if len(got) != len(tt.want) {
				t.Fatalf("changes %q; want %q", got, tt.want)
			}
			for i := range got {
				if !strings.HasPrefix(got[i], tt.want[i]) {
					t.Errorf("change %d is %q; want %q", i, got[i], tt.want[i])
				}
			}
		})
	}
}

// TestCompareRequired: the other way round, a field becomes required.
func TestCompareRequired(t *testing.T) {
	loose := edit(t, memoryCreate, func(m map[string]any) { obj(m, "inputSchema")["required"] = []any{} })
	changes, err := CompareDefs(loose, json.RawMessage(memoryCreate))
	if err != nil {
		t.Fatal(err)
	}
	if len(changes) != 1 || changes[0].String() != "input field entities is now required" || changes[0].Kind != Required {
		t.Errorf("changes %v; want entities now required", changes)
	}
}

// TestDigestKeyOrder: the digests do not depend on member order or
// spacing, at any depth, and do depend on what a call accepts.
func TestDigestKeyOrder(t *testing.T) {
	a := `{"name":"t","inputSchema":{"type":"object","properties":{"a":{"type":"string","enum":["x","y"]},"b":{"type":"number","minimum":1.0}},"required":["a"]},"annotations":{"readOnlyHint":true,"idempotentHint":true}}`
	b := `{ "annotations" : {"idempotentHint":true, "readOnlyHint":true},
	       "inputSchema": {"required":["a"], "properties":{"b":{"minimum":1,"type":"number"},"a":{"enum":["x","y"],"type":"string"}},"type":"object"}, "name":"t"}`
	da, err := Digest(json.RawMessage(a))
	if err != nil {
		t.Fatal(err)
	}
	db, err := Digest(json.RawMessage(b))
	if err != nil {
		t.Fatal(err)
	}
	if da != db {
		t.Errorf("digests differ with key order only:\n%+v\n%+v", da, db)
	}
	if da.Output != "" || da.Annotations == "" || len(da.Input) != 64 {
		t.Errorf("digests %+v: want a 64-digit input, annotations, no output", da)
	}
	c := strings.Replace(a, `["x","y"]`, `["y","x"]`, 1)
	dc, _ := Digest(json.RawMessage(c))
	if dc.Input == da.Input {
		t.Error("reordering an enum's values (data, not keys) did not change the digest")
	}
	// A property named like a descriptive keyword is a property, kept.
	d1 := `{"name":"t","inputSchema":{"type":"object","properties":{"description":{"type":"string"}}}}`
	d2 := `{"name":"t","inputSchema":{"type":"object","properties":{}}}`
	x1, _ := Digest(json.RawMessage(d1))
	x2, _ := Digest(json.RawMessage(d2))
	if x1.Input == x2.Input {
		t.Error("a property named description was dropped as if it were the keyword")
	}
	// A default (data) holding a member named description is kept whole.
	e1 := `{"name":"t","inputSchema":{"type":"object","default":{"description":"a"}}}`
	e2 := `{"name":"t","inputSchema":{"type":"object","default":{"description":"b"}}}`
	y1, _ := Digest(json.RawMessage(e1))
	y2, _ := Digest(json.RawMessage(e2))
	if y1.Input == y2.Input {
		t.Error("a default's member was dropped as if it were the keyword")
	}
	if _, err := Digest(json.RawMessage(`[1]`)); err == nil {
		t.Error("an array read as a tool definition")
	}
}

func TestLine(t *testing.T) {
	tool, err := Read(json.RawMessage(memoryCreate))
	if err != nil {
		t.Fatal(err)
	}
	line := tool.Line()
	want := "create_entities(entities: {entityType: string, name: string, observations: string[]}[]) in=" + tool.Input + " out=" + tool.Output + " hints=!readOnly,!destructive,!idempotent,!openWorld"
	if line != want {
		t.Errorf("line\n%s\nwant\n%s", line, want)
	}
	back, err := Parse(line)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(tool, back, cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("Parse(Line()) differs (-read +parsed):\n%s", diff)
	}
}

func TestReadTypes(t *testing.T) {
	tests := []struct{ schema, want string }{
		{`{"type":"object"}`, "t() in="},
		{`{"type":"object","properties":{"a":{}}}`, "t(a?: any) in="},
		{`{"type":"object","properties":{"a":{"type":["string","null"]}},"required":["a"]}`, "t(a: string|null) in="},
		{`{"type":"object","properties":{"a":{"type":"array","items":{"anyOf":[{"type":"string"},{"type":"integer"}]}}}}`, "t(a?: (string|integer)[]) in="},
		{`{"type":"object","properties":{"a":{"enum":["x",1,2.5]}}}`, "t(a?: string|integer|number) in="},
		{`{"type":"object","properties":{"a":{"const":true}}}`, "t(a?: boolean) in="},
		{`{"type":"object","properties":{"my key":{"type":"string"}}}`, `t("my key"?: string) in=`},
		{`{"type":"object","properties":{"a":{"type":"object","properties":{"b":{"type":"object","properties":{"c":{"type":"object","properties":{"d":{"type":"string"}}}}}}}}}`, "t(a?: {b?: {c?: object}}) in="},
		{`{"type":"object","properties":{"a":{"type":"array","items":{"type":"array","items":{"type":"number"}}}}}`, "t(a?: number[][]) in="},
		{`{"type":"object","properties":{"a":{"$ref":"#/$defs/x"}}}`, "t(a?: any) in="},
		{`{"type":"object","properties":{"a":{"type":"not a word!"}}}`, "t(a?: any) in="},
	}
	for _, tt := range tests {
		tool, err := Read(json.RawMessage(`{"name":"t","inputSchema":` + tt.schema + `}`))
		if err != nil {
			t.Fatal(err)
		}
		line := tool.Line()
		if !strings.HasPrefix(line, tt.want) {
			t.Errorf("%s: line %q; want it to start %q", tt.schema, line, tt.want)
		}
		back, err := Parse(line)
		if err != nil {
			t.Errorf("%s: %q does not read back: %v", tt.schema, line, err)
		} else if back.Line() != line {
			t.Errorf("%s: %q reads back as %q", tt.schema, line, back.Line())
		}
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct{ line, want string }{
		{"", "column 1: want a tool name"},
		{"t", `column 2: want "(" after the tool name`},
		{"t() ", "want in= and the input schema's digest"},
		{"t() in=xyz", `in= wants 8 hex digits, got "xyz"`},
		{"t() in=0123abcd in=0123abcd", "in= given twice"},
		{"t() in=0123abcd hints=readonly", `unknown hint "readonly"`},
		{"t() in=0123abcd hints=readOnly,readOnly", "hint readOnly given twice"},
		{"t() in=0123abcd size=3", `unknown "size="`},
		{"t(a string) in=0123abcd", `want ":" after a field name`},
		{"t(a: ) in=0123abcd", "want a type"},
		{"t(a: string, a: number) in=0123abcd", "field a given twice"},
		{"t(a: (string)[]) in=0123abcd", "parentheses group a union only"},
		{"t(a: (string|null)) in=0123abcd", "a group is an array's element"},
		{`t("a: string) in=0123abcd`, "unterminated quoted name"},
		{"t(a: {b: string) in=0123abcd", `want "," or "}" after a field`},
		{"t(a: string" + strings.Repeat("[]", 10), `want "," or ")" after a field`},
		{"t(a: " + strings.Repeat("{b: ", 100), "nested more than 64 deep"},
	}
	for _, tt := range tests {
		_, err := Parse(tt.line)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Parse(%q) = %v; want an error with %q", tt.line, err, tt.want)
		}
	}
}

func TestParseList(t *testing.T) {
	value := "a() in=0123abcd\n\n  b(x: string) in=0123abcd hints=readOnly\nc(x string) in=0123abcd\na() in=0123abcd"
	tools, errs := ParseList(value)
	if len(tools) != 2 || tools[0].Name != "a" || tools[1].Name != "b" {
		t.Errorf("tools %+v; want a and b", tools)
	}
	var got []string
	for _, e := range errs {
		got = append(got, e.Error())
	}
	want := []string{`line 4, column 5: want ":" after a field name`, "line 5, column 1: tool a is listed twice"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("errors (-want +got):\n%s", diff)
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"create_entities(entities: {entityType: string, name: string, observations: string[]}[]) in=0123abcd out=89abcdef hints=!readOnly,destructive",
		`t("a b"?: (string|null)[][], c: {}) in=0123abcd`, "t() in=0123abcd", "", "t(", `t("\u00e9": any) in=00000000`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		tool, err := Parse(line)
		if err != nil {
			var se *SyntaxError
			if e, ok := err.(*SyntaxError); !ok || e.Col < 0 || e.Col > len(line) {
				t.Fatalf("Parse(%q): error %v (%T) is not a SyntaxError in the line", line, err, se)
			}
			return
		}
		// What reads, prints in the canonical form, which reads back the same.
		out := tool.Line()
		back, err := Parse(out)
		if err != nil {
			t.Fatalf("Parse(%q) read, but its line %q does not: %v", line, out, err)
		}
		if back.Line() != out {
			t.Fatalf("%q → %q → %q", line, out, back.Line())
		}
		if len(Compare(tool, back)) != 0 {
			t.Fatalf("%q and its reprint compare as changed: %v", line, Compare(tool, back))
		}
	})
}

// FuzzRead: any bytes read as a definition or fail cleanly; what reads
// prints a line that reads back to the same tool.
func FuzzRead(f *testing.F) {
	f.Add([]byte(memoryCreate))
	f.Add([]byte(`{"name":"t","inputSchema":{"type":"object","properties":{"a":{"type":["string","null"]},"b":{"anyOf":[{"type":"integer"},{"enum":[1,"x",null]}]}}}}`))
	f.Add([]byte(`{"name":"x y","inputSchema":true,"annotations":{"readOnlyHint":"yes"}}`))
	f.Add([]byte(`null`))
	f.Fuzz(func(t *testing.T, def []byte) {
		tool, err := Read(json.RawMessage(def))
		if err != nil {
			return
		}
		if _, err := Digest(json.RawMessage(def)); err != nil {
			t.Fatalf("Read accepted %q but Digest did not: %v", def, err)
		}
		back, err := Parse(tool.Line())
		if err != nil {
			t.Fatalf("the line of %q, %q, does not read: %v", def, tool.Line(), err)
		}
		if cs := Compare(tool, back); len(cs) != 0 {
			t.Fatalf("the line of %q reads back changed: %v", def, cs)
		}
	})
}

// TestDeepSchema: a schema nested far deeper than a signature spells out
// still gives a line that reads back.
func TestDeepSchema(t *testing.T) {
	schema := `{"type":"string"}`
	for range 200 {
		schema = `{"anyOf":[{"type":"array","items":` + schema + `},{"type":"null"}]}`
	}
	tool, err := Read(json.RawMessage(`{"name":"deep","inputSchema":{"type":"object","properties":{"a":` + schema + `}}}`))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Parse(tool.Line()); err != nil {
		t.Errorf("%q does not read back: %v", tool.Line(), err)
	}
}
