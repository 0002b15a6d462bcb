// Package cli is reelier's command line: one cobra command per verb, each
// reading its flags, making one call into the package that does the work
// (lang, record, compile, replay, ledger, policy, serve) and writing what it
// returns. cmd/reelier runs it; its testscripts (testdata/script) are the
// behaviour of the command line.
package cli
