// Package cost turns token counts into money: a price table of models
// (prices.json, embedded, with the date the prices were taken and where
// from), which a user file in the configuration folder can override model
// by model, and exact arithmetic — prices are decimals read into big.Rat,
// a cost is rounded once, half up, to whole micro-dollars (Micros). A
// model the table does not price, or tokens of a kind its entry has no
// price for, give no cost: "price unknown", never 0.
package cost

import (
	_ "embed"
	"fmt"
	"math"
	"math/big"
	"regexp"
	"sort"
	"strings"
)

//go:embed prices.json
var builtin []byte

// BuiltinName names the embedded table in messages.
const BuiltinName = "prices.json (built in)"

// Tokens are what a model spent, split the way providers bill them.
// Input excludes the cached input (CacheRead) and the input written to
// the cache (CacheWrite).
type Tokens struct {
	Input, Output, CacheRead, CacheWrite int64
}

// Add adds o to t.
func (t *Tokens) Add(o Tokens) {
	t.Input += o.Input
	t.Output += o.Output
	t.CacheRead += o.CacheRead
	t.CacheWrite += o.CacheWrite
}

// Total is every token counted.
func (t Tokens) Total() int64 { return t.Input + t.Output + t.CacheRead + t.CacheWrite }

// Price is one model's prices in US dollars per million tokens; a nil
// field is a kind of token the table has no price for.
type Price struct {
	Input, Output, CacheRead, CacheWrite *big.Rat
	// From names where the price came from: the table's file and the
	// date its prices were taken.
	From string
}

// Table is a price table: the built-in one, perhaps with a user's file
// merged over it.
type Table struct {
	// Taken is the date the built-in prices were taken; Source where.
	Taken, Source string
	models        map[string]Price
}

// Micros is an amount of money in millionths of a US dollar.
type Micros int64

// String is the amount in dollars, exact: "$0.000412", "$1.50".
func (m Micros) String() string {
	sign := ""
	if m < 0 {
		sign, m = "-", -m
	}
	frac := fmt.Sprintf("%06d", int64(m%1_000_000))
	frac = strings.TrimRight(frac, "0")
	for len(frac) < 2 {
		frac += "0"
	}
	return fmt.Sprintf("%s$%d.%s", sign, int64(m/1_000_000), frac)
}

// Builtin is the embedded table. It panics only if the file shipped with
// the program is malformed, which TestBuiltin rules out.
func Builtin() *Table {
	t := &Table{models: map[string]Price{}}
	if err := t.merge(builtin, BuiltinName, true); err != nil {
		panic(err)
	}
	return t
}

// datedSuffix is the snapshot date a provider appends to a model name
// (claude-haiku-4-5-20251001, gpt-4o-2024-08-06).
var datedSuffix = regexp.MustCompile(`-(\d{8}|\d{4}-\d{2}-\d{2})$`)

// Lookup finds a model's price: by its exact name, else by its name
// without a snapshot date. Names are compared without case.
func (t *Table) Lookup(model string) (Price, bool) {
	name := strings.ToLower(strings.TrimSpace(model))
	if p, ok := t.models[name]; ok {
		return p, true
	}
	if base := datedSuffix.ReplaceAllString(name, ""); base != name {
		p, ok := t.models[base]
		return p, ok
	}
	return Price{}, false
}

// Models lists the models the table prices, sorted.
func (t *Table) Models() []string {
	out := make([]string, 0, len(t.models))
	for m := range t.models {
		out = append(out, m)
	}
	sort.Strings(out)
	return out
}

// Cost is what tok cost on model, rounded half up to a micro-dollar; ok
// is false when the table has no price for the model or for a kind of
// token it spent.
func (t *Table) Cost(model string, tok Tokens) (Micros, bool) {
	p, ok := t.Lookup(model)
	if !ok {
		return 0, false
	}
	return p.Cost(tok)
}

// Cost is what tok cost at p, rounded half up to a micro-dollar; ok is
// false when a kind of token was spent that p has no price for.
func (p Price) Cost(tok Tokens) (Micros, bool) {
	// A price in dollars per million tokens is micro-dollars per token.
	sum := new(big.Rat)
	for _, part := range []struct {
		n     int64
		price *big.Rat
	}{{tok.Input, p.Input}, {tok.Output, p.Output}, {tok.CacheRead, p.CacheRead}, {tok.CacheWrite, p.CacheWrite}} {
		if part.n == 0 {
			continue
		}
		if part.price == nil {
			return 0, false
		}
		sum.Add(sum, new(big.Rat).Mul(new(big.Rat).SetInt64(part.n), part.price))
	}
	return roundHalfUp(sum), true
}

// roundHalfUp rounds a non-negative amount to whole micro-dollars.
func roundHalfUp(r *big.Rat) Micros {
	num, den := r.Num(), r.Denom()
	q, rem := new(big.Int).QuoRem(num, den, new(big.Int))
	if rem.Lsh(rem, 1).Cmp(den) >= 0 {
		q.Add(q, big.NewInt(1))
	}
	if !q.IsInt64() {
		return Micros(math.MaxInt64)
	}
	return Micros(q.Int64())
}

// Decimal writes a price as a decimal, "–" for none.
func Decimal(r *big.Rat) string {
	if r == nil {
		return "–"
	}
	s := r.FloatString(6)
	s = strings.TrimRight(s, "0")
	return strings.TrimSuffix(s, ".")
}
