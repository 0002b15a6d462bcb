package compile

import (
	"strings"
	"testing"

	"github.com/reelier/reelier/internal/jsregex"
	"github.com/reelier/reelier/lang/ast"
	"github.com/reelier/reelier/tool/jsondata"
)

// selText renders a selection for these tests only (package format
// prints skills): pick, source, where, by and field.
func selText(s *ast.Selection) string {
	if s == nil {
		return "<none>"
	}
	var b strings.Builder
	b.WriteString(string(s.Pick) + "(")
	if s.Source.Kind == ast.SourceLines {
		b.WriteString("lines /" + s.Source.Pattern + "/")
	} else {
		b.WriteString("json")
		if len(s.Source.Path.Elements) > 0 {
			b.WriteString("." + s.Source.Path.String())
		}
	}
	for i, c := range s.Where {
		if i == 0 {
			b.WriteString(" where ")
		} else {
			b.WriteString(" and ")
		}
		b.WriteString(c.Key.String() + " " + string(c.Op) + " ")
		switch v := c.Value.(type) {
		case *ast.String:
			b.WriteString(jsondata.String(v.Value))
		case *ast.Number:
			b.WriteString(v.Raw)
		}
	}
	if s.HasBy {
		b.WriteString(" by " + s.By.String())
		if s.Order != "" {
			b.WriteString(" as " + string(s.Order))
		}
	}
	b.WriteString(")")
	if len(s.Field.Elements) > 0 {
		b.WriteString("." + s.Field.String())
	}
	return b.String()
}

func mustObjects(t *testing.T, js string) []*jsondata.Object {
	t.Helper()
	v, err := jsondata.Parse(js)
	if err != nil {
		t.Fatal(err)
	}
	arr, _ := v.([]any)
	objs, ok := objects(arr)
	if !ok {
		t.Fatalf("not an array of objects: %s", js)
	}
	return objs
}

// TestInduce: each reason the agent can have for a pick, and the
// position kept when none explains it.
func TestInduce(t *testing.T) {
	tests := []struct {
		name   string
		cands  string
		picked int
		field  string
		known  map[string]string
		notes  string
		want   string
	}{
		{"the only element holding a bound value", `[{"name":"Lead-0042","id":"a1"},{"name":"Lead-0088","id":"b2"}]`, 1, "id",
			map[string]string{"Lead-0088": "lead"}, "", `only(json.entities where name == "{{lead}}").id`},
		{"the only element holding what the step sent", `[{"name":"Zed","entityType":"person"},{"name":"Acme Corp","entityType":"customer"}]`, 1, "name",
			map[string]string{"customer": ""}, "", `only(json.entities where entityType == "customer").name`},
		{"a value the note names", `[{"title":"Fix login","id":"t1"},{"title":"Write docs","id":"t2"}]`, 0, "id",
			nil, "close the task \"fix login\"", `only(json.entities where title == "Fix login").id`},
		{"the newest by date, unasked", `[{"name":"r1","created":"2026-03-01"},{"name":"r2","created":"2026-04-01"},{"name":"r0","created":"2026-01-01"}]`, 1, "name",
			nil, "", `max(json.entities by created as date).name`},
		{"the lowest of a field the note names", `[{"sku":"W1","stock":12},{"sku":"G2","stock":3},{"sku":"H3","stock":7}]`, 1, "sku",
			nil, "restock the item with the lowest stock", `min(json.entities by stock as number).sku`},
		{"a number is no reason unasked", `[{"sku":"W1","stock":12},{"sku":"G2","stock":3}]`, 1, "sku",
			nil, "", `<none>`},
		{"the only one of its category", `[{"name":"Dana","entityType":"person"},{"name":"Acme","entityType":"customer"},{"name":"Bo","entityType":"person"}]`, 1, "name",
			nil, "", `only(json.entities where entityType == "customer").name`},
		{"the only element there was", `[{"name":"Acme"}]`, 0, "name", nil, "", `only(json.entities).name`},
		{"a tie is no extreme", `[{"n":"a","created":"2026-03-01"},{"n":"b","created":"2026-03-01"}]`, 1, "n", nil, "newest", `<none>`},
		{"a mixed-typed ordering key is no ordering", `[{"n":"a","created":"2026-03-01"},{"n":"b","created":5}]`, 0, "n", nil, "newest", `<none>`},
		{"a missing ordering key is no ordering", `[{"n":"a","created":"2026-03-01"},{"n":"b"}]`, 0, "n", nil, "newest", `<none>`},
		{"an id with digits is not dated", `[{"id":"TASK-1012"},{"id":"TASK-1007"}]`, 0, "id", nil, "", `<none>`},
		{"a numbered name is the newest only when asked", `[{"f":"report-7.csv"},{"f":"report-12.csv"}]`, 1, "f", nil, "read the latest report", `max(json.entities by f as name).f`},
		{"versions compare by their numbers", `[{"tag":"v1.9.2"},{"tag":"v1.10.0"}]`, 1, "tag", nil, "latest release", `max(json.entities by tag as version).tag`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := pickSite{src: jsonSource("entities"), cands: mustObjects(t, tt.cands), picked: tt.picked, field: tt.field, known: func(v string) (string, bool) { h, ok := tt.known[v]; return h, ok }, notes: strings.ToLower(tt.notes)}
			got, _ := induce(p)
			if s := selText(got); s != tt.want {
				t.Errorf("got  %s\nwant %s", s, tt.want)
			}
		})
	}
}

