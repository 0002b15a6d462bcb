package cost

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestBuiltin: the shipped table parses, says when and where its prices
// were taken, and prices the heal ladder's default Level 1 model.
func TestBuiltin(t *testing.T) {
	tb := Builtin()
	if tb.Taken == "" || tb.Source == "" {
		t.Errorf("the built-in table has no date or source: %+v", tb)
	}
	if len(tb.Models()) < 10 {
		t.Errorf("the built-in table prices %d models", len(tb.Models()))
	}
	if _, ok := tb.Lookup("claude-haiku-4-5-20251001"); !ok {
		t.Error("the default heal model claude-haiku-4-5-20251001 has no price")
	}
}

func TestCost(t *testing.T) {
	tb := Builtin()
	tests := []struct {
		model string
		tok   Tokens
		want  string // "" for price unknown
	}{
		// 1,000,000 input tokens at $1/M and 1,000,000 output at $5/M.
		{"claude-haiku-4-5", Tokens{Input: 1_000_000, Output: 1_000_000}, "$6.00"},
		// a dated snapshot takes its base model's price.
		{"claude-haiku-4-5-20251001", Tokens{Input: 1200, Output: 300}, "$0.0027"},
		{"CLAUDE-HAIKU-4-5", Tokens{Input: 1}, "$0.000001"},
		// cache reads and writes at their own prices: 1000×0.30 + 1000×3.75 micro-dollars.
		{"claude-sonnet-4-5", Tokens{CacheRead: 1000, CacheWrite: 1000}, "$0.00405"},
		// 1 token at $0.075/M is 0.075 micro-dollars: rounds to 0.
		{"gpt-4o-mini", Tokens{CacheRead: 1}, "$0.00"},
		// 7 tokens at $0.075/M is 0.525: rounds half up to 1.
		{"gpt-4o-mini", Tokens{CacheRead: 7}, "$0.000001"},
		// 2 tokens at $0.25 is 0.5 exactly: half rounds up.
		{"gpt-5-mini", Tokens{Input: 2}, "$0.000001"},
		{"gpt-5-mini", Tokens{}, "$0.00"},
		// exact where float64 drifts: 3 × 0.1 + 0.2 style sums.
		{"gpt-4.1-mini", Tokens{CacheRead: 3_000_000, Input: 0}, "$0.30"},
		{"gpt-4o-2024-08-06", Tokens{Input: 1000}, "$0.0025"},
		// unknown model: no price, never 0.
		{"claude-opus-5-5", Tokens{Input: 60, Output: 100}, ""},
		{"", Tokens{Input: 1}, ""},
		// OpenAI bills no cache write: tokens of that kind make it unknown.
		{"gpt-4o", Tokens{Input: 10, CacheWrite: 5}, ""},
		{"gemini-2.5-pro", Tokens{CacheRead: 1}, ""},
		{"gemini-2.5-pro", Tokens{Input: 1_000_000, Output: 100_000}, "$2.25"},
	}
	for _, tt := range tests {
		got, ok := tb.Cost(tt.model, tt.tok)
		switch {
		case tt.want == "" && ok:
			t.Errorf("Cost(%q, %+v) = %s, want price unknown", tt.model, tt.tok, got)
		case tt.want != "" && !ok:
			t.Errorf("Cost(%q, %+v): price unknown, want %s", tt.model, tt.tok, tt.want)
		case ok && got.String() != tt.want:
			t.Errorf("Cost(%q, %+v) = %s, want %s", tt.model, tt.tok, got, tt.want)
		}
	}
}

func TestMicrosString(t *testing.T) {
	for m, want := range map[Micros]string{
		0: "$0.00", 1: "$0.000001", 10: "$0.00001", 412: "$0.000412", 10_000: "$0.01",
		1_500_000: "$1.50", 1_234_567: "$1.234567", 12_000_000: "$12.00", -250_000: "-$0.25",
	} {
		if got := m.String(); got != want {
			t.Errorf("Micros(%d) = %q, want %q", int64(m), got, want)
		}
	}
}

func TestMergeFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "prices.json")
	os.WriteFile(path, []byte(`{
  "taken": "2026-12-01",
  "models": {
    "claude-opus-5-5": {"input": 5, "output": "25"},
    "claude-haiku-4-5": {"input": "2", "output": "10", "source": "our contract"}
  }
}
`), 0o644)
	tb := Builtin()
	if err := tb.MergeFile(path); err != nil {
		t.Fatal(err)
	}
	if got, ok := tb.Cost("claude-opus-5-5", Tokens{Input: 60, Output: 100}); !ok || got.String() != "$0.0028" {
		t.Errorf("a model the file adds: %s, %v", got, ok)
	}
	if got, _ := tb.Cost("claude-haiku-4-5", Tokens{Input: 1_000_000}); got.String() != "$2.00" {
		t.Errorf("a model the file overrides: %s", got)
	}
	p, _ := tb.Lookup("claude-haiku-4-5")
	if p.CacheRead != nil || !strings.Contains(p.From, path) || !strings.Contains(p.From, "2026-12-01") {
		t.Errorf("an override replaces the model's whole entry and names the file: %+v", p)
	}
	if got, _ := tb.Cost("gpt-4o", Tokens{Input: 1_000_000}); got.String() != "$2.50" {
		t.Errorf("a model the file leaves alone: %s", got)
	}
	if err := tb.MergeFile(filepath.Join(dir, "missing.json")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a missing file: %v", err)
	}
}

