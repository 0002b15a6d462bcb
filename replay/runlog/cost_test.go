package runlog

import "testing"

func TestLLMCost(t *testing.T) {
	c := func(n int64) *int64 { return &n }
	tests := []struct {
		name             string
		usage            *LLMUsage
		micros, unpriced int64
	}{
		{"no escalation", nil, 0, 0},
		{"a record from before costs", &LLMUsage{InputTokens: 800, OutputTokens: 60}, 0, 860},
		{"priced", &LLMUsage{InputTokens: 800, OutputTokens: 60, Models: []ModelUsage{{Model: "a", InputTokens: 800, OutputTokens: 60, CostMicroUSD: c(1100)}}}, 1100, 0},
		{"a price of zero is a price", &LLMUsage{InputTokens: 10, Models: []ModelUsage{{Model: "local", InputTokens: 10, CostMicroUSD: c(0)}}}, 0, 0},
		{"one model unpriced", &LLMUsage{InputTokens: 1700, OutputTokens: 140, Models: []ModelUsage{
			{Model: "a", InputTokens: 800, OutputTokens: 60, CostMicroUSD: c(1100)},
			{Model: "b", InputTokens: 900, OutputTokens: 80},
		}}, 1100, 980},
	}
	for _, tt := range tests {
		m, u := tt.usage.Cost()
		if m != tt.micros || u != tt.unpriced {
			t.Errorf("%s: cost %d, unpriced %d; want %d, %d", tt.name, m, u, tt.micros, tt.unpriced)
		}
	}
	steps := []StepRecord{{LLM: tests[2].usage}, {}, {LLM: tests[4].usage}}
	if m, u := LLMCost(steps); m != 2200 || u != 980 {
		t.Errorf("LLMCost: %d, %d", m, u)
	}
}
