package compile_test

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/reelier/reelier/compile"
	"github.com/reelier/reelier/lang/ast"
	"github.com/reelier/reelier/lang/format"
	"github.com/reelier/reelier/lang/lint"
	"github.com/reelier/reelier/lang/verbs"
	"github.com/reelier/reelier/testkit/testutil"
	"github.com/reelier/reelier/trace"
)

// specTable returns the rows of the table under the SPEC.md heading
// "### <title> (contract)", each row's cells trimmed, header and rule
// left out.
func specTable(t *testing.T, title string) [][]string {
	t.Helper()
	src, err := os.ReadFile(filepath.Join(testutil.Root(), "SPEC.md"))
	if err != nil {
		t.Fatal(err)
	}
	var rows [][]string
	in, header := false, false
	for _, line := range strings.Split(string(src), "\n") {
		switch {
		case strings.HasPrefix(line, "#"):
			in = strings.TrimSpace(strings.TrimLeft(line, "#")) == title+" (contract)"
			header = false
		case in && strings.HasPrefix(line, "|"):
			if !header || strings.HasPrefix(line, "| ---") {
				header = true
				continue
			}
			var cells []string
			for _, c := range strings.Split(strings.Trim(strings.TrimSpace(line), "|"), "|") {
				cells = append(cells, strings.TrimSpace(c))
			}
			rows = append(rows, cells)
		}
	}
	if len(rows) == 0 {
		t.Fatalf("SPEC.md has no %q contract table", title)
	}
	return rows
}

// TestEffectVerbsContract holds SPEC.md's "Effect verbs (contract)" table
// equal to the verb table the compiler and the lint read.
func TestEffectVerbsContract(t *testing.T) {
	spec := map[string][]string{}
	var order []string
	for _, r := range specTable(t, "Effect verbs") {
		if len(r) != 2 {
			t.Fatalf("row %q does not have 2 cells", r)
		}
		class := strings.Trim(r[0], "`")
		order = append(order, class)
		for _, w := range strings.Split(r[1], ",") {
			spec[class] = append(spec[class], strings.TrimSpace(w))
		}
	}
	code := map[string][]string{"noun phrase": verbs.NounPhrases}
	want := []string{}
	for _, r := range verbs.Table {
		code[r.Class.String()] = r.Words
		want = append(want, r.Class.String())
	}
	want = append(want, "noun phrase")
	if diff := cmp.Diff(want, order); diff != "" {
		t.Errorf("SPEC.md's Effect verbs rows disagree with the code (-code +spec):\n%s", diff)
	}
	for class, words := range code {
		got := slices.Clone(spec[class])
		slices.Sort(got)
		w := slices.Clone(words)
		slices.Sort(w)
		if diff := cmp.Diff(w, got); diff != "" {
			t.Errorf("SPEC.md's %s verbs disagree with the code (-code +spec):\n%s", class, diff)
		}
	}
}

// TestCompiledEffectsPassLint compiles a trace that calls tools named with
// every verb of the table in several positions, under every combination
// of hints a server may declare, and lints the skill with effect_verb: the
// lint must find nothing, since the compiler is never milder than it.
func TestCompiledEffectsPassLint(t *testing.T) {
	var names []string
	for _, r := range verbs.Table {
		for _, w := range r.Words {
			names = append(names, w+"_thing", "get_"+w, "thing_"+w, w+"_or_list", "run_and_"+w, "mcp__srv__"+w+"Thing", "ns."+w)
		}
	}
	names = append(names, "http.post", "http.put", "http.patch", "http.delete", "http.get",
		"fetch_delete_user", "get_refund", "create_entities", "merge_merge_request")
	hints := []string{"", `"readOnlyHint":true`, `"readOnlyHint":false`, `"destructiveHint":true`, `"destructiveHint":false`,
		`"idempotentHint":true`, `"idempotentHint":false`, `"readOnlyHint":true,"idempotentHint":true`,
		`"readOnlyHint":false,"destructiveHint":false,"idempotentHint":false`, `"readOnlyHint":false,"idempotentHint":true`}
	for hi, h := range hints {
		t.Run(fmt.Sprintf("hints %d", hi), func(t *testing.T) {
			var b strings.Builder
			var annJSON []string
			for _, n := range names {
				if h != "" {
					annJSON = append(annJSON, fmt.Sprintf("%q:{%s}", n, h))
				}
			}
			fmt.Fprintf(&b, `{"t":"meta","seq":0,"name":"verbs","startedAt":"2026-07-18T14:02:00.000Z","wrapped":["srv"],"toolAnnotations":{%s}}`+"\n", strings.Join(annJSON, ","))
			seq := 1
			for i, n := range names {
				fmt.Fprintf(&b, `{"t":"call","seq":%d,"i":%d,"ts":"2026-07-18T14:02:03.000Z","tool":%q,"args":{}}`+"\n", seq, i, n)
				fmt.Fprintf(&b, `{"t":"result","seq":%d,"i":%d,"ok":true,"ms":1,"body":{"content":[]}}`+"\n", seq+1, i)
				seq += 2
			}
			tr, err := trace.Read(strings.NewReader(b.String()))
			if err != nil {
				t.Fatal(err)
			}
			out, err := compile.Compile(tr, compile.Options{Source: "verbs.jsonl", Now: fixedNow})
			if err != nil {
				t.Fatal(err)
			}
			d, err := lint.New(lint.Config{Disable: []string{lint.AllRules}, Enable: []string{"effect_verb"}})
			if err != nil {
				t.Fatal(err)
			}
			for _, dg := range d.Run(lint.ParseFile("verbs.skill.md", format.Source(out.Skill))) {
				t.Errorf("the lint flags a compiled step: %s", dg)
			}
		})
	}
}

