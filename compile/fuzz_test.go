package compile_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/reelier/reelier/compile"
	"github.com/reelier/reelier/lang/format"
	"github.com/reelier/reelier/lang/grammar"
	"github.com/reelier/reelier/trace"
)

// FuzzCompile feeds arbitrary trace bytes through the reader and the
// compiler. Nothing may panic, and whatever compiles must print as a skill
// that parses without a diagnostic, is already canonical, and has one step
// per call. The same bytes as a file, compiled by NewFile and Write, must
// fail the same way or print the same skill.
func FuzzCompile(f *testing.F) {
	for _, path := range traceFiles(f) {
		src, err := os.ReadFile(path)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(src)
	}
	f.Add([]byte(metaLine + `{"t":"call","seq":1,"i":0,"ts":"s","tool":"x","args":{"a-b":"{{today}}","c":["2026-02-30",1752847320]}}` + "\n"))
	f.Fuzz(func(t *testing.T, src []byte) {
		opts := compile.Options{Source: "fuzz.jsonl", Now: func() time.Time { return time.Unix(0, 0) }}
		path := filepath.Join(t.TempDir(), "fuzz.jsonl")
		if err := os.WriteFile(path, src, 0o644); err != nil {
			t.Fatal(err)
		}
		x, ferr := compile.NewFile(path, opts)
		tr, err := trace.Read(bytes.NewReader(src))
		var out *compile.Output
		if err == nil {
			out, err = compile.Compile(tr, opts)
		}
		if (err == nil) != (ferr == nil) || err != nil && err.Error() != ferr.Error() {
			t.Fatalf("in memory: %v; from the file: %v", err, ferr)
		}
		if err != nil {
			return
		}
		printed := format.Source(out.Skill)
		var streamed bytes.Buffer
		if err := x.Write(&streamed); err != nil || !bytes.Equal(streamed.Bytes(), printed) {
			t.Fatalf("NewFile+Write (err %v) differs from Compile:\n%s", err, format.Diff("fuzz", printed, streamed.Bytes()))
		}
		skill, diags := grammar.Parse("fuzz.skill.md", printed)
		if len(diags) > 0 {
			t.Fatalf("compiled skill does not parse: %v\n%s", diags, printed)
		}
		if again := format.Source(skill); !bytes.Equal(again, printed) {
			t.Fatalf("compiled skill is not canonical:\n%s", format.Diff("fuzz", printed, again))
		}
		if len(skill.Steps) != out.Summary.Calls {
			t.Fatalf("%d steps for %d calls", len(skill.Steps), out.Summary.Calls)
		}
	})
}

// FuzzCompileFields builds well-formed traces from fuzzed names, notes,
// keys and values (a call sending a value, a result holding it under a
// fuzzed key, a second call sending it back), so the fuzzer spends its time
// inside the compiler rather than in the JSON reader. The same properties
// must hold.
func FuzzCompileFields(f *testing.F) {
	f.Add("get_user", "Look it up\nthen ### Step 2 — x", "user-id", "u_1234", `{"user-id":"u_1234"}`, "2026-07-18T14:02:00Z")
	f.Add("0_create.note", "", "id", "{{today}}", `{"id":"{{today}}","a":[{"id":"{{today}}"}]}`, "garbage")
	f.Add("x", "n", "", "2026-02-30", `"2026-02-30"`, "2026-07-18T23:30:00-05:00")
	f.Add("list_directory", "List", "path", "q3-report.txt", "[FILE] q3-report.txt\n[DIR] archive", "2026-07-18T14:02:00Z")
	f.Add("search", "Find", "names", "Acme Corp", `{"entities":[{"name":"Acme Corp","entityType":"seed_0000"}]}`, "2026-07-18T14:02:00Z")
	f.Add("get", "Weather", "a", "36", `{"temperature":36}`, "2026-07-18T14:02:00Z")
	f.Add("edit_tasks", "Delete", "mode", "delete", `{"deleted":"tsk_1"}`, "2026-07-18T14:02:00Z")
	f.Add("get_ledger", "Open", "keys", "«redacted:LEDGER_KEY» «redacted» «redacted:x»", `{"ledger":"open"}`, "2026-07-18T14:02:00Z")
	f.Fuzz(func(t *testing.T, tool, note, key, val, result, started string) {
		rec := func(v map[string]any) string {
			b, err := json.Marshal(v)
			if err != nil {
				t.Skip()
			}
			return string(b) + "\n"
		}
		body := map[string]any{"content": []any{map[string]any{"type": "text", "text": result}}}
		src := rec(map[string]any{"t": "meta", "seq": 0, "name": note, "startedAt": started, "wrapped": []string{}}) +
			rec(map[string]any{"t": "note", "seq": 1, "ts": "s", "text": note}) +
			rec(map[string]any{"t": "call", "seq": 2, "i": 0, "ts": "s", "tool": tool, "args": map[string]any{key: "seed_0000"}}) +
			rec(map[string]any{"t": "result", "seq": 3, "i": 0, "ok": true, "ms": 1, "body": body}) +
			rec(map[string]any{"t": "call", "seq": 4, "i": 1, "ts": "s", "tool": tool, "args": map[string]any{key: val, "k": []any{val, val}, "p": "/in/" + val + ".bak", "s": "see " + val + " now"}})
		tr, err := trace.Read(strings.NewReader(src))
		if err != nil {
			t.Fatalf("generated trace rejected: %v\n%s", err, src)
		}
		out, err := compile.Compile(tr, compile.Options{Source: key})
		if err != nil {
			var le *trace.LineError
			if errors.As(err, &le) && le.Field == "tool" {
				return // an unusable tool name is rejected, by design
			}
			t.Fatalf("compile: %v", err)
		}
		printed := format.Source(out.Skill)
		skill, diags := grammar.Parse("fuzz.skill.md", printed)
		if len(diags) > 0 {
			t.Fatalf("compiled skill does not parse: %v\n%s", diags, printed)
		}
		if again := format.Source(skill); !bytes.Equal(again, printed) {
			t.Fatalf("compiled skill is not canonical:\n%s", format.Diff("fuzz", printed, again))
		}
		if len(skill.Steps) != 2 {
			t.Fatalf("%d steps for 2 calls", len(skill.Steps))
		}
	})
}
