package session

import (
	"fmt"
	"strings"

	"github.com/reelier/reelier/replay/cost"
)

// Cost is what a session's tokens cost, and what its replay costs.
type Cost struct {
	// Models are the session's usage, per model, each priced.
	Models []ModelCost `json:"models"`
	// CostMicroUSD adds up the priced models' cost in millionths of a US
	// dollar; UnpricedTokens are the tokens of models with no price, left
	// out of it.
	CostMicroUSD   int64 `json:"costMicroUsd"`
	UnpricedTokens int64 `json:"unpricedTokens"`
	// ReplayLLMTokens is what a replay of the compiled skill spends at
	// Level 0: none, it calls no model.
	ReplayLLMTokens int64 `json:"replayLlmTokens"`
}

// ModelCost is one model's usage in a session and its cost; CostMicroUSD
// is absent when the table has no price for it.
type ModelCost struct {
	Usage
	CostMicroUSD *int64 `json:"costMicroUsd,omitempty"`
}

// Cost prices the session's usage with prices.
func (s *Session) Cost(prices *cost.Table) Cost {
	c := Cost{Models: []ModelCost{}}
	for _, u := range s.Usage {
		mc := ModelCost{Usage: u}
		tok := cost.Tokens{Input: u.Input, Output: u.Output, CacheRead: u.CacheRead, CacheWrite: u.CacheWrite}
		if m, ok := prices.Cost(u.Model, tok); ok {
			v := int64(m)
			mc.CostMicroUSD = &v
			c.CostMicroUSD += v
		} else {
			c.UnpricedTokens += tok.Total()
		}
		c.Models = append(c.Models, mc)
	}
	return c
}

// Line is the product's case in one line: what the agent's session cost
// against what a replay of its skill costs at Level 0.
func (c Cost) Line() string {
	var tokens int64
	var models []string
	for _, m := range c.Models {
		tokens += m.Input + m.Output + m.CacheRead + m.CacheWrite
		name := m.Model
		if name == "" {
			name = "an unnamed model"
		}
		models = append(models, name)
	}
	replay := "a replay at Level 0 costs $0.00 — 0 LLM tokens, it calls no model."
	if len(c.Models) == 0 {
		return "Cost: the session logged no token usage; " + replay
	}
	spent := fmt.Sprintf("%d LLM tokens (%s)", tokens, strings.Join(models, ", "))
	switch {
	case c.UnpricedTokens == 0:
		return fmt.Sprintf("Cost: the session cost %s — %s; %s", cost.Micros(c.CostMicroUSD), spent, replay)
	case c.CostMicroUSD == 0 && c.UnpricedTokens == tokens:
		return fmt.Sprintf("Cost: the session spent %s, price unknown (add the model to your prices file, see reelier cost --help); %s", spent, replay)
	}
	return fmt.Sprintf("Cost: the session cost %s + price unknown for %d tokens — %s; %s", cost.Micros(c.CostMicroUSD), c.UnpricedTokens, spent, replay)
}
