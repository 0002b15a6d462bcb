// Package push sends a skill's run records, and on the first push the skill
// file itself, to a receipt ledger: the client side of `reelier push`.
//
// It keeps a cursor per skill in .reelier/push-state.json and follows the
// push contract of the format specification (§8): records go strictly in
// file order; a 400 or 413 is the ledger's permanent verdict on that record
// (logged under "rejected", the cursor moves past it and the batch goes on);
// a 401, any other status and a network error are transient (the batch
// stops and the cursor stays on the failing record). The state file is
// replaced atomically after every consumed record and guarded by a lock
// file, so a crash loses at most the record in flight and two pushes from
// one directory take turns. Every run upload carries an Idempotency-Key, so
// the record a crash re-sends is dropped by a ledger that already has it.
package push
