// Package cloud holds what both ends of the receipt wire agree on: the
// endpoint paths, the request and response bodies, and the idempotency key
// that lets a ledger drop a run record it has already stored.
//
// The client side (reelier push) lives in ledger/push and the self-hosted
// receipt ledger (reelier ledger serve) in ledger/server. Neither imports the
// other; both import this package, so a change to the wire shows up on both
// sides at compile time.
package wire