// TestEffectArgumentsContract holds SPEC.md's "Effect arguments
// (contract)" table equal to the argument words the compiler and the
// effect_arguments lint read.
func TestEffectArgumentsContract(t *testing.T) {
	code := map[string][]string{"mode": verbs.ModeKeys, "enum": nil, "flag": verbs.Flags, "reach": verbs.Reach}
	var kinds []string
	for _, r := range specTable(t, "Effect arguments") {
		if len(r) != 3 {
			t.Fatalf("row %q does not have 3 cells", r)
		}
		kind := strings.Trim(r[0], "`")
		kinds = append(kinds, kind)
		want, ok := code[kind]
		if !ok {
			t.Errorf("SPEC.md's Effect arguments table has a row %q the code does not", kind)
			continue
		}
		var got []string
		if r[1] != "—" {
			for _, w := range strings.Split(r[1], ",") {
				got = append(got, strings.TrimSpace(w))
			}
		}
		w := slices.Clone(want)
		slices.Sort(w)
		if diff := cmp.Diff(w, got); diff != "" {
			t.Errorf("SPEC.md's %s words disagree with the code, or are not sorted (-code +spec):\n%s", kind, diff)
		}
	}
	if diff := cmp.Diff([]string{"mode", "enum", "flag", "reach"}, kinds); diff != "" {
		t.Errorf("SPEC.md's Effect arguments rows (-want +spec):\n%s", diff)
	}
}

// TestCompiledArgumentEffectsPassLint compiles calls that send every mode
// word with every verb of the table, every flag word set to true (alone
// and inside a longer name), under the hints a server may declare, and
// every trace in testdata: the effect_arguments lint must find nothing in
// the skills, since the compiler is never milder than it. The steps the
// lint would flag on their name's effect alone are counted, so the test
// cannot pass by reading nothing.
func TestCompiledArgumentEffectsPassLint(t *testing.T) {
	d, err := lint.New(lint.Config{Disable: []string{lint.AllRules}, Enable: []string{"effect_arguments"}})
	if err != nil {
		t.Fatal(err)
	}
	var args []string
	for _, k := range verbs.ModeKeys {
		for _, r := range verbs.Table {
			for _, w := range r.Words {
				args = append(args, fmt.Sprintf(`{%q: %q}`, k, w), fmt.Sprintf(`{"%s_type": "%s_all"}`, k, w))
			}
		}
	}
	for _, f := range append(slices.Clone(verbs.Flags), verbs.Reach...) {
		args = append(args, fmt.Sprintf(`{%q: true}`, f), fmt.Sprintf(`{"%sAll": true, "mode": "list"}`, f), fmt.Sprintf(`{"%s": false}`, f))
	}
	hints := []string{"", `"readOnlyHint":true`, `"destructiveHint":false`, `"idempotentHint":true`, `"idempotentHint":false`}
	for hi, h := range hints {
		t.Run(fmt.Sprintf("hints %d", hi), func(t *testing.T) {
			var b strings.Builder
			ann := ""
			if h != "" {
				ann = fmt.Sprintf(`"toolAnnotations":{"list_items":{%[1]s},"edit_items":{%[1]s},"frob":{%[1]s}},`, h)
			}
			fmt.Fprintf(&b, `{"t":"meta","seq":0,"name":"args",%s"startedAt":"2026-07-18T14:02:00.000Z","wrapped":["srv"]}`+"\n", ann)
			seq, i := 1, 0
			for _, tool := range []string{"list_items", "edit_items", "frob"} {
				for _, a := range args {
					fmt.Fprintf(&b, `{"t":"call","seq":%d,"i":%d,"ts":"2026-07-18T14:02:03.000Z","tool":%q,"args":%s}`+"\n", seq, i, tool, a)
					fmt.Fprintf(&b, `{"t":"result","seq":%d,"i":%d,"ok":true,"ms":1,"body":{"content":[]}}`+"\n", seq+1, i)
					seq, i = seq+2, i+1
				}
			}
			tr, err := trace.Read(strings.NewReader(b.String()))
			if err != nil {
				t.Fatal(err)
			}
			out, err := compile.Compile(tr, compile.Options{Source: "args.jsonl", Now: fixedNow})
			if err != nil {
				t.Fatal(err)
			}
			for _, dg := range d.Run(lint.ParseFile("args.skill.md", format.Source(out.Skill))) {
				t.Errorf("the lint flags a compiled step: %s", dg)
			}
			// The same skill with every effect lowered to read must be
			// flagged, step for step, wherever the arguments say more.
			raised := 0
			for _, st := range out.Skill.Steps {
				if st.Effect.Value != ast.EffectRead {
					st.Effect.Value = ast.EffectRead
					raised++
				}
			}
			if n := len(d.Run(lint.ParseFile("args.skill.md", format.Source(out.Skill)))); n == 0 || raised == 0 {
				t.Errorf("lowered to read, %d steps draw %d findings; the test reads nothing", raised, n)
			}
		})
	}
	for _, path := range traceFiles(t) {
		_, src := compileFile(t, path)
		for _, dg := range d.Run(lint.ParseFile(filepath.Base(path), src)) {
			t.Errorf("%s: the lint flags a compiled step: %s", filepath.Base(path), dg)
		}
	}
}
