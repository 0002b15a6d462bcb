package tool

import "context"

// IdempotencyMetaKey is the key of the request's _meta a replay sends a
// write step's idempotency key under (SPEC.md §14 "Write receipts"). A
// server that honours it does the write once per key; any other server
// ignores it, as MCP lets it ignore _meta keys it does not know.
const IdempotencyMetaKey = "dev.reelier/idempotency-key"

type idempotencyKey struct{}

// WithIdempotencyKey returns ctx carrying the idempotency key a tool call
// made under it sends (an MCP tool sends it in the request's _meta).
func WithIdempotencyKey(ctx context.Context, key string) context.Context {
	return context.WithValue(ctx, idempotencyKey{}, key)
}

// IdempotencyKey returns the key ctx carries, or "".
func IdempotencyKey(ctx context.Context) string {
	s, _ := ctx.Value(idempotencyKey{}).(string)
	return s
}
