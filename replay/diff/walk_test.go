package diff

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/reelier/reelier/tool/jsondata"
)

func TestValues(t *testing.T) {
	only := func(paths ...string) func(string) bool {
		set := map[string]bool{}
		for _, p := range paths {
			set[p] = true
		}
		return func(p string) bool { return set[p] }
	}
	tests := []struct {
		name     string
		a, b     string
		typeOnly func(string) bool
		changes  []Change
		ignored  []Change
	}{
		{name: "equal", a: `{"id":"a","n":[1,2],"o":{"x":null}}`, b: `{"id":"a","n":[1,2],"o":{"x":null}}`},
		{name: "key order does not matter", a: `{"a":1,"b":2}`, b: `{"b":2,"a":1}`},
		{name: "numbers compare by value", a: `{"price":1.50,"n":1e3}`, b: `{"price":1.5,"n":1000}`},
		{name: "changed scalar", a: `{"items":[{"status":"open"}]}`, b: `{"items":[{"status":"closed"}]}`,
			changes: []Change{{Path: "json.items.0.status", From: `"open"`, To: `"closed"`, Kind: Changed}}},
		{name: "added key", a: `{"a":1}`, b: `{"a":1,"b":{"c":true}}`,
			changes: []Change{{Path: "json.b", To: `{"c":true}`, Kind: Added}}},
		{name: "removed key", a: `{"a":1,"b":2}`, b: `{"a":1}`,
			changes: []Change{{Path: "json.b", From: `2`, Kind: Removed}}},
		{name: "array grows", a: `{"items":[1]}`, b: `{"items":[1,2,3]}`,
			changes: []Change{{Path: "json.items.1", To: `2`, Kind: Added}, {Path: "json.items.2", To: `3`, Kind: Added}}},
		{name: "array shrinks", a: `[{"id":"a"},{"id":"b"}]`, b: `[{"id":"a"}]`,
			changes: []Change{{Path: "json.1", From: `{"id":"b"}`, Kind: Removed}}},
		{name: "type changed", a: `{"n":"5"}`, b: `{"n":5}`,
			changes: []Change{{Path: "json.n", From: `"5"`, To: `5`, Kind: Type, Note: "string → number"}}},
		{name: "null is a type", a: `{"n":null}`, b: `{"n":0}`,
			changes: []Change{{Path: "json.n", From: `null`, To: `0`, Kind: Type, Note: "null → number"}}},
		{name: "type-only path: value change ignored", a: `{"id":"item-1","title":"x"}`, b: `{"id":"item-2","title":"x"}`, typeOnly: only("id"),
			ignored: []Change{{Path: "json.id", From: `"item-1"`, To: `"item-2"`, Kind: Changed, Note: "the skill checks only its type"}}},
		{name: "type-only path: type change caught", a: `{"id":"item-1"}`, b: `{"id":7}`, typeOnly: only("id"),
			changes: []Change{{Path: "json.id", From: `"item-1"`, To: `7`, Kind: Type, Note: "string → number"}}},
		{name: "type-only path: missing value caught", a: `{"id":"item-1"}`, b: `{}`, typeOnly: only("id"),
			changes: []Change{{Path: "json.id", From: `"item-1"`, Kind: Removed}}},
		{name: "type-only container: its members still compared", a: `{"items":["a"]}`, b: `{"items":["b"]}`, typeOnly: only("items"),
			changes: []Change{{Path: "json.items.0", From: `"a"`, To: `"b"`, Kind: Changed}}},
		{name: "type-only elsewhere does not hide a change", a: `{"id":"a","s":"x"}`, b: `{"id":"b","s":"y"}`, typeOnly: only("id"),
			changes: []Change{{Path: "json.s", From: `"x"`, To: `"y"`, Kind: Changed}},
			ignored: []Change{{Path: "json.id", From: `"a"`, To: `"b"`, Kind: Changed, Note: "the skill checks only its type"}}},
		{name: "odd keys are quoted", a: `{"a.b":1,"":2}`, b: `{"a.b":3,"":2}`,
			changes: []Change{{Path: `json."a.b"`, From: `1`, To: `3`, Kind: Changed}}},
		{name: "a key written twice: the last counts", a: `{"s":"x","s":"y"}`, b: `{"s":"y"}`},
		{name: "long values are cut", a: `{"s":"` + strings.Repeat("x", 100) + `"}`, b: `{"s":"y"}`,
			changes: []Change{{Path: "json.s", From: `"` + strings.Repeat("x", 79) + `…`, To: `"y"`, Kind: Changed}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, err := jsondata.Parse(tt.a)
			if err != nil {
				t.Fatal(err)
			}
			b, err := jsondata.Parse(tt.b)
			if err != nil {
				t.Fatal(err)
			}
			changes, ignored := Values("json", a, b, tt.typeOnly)
			if d := cmp.Diff(tt.changes, changes, cmpopts.EquateEmpty()); d != "" {
				t.Errorf("changes (-want +got):\n%s", d)
			}
			if d := cmp.Diff(tt.ignored, ignored, cmpopts.EquateEmpty()); d != "" {
				t.Errorf("ignored (-want +got):\n%s", d)
			}
		})
	}
}
