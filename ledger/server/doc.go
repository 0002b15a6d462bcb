// Package ledger is the self-hosted receipt ledger behind `reelier ledger
// serve`: the server end of `reelier push`.
//
// It accepts skill uploads and run records over the JSON API the push
// client speaks (cloud.SkillsPath, cloud.RunsPath), checks every record's
// shape against the run-record format before storing it, drops a record it
// already holds by its Idempotency-Key, and serves the stored receipts back
// as JSON (with keyset paging) and as server-rendered HTML pages with inline
// SVG charts and no external assets.
//
// Storage sits behind the small Store interface; sqlitestore (embedded,
// pure Go) and pgstore (PostgreSQL, for several ledger processes sharing one
// database) implement it, as two dialects of sqlstore's one SQL
// implementation. Every error a store returns that is not one of this
// package's sentinel errors is treated as the database being unavailable:
// the answer is 503 and the push client retries later.
//
// Authentication: API keys are random tokens of which only a SHA-256 hash is
// stored. While a store holds no key the ledger is open, but only to
// loopback clients; once it holds one, every request except the health check
// must present a key (Bearer, or as the password of HTTP Basic so a browser
// can view the pages).
package server
