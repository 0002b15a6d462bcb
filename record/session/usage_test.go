package session_test

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/reelier/reelier/record/session"
	"github.com/reelier/reelier/replay/cost"
)

// TestUsage: the Claude reader adds up each assistant message's usage
// once, however many content lines repeat it, per model.
func TestUsage(t *testing.T) {
	line := func(id, model string, in, out, read, write int) string {
		return fmt.Sprintf(`{"type":"assistant","message":{"id":%q,"model":%q,"content":[{"type":"text","text":"x"}],"usage":{"input_tokens":%d,"cache_creation_input_tokens":%d,"cache_read_input_tokens":%d,"output_tokens":%d}}}`, id, model, in, write, read, out)
	}
	tests := []struct {
		name  string
		lines []string
		want  string
	}{
		{"none", []string{`{"type":"user","message":{"content":"hi"}}`}, "[]"},
		{"one message on three lines", []string{line("m1", "claude-haiku-4-5", 10, 5, 100, 7), line("m1", "claude-haiku-4-5", 10, 5, 100, 7), line("m1", "claude-haiku-4-5", 10, 5, 100, 7)},
			"[{claude-haiku-4-5 10 5 100 7}]"},
		{"two messages", []string{line("m1", "a", 1, 2, 0, 0), line("m2", "a", 3, 4, 0, 0)}, "[{a 4 6 0 0}]"},
		{"two models in order", []string{line("m1", "b", 1, 1, 0, 0), line("m2", "a", 2, 2, 0, 0), line("m3", "b", 1, 1, 0, 0)}, "[{b 2 2 0 0} {a 2 2 0 0}]"},
		{"no id: every line counts", []string{line("", "a", 1, 1, 0, 0), line("", "a", 1, 1, 0, 0)}, "[{a 2 2 0 0}]"},
		{"synthetic zero usage", []string{line("m1", "<synthetic>", 0, 0, 0, 0)}, "[]"},
		{"bad numbers count 0", []string{`{"type":"assistant","message":{"id":"m","model":"a","usage":{"input_tokens":"12","output_tokens":-3,"cache_read_input_tokens":1.5,"cache_creation_input_tokens":4}}}`}, "[{a 0 0 0 4}]"},
		{"usage not an object", []string{`{"type":"assistant","message":{"id":"m","model":"a","usage":[1]}}`}, "[]"},
		{"a stream's result line holds the totals", []string{line("m1", "a", 12, 1, 0, 0), `{"type":"result","subtype":"success","modelUsage":{"a":{"inputTokens":12,"outputTokens":20,"cacheReadInputTokens":3,"cacheCreationInputTokens":4,"costUSD":1},"b":{"inputTokens":0,"outputTokens":0}}}`}, "[{a 12 20 3 4}]"},
		{"a result line without modelUsage keeps the sum", []string{line("m1", "a", 12, 1, 0, 0), `{"type":"result","subtype":"success","usage":{"input_tokens":99}}`}, "[{a 12 1 0 0}]"},
		{"user lines are not usage", []string{`{"type":"user","message":{"id":"m","model":"a","usage":{"input_tokens":5}}}`}, "[]"},
	}
	for _, tt := range tests {
		s, err := session.Read(strings.NewReader(strings.Join(tt.lines, "\n")), session.Options{})
		if err != nil {
			t.Fatal(err)
		}
		got := "[]"
		if len(s.Usage) > 0 {
			got = fmt.Sprint(s.Usage)
		}
		if got != tt.want {
			t.Errorf("%s: usage %s, want %s", tt.name, got, tt.want)
		}
	}
}

// TestUsageFixtures: both transcripts of the live Claude Code run (five
// model turns of 12 input and 20 output tokens, each written on two
// lines in the file) give the same usage.
func TestUsageFixtures(t *testing.T) {
	for _, name := range []string{"claude-file.jsonl", "claude-stream.jsonl"} {
		s, err := session.Read(bytes.NewReader(readFixture(t, name)), session.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if got, want := fmt.Sprint(s.Usage), "[{claude-opus-5-5 60 100 0 0}]"; got != want {
			t.Errorf("%s: usage %s, want %s", name, got, want)
		}
	}
}

// TestCostLine: a session's tokens priced per model, the line that
// weighs them against the replay; a model without a price is never $0.
func TestCostLine(t *testing.T) {
	prices := cost.Builtin()
	tests := []struct {
		name  string
		usage []session.Usage
		want  string
	}{
		{"none", nil, "Cost: the session logged no token usage; a replay at Level 0 costs $0.00 — 0 LLM tokens, it calls no model."},
		{"priced with cache", []session.Usage{{Model: "claude-sonnet-4-5-20250929", Input: 1000, Output: 2000, CacheRead: 100000, CacheWrite: 20000}},
			// 1000×3 + 2000×15 + 100000×0.30 + 20000×3.75 = 138,000 micro-dollars.
			"Cost: the session cost $0.138 — 123000 LLM tokens (claude-sonnet-4-5-20250929); a replay at Level 0 costs $0.00 — 0 LLM tokens, it calls no model."},
		{"unknown", []session.Usage{{Model: "claude-opus-5-5", Input: 60, Output: 100}},
			"Cost: the session spent 160 LLM tokens (claude-opus-5-5), price unknown (add the model to your prices file, see reelier cost --help); a replay at Level 0 costs $0.00 — 0 LLM tokens, it calls no model."},
		{"mixed", []session.Usage{{Model: "claude-haiku-4-5", Input: 1000}, {Model: "", Output: 10}},
			"Cost: the session cost $0.001 + price unknown for 10 tokens — 1010 LLM tokens (claude-haiku-4-5, an unnamed model); a replay at Level 0 costs $0.00 — 0 LLM tokens, it calls no model."},
	}
	for _, tt := range tests {
		s := &session.Session{Usage: tt.usage}
		if got := s.Cost(prices).Line(); got != tt.want {
			t.Errorf("%s:\n got %s\nwant %s", tt.name, got, tt.want)
		}
	}
}
