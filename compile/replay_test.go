package compile_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/reelier/reelier/compile"
	"github.com/reelier/reelier/lang/ast"
	"github.com/reelier/reelier/lang/format"
	"github.com/reelier/reelier/lang/grammar"
	"github.com/reelier/reelier/replay"
	"github.com/reelier/reelier/replay/runlog"
	"github.com/reelier/reelier/tool"
)

// fakeTool answers like an MCP tool at replay: status 200 and a JSON body
// made fresh for each call, and it remembers the arguments it was sent.
type fakeTool struct {
	answer func(args map[string]any) any
	sent   []map[string]any
}

func (*fakeTool) Effect() ast.Effect { return ast.EffectRead }

func (f *fakeTool) Call(_ context.Context, args []byte) (*tool.Observation, error) {
	var a map[string]any
	if err := json.Unmarshal(args, &a); err != nil {
		return nil, err
	}
	f.sent = append(f.sent, a)
	body, err := json.Marshal(f.answer(a))
	if err != nil {
		return nil, err
	}
	return &tool.Observation{Status: 200, Headers: map[string]string{}, Body: string(body)}, nil
}

// TestReplayUsesFreshValues compiles a recorded trace, parses the printed
// skill and replays it against tools that answer with new ids: every step
// passes, and each later call is sent the fresh id, never the recorded one.
func TestReplayUsesFreshValues(t *testing.T) {
	const src = metaLine +
		`{"t":"note","seq":1,"ts":"s","text":"Create an order"}` + "\n" +
		`{"t":"call","seq":2,"i":0,"ts":"s","tool":"create_order","args":{"sku":"sku_1"}}` + "\n" +
		`{"t":"result","seq":3,"i":0,"ok":true,"ms":1,"body":{"content":[{"type":"text","text":"{\"order\":{\"id\":\"ord_recorded\",\"lines\":[{\"ref\":\"ln_recorded\"}]}}"}]}}` + "\n" +
		`{"t":"note","seq":4,"ts":"s","text":"Read it back"}` + "\n" +
		`{"t":"call","seq":5,"i":1,"ts":"s","tool":"get_order","args":{"id":"ord_recorded","line":"ln_recorded"}}` + "\n" +
		`{"t":"result","seq":6,"i":1,"ok":true,"ms":1,"body":{"content":[{"type":"text","text":"{\"ok\":true}"}]}}` + "\n"
	out, err := readAndCompile(src, compile.Options{})
	if err != nil {
		t.Fatal(err)
	}
	skill, diags := grammar.Parse("replay.skill.md", format.Source(out.Skill))
	if len(diags) > 0 {
		t.Fatal(diags)
	}
	n := 0
	create := &fakeTool{answer: func(map[string]any) any {
		n++
		return map[string]any{"order": map[string]any{"id": fmt.Sprintf("ord_fresh_%d", n), "lines": []any{map[string]any{"ref": fmt.Sprintf("ln_fresh_%d", n)}}}}
	}}
	get := &fakeTool{answer: func(map[string]any) any { return map[string]any{"ok": true} }}
	for run := 1; run <= 2; run++ {
		res := replay.Run(context.Background(), skill, replay.Options{Tools: tool.Registry{"create_order": create, "get_order": get}, AllowWrites: true})
		for _, st := range res.Record.Steps {
			if st.Outcome != runlog.Passed {
				t.Fatalf("run %d step %d: %s %v", run, st.N, st.Outcome, st.Failures)
			}
		}
		got := get.sent[len(get.sent)-1]
		want := map[string]any{"id": fmt.Sprintf("ord_fresh_%d", run), "line": fmt.Sprintf("ln_fresh_%d", run)}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("run %d: get_order was sent %v, want the fresh %v", run, got, want)
		}
	}
}

// TestReplayKeepsNumberType pins how a number recovered by dataflow
// replays. The compiler writes it as a string leaf that is exactly one
// hole, "{{n}}", and the runtime fills such a leaf with the bound JSON
// value itself, so the server gets a number, as it did when recording.
func TestReplayKeepsNumberType(t *testing.T) {
	const src = metaLine +
		`{"t":"call","seq":1,"i":0,"ts":"s","tool":"create_invoice","args":{"amount":12.5}}` + "\n" +
		`{"t":"result","seq":2,"i":0,"ok":true,"ms":1,"body":{"content":[{"type":"text","text":"{\"number\":100234}"}]}}` + "\n" +
		`{"t":"call","seq":3,"i":1,"ts":"s","tool":"get_invoice","args":{"number":100234}}` + "\n"
	out, err := readAndCompile(src, compile.Options{})
	if err != nil {
		t.Fatal(err)
	}
	printed := string(format.Source(out.Skill))
	if !strings.Contains(printed, `get_invoice {"number": "{{number}}"}`) {
		t.Fatalf("number dataflow not written as a whole-hole leaf:\n%s", printed)
	}
	skill, _ := grammar.Parse("n.skill.md", []byte(printed))
	get := &fakeTool{answer: func(map[string]any) any { return map[string]any{} }}
	create := &fakeTool{answer: func(map[string]any) any { return map[string]any{"number": 100777} }}
	replay.Run(context.Background(), skill, replay.Options{Tools: tool.Registry{"create_invoice": create, "get_invoice": get}, AllowWrites: true})
	if len(get.sent) != 1 {
		t.Fatalf("get_invoice called %d times", len(get.sent))
	}
	switch v := get.sent[0]["number"].(type) {
	case float64:
		if v != 100777 {
			t.Errorf("number = %v, want the fresh 100777", v)
		}
	default:
		t.Errorf("number = %#v", v)
	}
}