// TestMergeErrors: every mistake in a price file is reported at its
// line and column, and leaves the table as it was.
func TestMergeErrors(t *testing.T) {
	tests := []struct{ name, src, want string }{
		{"empty", "", "1:1: the price file is empty"},
		{"blank", "  \n", "1:1: the price file is empty"},
		{"array", "[]", "1:1: a price file must be a JSON object, got an array"},
		{"syntax", "{\n  \"models\": {,}\n}", "2:14: malformed JSON"},
		{"cut off", "{\"models\": {\"a\": {\"input\": 1", "1:29: the file ends early"},
		{"unknown top key", "{\n  \"model\": {}\n}", "2:3: unknown key \"model\": a price file has taken, source, note and models"},
		{"unknown model key", "{\"models\": {\n  \"m\": {\"input\": 1, \"output\": 2, \"cached\": 3}}}", "2:34: unknown key \"cached\" in model \"m\""},
		{"negative", "{\"models\": {\n\"m\": {\"input\": -1, \"output\": 2}}}", "2:16: m's input price is negative (-1)"},
		{"not a number", "{\"models\": {\n\"m\": {\"input\": \"cheap\", \"output\": 2}}}", "2:16: m's input price is \"cheap\", not a decimal number"},
		{"a fraction", "{\"models\": {\n\"m\": {\"input\": \"1/3\", \"output\": 2}}}", "2:16: m's input price is \"1/3\""},
		{"bool", "{\"models\": {\n\"m\": {\"input\": true, \"output\": 2}}}", "2:16: m's input price must be a number of US dollars per million tokens, got a boolean"},
		{"no output", "{\"models\": {\n  \"m\": {\"input\": 1}}}", "2:3: model \"m\" needs both an input and an output price"},
		{"twice", "{\"models\": {\"m\": {\"input\": 1, \"output\": 2},\n \"M\": {\"input\": 1, \"output\": 2}}}", "2:2: model \"m\" appears twice"},
		{"empty name", "{\"models\": {\"\": {\"input\": 1, \"output\": 2}}}", "1:13: a model's name must not be empty"},
		{"models not object", "{\"models\": []}", "1:12: \"models\" must be a JSON object, got an array"},
		{"taken not string", "{\"taken\": 2026}", "1:11: \"taken\" must be a string, got a number"},
		{"trailing", "{}\n{}", "2:1: text after the price file's closing brace"},
		{"per token", "{\"models\": {\"m\": {\"input\": 3000000, \"output\": 2}}}", "more than any model costs; is it per token?"},
		{"non-ascii columns", "{\"note\": \"é\", \"x\": 1}", "1:15: unknown key \"x\""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "prices.json")
			os.WriteFile(path, []byte(tt.src), 0o644)
			tb := Builtin()
			before := len(tb.Models())
			err := tb.MergeFile(path)
			if err == nil {
				t.Fatalf("accepted %q", tt.src)
			}
			if !strings.HasPrefix(err.Error(), path+":") || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %q, want %s:…%s…", err, path, tt.want)
			}
			if len(tb.Models()) != before {
				t.Error("a rejected file changed the table")
			}
		})
	}
}

func TestLoadUserFile(t *testing.T) {
	cfg := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", cfg)
	t.Setenv("HOME", cfg)
	t.Setenv("AppData", cfg)
	tb, err := Load()
	if err != nil || len(tb.Models()) != len(Builtin().Models()) {
		t.Fatalf("no user file: %v", err)
	}
	path, _ := UserPath()
	os.MkdirAll(filepath.Dir(path), 0o755)
	os.WriteFile(path, []byte(`{"models": {"my-model": {"input": 1, "output": 1}}}`), 0o644)
	if tb, err = Load(); err != nil {
		t.Fatal(err)
	}
	if _, ok := tb.Lookup("my-model"); !ok {
		t.Error("the user's file was not merged")
	}
	os.WriteFile(path, []byte(`{"models": {"my-model": {"input": 1}}}`), 0o644)
	if _, err := Load(); err == nil || !strings.HasPrefix(err.Error(), path+":1:") {
		t.Errorf("a malformed user file: %v", err)
	}
}

func FuzzMerge(f *testing.F) {
	f.Add(builtin)
	f.Add([]byte(`{"models": {"m": {"input": "0.5", "output": 1e2}}}`))
	f.Add([]byte(`{"taken": "x", "models": {}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		tb := &Table{models: map[string]Price{}}
		err := tb.merge(data, "f.json", false)
		if err != nil {
			var pe *Error
			if !errors.As(err, &pe) || pe.Line < 1 || pe.Col < 1 {
				t.Fatalf("an error without a position: %v", err)
			}
			if len(tb.models) != 0 {
				t.Fatal("a rejected file changed the table")
			}
			return
		}
		for _, m := range tb.Models() {
			p, _ := tb.Lookup(m)
			if p.Input == nil || p.Output == nil || p.Input.Sign() < 0 {
				t.Fatalf("accepted a bad price for %q: %+v", m, p)
			}
			p.Cost(Tokens{Input: 1 << 40, Output: 1 << 40})
		}
	})
}
