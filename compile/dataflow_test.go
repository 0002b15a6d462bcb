package compile

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/reelier/reelier/lang/ast"
)

// mineOne indexes doc as step 0's result with want as the values calls
// send, and returns where each value was found ("" when not found, "!"
// prefixed when no path can name it).
func mineOne(t *testing.T, doc string, want ...ast.Value) []string {
	t.Helper()
	x := newValueIndex()
	for _, v := range want {
		x.want(leafOf(v), 2)
	}
	mineDoc(x, 0, doc)
	out := make([]string, len(want))
	for i, v := range want {
		src := lookupSrc(x, leafOf(v))
		switch {
		case src == nil:
		case src.bindable:
			out[i] = src.dotted()
		default:
			out[i] = "!" + src.display()
		}
	}
	return out
}

// mineDoc mines text as step's result: as a JSON document when it is one,
// as text otherwise.
func mineDoc(x *valueIndex, step int, text string) {
	var doc []byte
	if json.Valid([]byte(text)) {
		doc = []byte(text)
	}
	x.mine(step, doc, text, nil, nil)
}

// lookupSrc returns where the index last saw a leaf's value, or nil.
func lookupSrc(x *valueIndex, l argLeaf) *source {
	if s := x.lookup(x.slots(l), l.key); s != nil {
		return s.src
	}
	return nil
}

func str(s string) *ast.String { return &ast.String{Value: s} }
func num(s string) *ast.Number { return &ast.Number{Raw: s} }

func TestValueIndex(t *testing.T) {
	tests := []struct {
		name string
		doc  string
		want []ast.Value
		at   []string
	}{
		{"object path", `{"a":{"b":"val_1"}}`, []ast.Value{str("val_1")}, []string{"a.b"}},
		{"array path", `{"items":[{"id":"x_001"},{"id":"x_002"}]}`, []ast.Value{str("x_002")}, []string{"items.1.id"}},
		{"root array", `["abcd"]`, []ast.Value{str("abcd")}, []string{"0"}},
		{"object beats array", `{"list":["same"],"one":"same"}`, []ast.Value{str("same")}, []string{"one"}},
		{"first of equals", `{"a":"dup1","b":"dup1"}`, []ast.Value{str("dup1")}, []string{"a"}},
		{"bindable beats object", `{"user-id":"u_77","user":{"id":"u_77"}}`, []ast.Value{str("u_77")}, []string{"user.id"}},
		{"unbindable key", `{"user-id":"u_77"}`, []ast.Value{str("u_77")}, []string{`!"user-id"`}},
		{"empty key", `{"":"u_77"}`, []ast.Value{str("u_77")}, []string{`!""`}},
		{"root scalar", `"whole"`, []ast.Value{str("whole")}, []string{"!"}},
		{"escaped value", `{"n":"Zo\u00eb \"Q\""}`, []ast.Value{str("Zoë \"Q\"")}, []string{"n"}},
		{"escaped key", `{"na\u006de":"zoe_1"}`, []ast.Value{str("zoe_1")}, []string{"name"}},
		{"digit key on object", `{"2024":{"total":"t_99"}}`, []ast.Value{str("t_99")}, []string{"2024.total"}},
		{"integer", `{"n":100234}`, []ast.Value{num("100234")}, []string{"n"}},
		{"number spellings", `{"a":1000,"b":0.125,"c":1.5e2}`, []ast.Value{num("1e3"), num("0.1250"), num("150")}, []string{"a", "b", "c"}},
		{"float spelled as float", `{"c":1.5e3}`, []ast.Value{num("1500.0"), num("150.0")}, []string{"c", ""}},
		// A value of the other type is seen only as a token of the body text
		// ("!": no JSON path); recovery decides what that is worth.
		{"string is not a number", `{"a":"1234"}`, []ast.Value{num("1234")}, []string{"!"}},
		{"number is not a string", `{"a":1234}`, []ast.Value{str("1234")}, []string{"!"}},
		{"short values are indexed too", `{"a":"abc","b":123}`, []ast.Value{str("abc"), num("123")}, []string{"a", "b"}},
		{"four characters", `{"a":"åäöü"}`, []ast.Value{str("åäöü")}, []string{"a"}},
		{"later duplicate hides earlier", `{"ref":"old_1","ref":"new_2"}`, []ast.Value{str("old_1"), str("new_2")}, []string{"", "ref"}},
		{"duplicate hides a subtree", `{"r":{"x":"deep_1"},"r":{"y":"deep_2"}}`, []ast.Value{str("deep_1"), str("deep_2")}, []string{"", "r.y"}},
		{"duplicate without marks", `{"r":{"x":"nope"},"r":{"x":"deep_1"}}`, []ast.Value{str("deep_1")}, []string{"r.x"}},
		{"duplicates in sibling objects", `[{"k":"v_01"},{"k":"v_02"}]`, []ast.Value{str("v_01"), str("v_02")}, []string{"0.k", "1.k"}},
		{"not json", `{"a":`, []ast.Value{str("abcd")}, []string{""}},
		{"booleans and nulls skipped", `{"t":true,"f":false,"n":null,"s":"hello"}`, []ast.Value{str("hello")}, []string{"s"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := mineOne(t, tt.doc, tt.want...); !reflect.DeepEqual(got, tt.at) {
				t.Errorf("found at %q, want %q", got, tt.at)
			}
		})
	}
}

