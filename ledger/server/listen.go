package server

import (
	"context"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"time"
	"unicode"

	"github.com/reelier/reelier/internal/exitstatus"
)

// ListenOptions configure Listen.
type ListenOptions struct {
	// Store is the opened store; Shown names it in messages (with any
	// password blanked).
	Store Store
	Shown string
	// Addr is where to listen; MaxBody bounds a request body in bytes.
	Addr    string
	MaxBody int64
	// Stdout receives the listening and stopped lines, Stderr the log.
	Stdout, Stderr io.Writer
	// VerifyRecord and RequireSigned are Config's; Trust says in words
	// whom the verifier trusts, for the listening line.
	VerifyRecord  func(ctx context.Context, skill string, record, bundle []byte) (Signature, error)
	RequireSigned bool
	Trust         string
}

// Listen is reelier ledger serve once its store is open: it refuses a
// non-loopback address while the ledger has no API key, serves the API
// and the receipts pages until ctx ends, then shuts down. Its errors
// carry the exit status (internal/exitstatus).
func Listen(ctx context.Context, opts ListenOptions) error {
	store := opts.Store
	keyed, err := store.HasKeys(ctx)
	if err != nil {
		return &exitstatus.Error{Code: exitstatus.Failed, Err: fmt.Errorf("reading the API keys of %s: %v", opts.Shown, err)}
	}
	if !keyed && !IsLoopback(opts.Addr) {
		return exitstatus.Usagef("refusing to listen on %s: it is not a loopback address and the ledger has no API key, so anyone who can reach it could write receipts; create one first with 'reelier ledger key create NAME'", opts.Addr)
	}
	ln, err := net.Listen("tcp", opts.Addr)
	if err != nil {
		return &exitstatus.Error{Code: exitstatus.Failed, Err: err}
	}
	mode := "open to loopback clients only (no API key yet)"
	if keyed {
		mode = "API key required"
	}
	logger := log.New(opts.Stderr, "reelier ledger: ", log.LstdFlags)
	switch {
	case opts.VerifyRecord != nil:
		mode += "; signed records verified against " + opts.Trust
	default:
		mode += "; no signer trusted (signed records are stored as signed, not trusted)"
	}
	if opts.RequireSigned {
		mode += "; unsigned records refused"
	}
	fmt.Fprintf(opts.Stdout, "reelier ledger: listening on http://%s (store %s; %s)\n", ln.Addr(), opts.Shown, mode)
	srv := &http.Server{
		Handler:           NewServer(Config{Store: store, MaxBody: opts.MaxBody, Logf: logger.Printf, VerifyRecord: opts.VerifyRecord, RequireSigned: opts.RequireSigned}),
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       60 * time.Second,
		WriteTimeout:      60 * time.Second,
		IdleTimeout:       2 * time.Minute,
		ErrorLog:          logger,
	}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	select {
	case err := <-served:
		return &exitstatus.Error{Code: exitstatus.Failed, Err: err}
	case <-ctx.Done():
	}
	shutdown, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := srv.Shutdown(shutdown); err != nil {
		return &exitstatus.Error{Code: exitstatus.Failed, Err: fmt.Errorf("stopping: %v", err)}
	}
	fmt.Fprintln(opts.Stdout, "reelier ledger: stopped")
	return nil
}

// KeyNameProblem says what is wrong with a key name, or "".
func KeyNameProblem(name string) string {
	if name == "" || len(name) > 100 {
		return "it must be 1 to 100 bytes"
	}
	for _, r := range name {
		if !unicode.IsPrint(r) {
			return "it must be printable"
		}
	}
	return ""
}