// TestListingSite: the lines shaped like the picked one are the
// candidates, and the rule reads their captures.
func TestListingSite(t *testing.T) {
	tests := []struct {
		name, text, tok, notes, want string
	}{
		{"the newest log of a listing", "[DIR] archive\n[FILE] app-2026-03.log\n[FILE] app-2026-04.log\n[FILE] notes.txt\n", "app-2026-04.log", "",
			`max(lines /^\[FILE\] (?<file>app-[^\s|,;\[\]()"']*?\.log)$/ by file as name).file`},
		{"the lowest row of a CSV", "name,stock\n\"Widget\",12\n\"Gadget\",3\n\"Gizmo\",7\n", "Gadget", "order more of the lowest stock item",
			`min(lines /^"(?<name>[^"]*)",(?<stock>-?\d+(?:\.\d+)?)$/ by stock as number).name`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			site, ok := listingSite(tt.text, tt.tok)
			if !ok {
				t.Fatalf("no listing site")
			}
			p := pickSite{src: linesSource(site.pattern), cands: site.cands, picked: site.picked, field: site.capture, notes: tt.notes, lines: true}
			got, _ := induce(p)
			if s := selText(got); s != tt.want {
				t.Errorf("got  %s\nwant %s", s, tt.want)
			}
		})
	}
}

// FuzzListingSite: any text and token — a listing's rows come from a
// server — give either no site, or a site whose pattern compiles, whose
// picked row captures the token, and whose rule (if any) reads fields the
// candidates have; never a panic.
func FuzzListingSite(f *testing.F) {
	f.Add("[DIR] archive\n[FILE] app-2026-03.log\n[FILE] app-2026-04.log\n", "app-2026-04.log", "newest")
	f.Add("name,stock\n\"Widget\",12\n\"Gadget\",3\n\"Gizmo\",7\n", "Gadget", "lowest stock")
	f.Add("| a | 1 |\n| b | 2 |\n| c | 3 |\n", "b", "")
	f.Add("\"\",\"\"\n\"x\",\"\"\n", "x", "")
	f.Fuzz(func(t *testing.T, text, tok, notes string) {
		if len(text) > 1<<14 || tok == "" {
			return
		}
		site, ok := listingSite(text, tok)
		if !ok {
			return
		}
		if _, err := jsregex.CompileUncached(site.pattern); err != nil {
			t.Fatalf("pattern %q does not compile: %v", site.pattern, err)
		}
		if v, _ := site.cands[site.picked].Get(site.capture); v != tok {
			t.Fatalf("picked row captures %v, want %q", v, tok)
		}
		p := pickSite{src: linesSource(site.pattern), cands: site.cands, picked: site.picked, field: site.capture, notes: strings.ToLower(notes), lines: true}
		if sel, _ := induce(p); sel != nil && !isPathKey(sel.Field.String()) {
			t.Fatalf("field %q is not a path key", sel.Field.String())
		}
	})
}

func TestIsCategoryKey(t *testing.T) {
	for k, want := range map[string]bool{"type": true, "entityType": true, "item_kind": true, "Status": true, "order-state": true,
		"name": false, "typeface": false, "id": false, "": false, "x": false, "customerTier": true, "prototype": false} {
		if got := isCategoryKey(k); got != want {
			t.Errorf("isCategoryKey(%q) = %v, want %v", k, got, want)
		}
	}
}

// TestRuleBounds: a collection past maxCandidates, and a listing past
// maxListingLines, give no rule (the position stays, with its question)
// instead of an unbounded search.
func TestRuleBounds(t *testing.T) {
	big := make([]any, maxCandidates+1)
	for i := range big {
		big[i] = &jsondata.Object{Members: []jsondata.Member{{Key: "name", Value: "n"}}}
	}
	if _, ok := objects(big); ok {
		t.Errorf("objects accepted %d elements", len(big))
	}
	var b strings.Builder
	for i := range 100000 {
		b.WriteString("[FILE] app-")
		b.WriteString(strings.Repeat("9", 1+i%5))
		b.WriteString(".log\n")
	}
	b.WriteString("[FILE] app-last.log\n")
	if _, ok := listingSite(b.String(), "app-last.log"); ok {
		t.Errorf("a row past the first %d lines was picked by a rule", maxListingLines)
	}
}

func TestNotComputed(t *testing.T) {
	for k, want := range map[string]bool{"page": true, "per_page": true, "userId": true, "limit": true, "total": false, "amount": false, "": false} {
		if got := notComputed(k); got != want {
			t.Errorf("notComputed(%q) = %v, want %v", k, got, want)
		}
	}
}