func TestMostRecentResultWins(t *testing.T) {
	x := newValueIndex()
	x.want(leafOf(str("same_1")), 3)
	mineDoc(x, 0, `{"first":"same_1"}`)
	mineDoc(x, 1, `{"list":["same_1"]}`)
	src := lookupSrc(x, leafOf(str("same_1")))
	if src.step != 1 || src.dotted() != "list.0" || !src.array {
		t.Errorf("got step %d %s array=%v; the later result must win even with a worse path", src.step, src.dotted(), src.array)
	}
}

func TestBindNames(t *testing.T) {
	key := func(k string) pathSeg { return pathSeg{key: k, index: -1} }
	idx := func(i int) pathSeg { return pathSeg{index: i} }
	tests := []struct {
		path []pathSeg
		want []string
	}{
		{[]pathSeg{key("id")}, []string{"id"}},
		{[]pathSeg{key("owner"), key("id")}, []string{"id", "owner_id"}},
		{[]pathSeg{key("items"), idx(0), key("id")}, []string{"item_id", "id", "items_id"}},
		{[]pathSeg{key("ids"), idx(0)}, []string{"ids_0"}},
		{[]pathSeg{idx(0)}, []string{"item_0"}},
		{[]pathSeg{idx(2), idx(1)}, []string{"item_2_1"}},
		{[]pathSeg{key("stats"), key("2024")}, []string{"stats_2024"}},
		{[]pathSeg{key("2024")}, []string{"v_2024"}},
		{[]pathSeg{key("a"), key("1b"), key("c")}, []string{"c", "a_1b_c"}},
		{[]pathSeg{key("today")}, []string{"v_today"}},
		{[]pathSeg{key("stats"), key("Today2")}, []string{"v_Today2", "stats_Today2"}},
	}
	for _, tt := range tests {
		if got := bindNames(tt.path); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("bindNames(%v) = %q, want %q", tt.path, got, tt.want)
		}
	}
	b := newBinder(0)
	got := []string{b.fresh([]string{"id"}, 0), b.fresh([]string{"id", "owner_id"}, 0), b.fresh([]string{"id"}, 0), b.fresh([]string{"id", "owner_id"}, 0), b.fresh([]string{"today"}, 0), b.fresh([]string{"today"}, 0),
		b.fresh([]string{"id"}, 4), b.fresh([]string{"id", "owner_id"}, 4)}
	if want := []string{"id", "owner_id", "id_2", "owner_id_2", "today_2", "today_3", "id_step4", "owner_id_3"}; !reflect.DeepEqual(got, want) {
		t.Errorf("fresh names %q, want %q", got, want)
	}
}

func TestOneLineAndClip(t *testing.T) {
	for in, want := range map[string]string{
		"  a\n\tb\r\nc  ": "a b c",
		"x\u2028y\x00z":   "x y z",
		"\xffok":          "\uFFFDok",
		"   ":             "",
	} {
		if got := oneLine(in); got != want {
			t.Errorf("oneLine(%q) = %q, want %q", in, got, want)
		}
	}
	if got := clip("short", 10); got != "short" {
		t.Errorf("clip short = %q", got)
	}
	if got := clip("one two three four five", 12); got != "one two…" {
		t.Errorf("clip words = %q", got)
	}
	if got := clip("abcdefghijklmnop", 5); got != "abcd…" {
		t.Errorf("clip runes = %q", got)
	}
}

func TestCheckTool(t *testing.T) {
	for tool, ok := range map[string]bool{
		"get_user": true, "http.get": true, "0_create-x": true, "ünïcode": true,
		"": false, "two words": false, "tab\tbed": false, "{x": false, "[x": false, `"x`: false, "bad\xff": false, "nl\n": false,
	} {
		if err := checkTool(tool); (err == nil) != ok {
			t.Errorf("checkTool(%q) = %v", tool, err)
		}
	}
}

// TestManyMarkedMembers covers an object where more members hold wanted
// values than the short list keeps, with duplicates hiding some of them.
func TestManyMarkedMembers(t *testing.T) {
	var doc strings.Builder
	var want []ast.Value
	doc.WriteString("{")
	for i := range 20 {
		fmt.Fprintf(&doc, `"k%d":"val_%02d",`, i, i)
		want = append(want, str(fmt.Sprintf("val_%02d", i)))
	}
	// k3 and k15 are written again: their first values are hidden.
	doc.WriteString(`"k3":"other","k15":{"x":"val_99"}}`)
	want = append(want, str("val_99"))
	got := mineOne(t, doc.String(), want...)
	for i := range 20 {
		w := fmt.Sprintf("k%d", i)
		if i == 3 || i == 15 {
			w = ""
		}
		if got[i] != w {
			t.Errorf("val_%02d found at %q, want %q", i, got[i], w)
		}
	}
	if got[20] != "k15.x" {
		t.Errorf("val_99 found at %q", got[20])
	}
}
