package cli

import (
	"context"
	"errors"
	"fmt"
	"log"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/reelier/reelier/internal/termtext"
	"github.com/reelier/reelier/ledger/server"
	"github.com/reelier/reelier/ledger/stores"
	"github.com/reelier/reelier/ledger/verifyproc"
	"github.com/spf13/cobra"
)

const ledgerLong = `Run a self-hosted receipt ledger: the server 'reelier push' sends run
records to, with a web page of what each skill's receipts say.

  reelier ledger serve         serve the API and the receipts pages
  reelier ledger key create    create an API key (shown once), --scope
                               push (the default) or read
  reelier ledger key list      list the keys, their scopes and revocations
  reelier ledger key revoke    revoke a key; refused from the next request

Stores (--db, or $REELIER_LEDGER_DB):
  sqlite:PATH                  one embedded SQLite file (the default,
                               sqlite:.reelier/ledger.db); no setup
  postgres://USER@HOST/DB      PostgreSQL; several ledger processes can
                               share one database

Schema migrations are applied when a store opens.`

const ledgerServeLong = `Serve the receipt ledger's JSON API and its receipts pages on --addr.

API (the push client's side of it is 'reelier push --help'):
  POST /api/v1/skills            {name, skillMd}        200 {name}
  POST /api/v1/runs              {skillName, record, bundle?}  202 {id,
                                 signature, signer}; a repeated
                                 Idempotency-Key gets the first copy's id
  GET  /api/v1/info              {keys, verifiesSignatures, requireSigned},
                                 no key needed (push asks it when it has
                                 no key)
  GET  /api/v1/skills            every skill with its figures; passRate
                                 leaves out runs against reelier mock
                                 unless ?mock=include
  GET  /api/v1/skills/NAME/runs  newest first; ?limit=1..200 (50), and
                                 ?before=<next> for the following page
  GET  /healthz                  200 while the database answers reads of
                                 every table, else 503 naming the read
                                 that failed and why
  GET  /api/v1/skills/NAME/versions  the skill file's upload history
Errors: 400 {error, fieldErrors} for a body that is not a well-formed run
record, or a forged or altered signed one (record.signature, with the
reason); 401 for a missing, unknown or revoked key; 403 for a read key
asked to push; 404 for a skill never uploaded;
413 for a body over --max-body bytes; 415 unless the body is
application/json; 503 while the database or the signature verifier is
unavailable.

Signed records (reelier run --sign; push sends each record's bundle):
  --trust-key PUB                 trust this signing key (PEM public key,
                                  reelier key init's signing.pub); repeatable
  --trust-identity ID             trust keyless certificates for ID (e.g. a
  --trust-issuer ISSUER             workflow's URL@ref) from ISSUER, chained
  --trusted-root FILE               to FILE (a Sigstore trusted_root.json);
                                    repeatable, issuers paired by position
  --require-signed                refuse a record sent without a bundle
  --verify-timeout D              longest one record may take (default 10s)
A record whose bundle a trusted key or identity signed, and whose
statement is this very record (its line's SHA-256, verdict, each step's
outcome and digests), is stored as verified with its signer; one signed by
anyone else (or by anyone, with no trust flags) as signed, not trusted; one
without a bundle as unsigned. A record changed after signing, or a bundle
changed or not a receipt, is refused (400, permanent: push exits 1 naming
it). The pages show "verified · signer", "signed, not trusted" or
"unsigned". The verifier is the reelier-attest program (beside reelier, on
PATH, or $REELIER_ATTEST), run as one child process speaking JSON lines and
restarted if it dies; with trust flags and no such program, or keys it
cannot read, the ledger does not start (exit 2).

Pages: / (skills with latest verdict, pass rate, healed runs, tokens,
duration, last run), /skills/NAME (pass/fail strip, duration and token
chart by run order, runs with their failing step and first failure),
/skills/NAME/file (the uploaded file, its upload history and diffs),
/runs/ID (the receipt: its signature, steps, where it ran, what healed).
The pages read from 420 to 1280 px wide. An unchecked run
is never shown as passed. A run stopped by its set-up (a refused write, an
input that could not be sent) is config: counted apart, not a failure and
not in the pass rate. A run against reelier mock is labelled mock and left
out of pass rates unless the page asks for it (?mock=include, a link
beside the figures).

Who may connect: while the store holds no API key, the ledger answers only
loopback clients, and it refuses to listen on an address that is not
loopback. Once a key exists ('reelier ledger key create'), every request
but /healthz needs one, as 'Authorization: Bearer KEY' (or as the password
of HTTP Basic, so a browser can open the pages), and any --addr is allowed.

It stops cleanly on Ctrl-C or SIGTERM.

Examples:
  reelier ledger serve
  reelier ledger serve --trust-key ~/.config/reelier/keys/signing.pub
  reelier ledger serve --db sqlite:/var/lib/reelier/ledger.db
  REELIER_LEDGER_DB=postgres://reelier@db.internal/reelier \
    reelier ledger serve --addr 0.0.0.0:8787`

const ledgerKeyCreateLong = `Create an API key named NAME and print it on stdout, once: only its
SHA-256 hash is stored, so it cannot be shown again. Give it to pushers as
REELIER_CLOUD_KEY. Creating the first key ends the ledger's open,
loopback-only mode: from then on every request needs a key.

--scope says what the key may do:
  push   upload skills and run records, and read (the default; every key
         created before scopes existed is a push key)
  read   read only: the receipts pages and the GET API; a push with it is
         refused with 403

A key takes effect on the next request of every ledger process that
shares the store; no restart.

Examples:
  reelier ledger key create ci
  reelier ledger key create alice --scope read
  KEY=$(reelier ledger key create laptop --db postgres://reelier@db.internal/reelier)`

// ledgerDBEnv names the store when --db is not given.
const ledgerDBEnv = "REELIER_LEDGER_DB"

type ledgerServeOptions struct {
	addr    string
	db      string
	maxBody int64
	// The signers the ledger trusts, and what it asks of a record.
	trustKeys, trustIdentities, trustIssuers []string
	trustedRoot                              string
	requireSigned                            bool
	verifyTimeout                            time.Duration
}

type ledgerKeyOptions struct {
	name  string
	db    string
	scope string
}

func newLedgerCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "ledger",
		Short: "Run a self-hosted receipt ledger that reelier push sends to",
		Long:  ledgerLong,
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return usageErrorf("ledger needs a subcommand: serve or key create (see 'reelier ledger --help')")
		},
	}
	cmd.AddCommand(newLedgerServeCmd(), newLedgerKeyCmd())
	return cmd
}

// defaultStore is --db's default: $REELIER_LEDGER_DB or the SQLite file.
func defaultStore() string {
	if v := os.Getenv(ledgerDBEnv); v != "" {
		return v
	}
	return stores.Default
}

func newLedgerServeCmd() *cobra.Command {
	var opts ledgerServeOptions
	cmd := &cobra.Command{
		Use:   "serve [--addr HOST:PORT] [--db STORE] [--trust-key PUB]… [--trust-identity ID --trust-issuer ISSUER --trusted-root FILE] [--require-signed]",
		Short: "Serve the ledger's API and receipts pages",
		Long:  ledgerServeLong,
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return ledgerServeRun(cmd, opts)
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.addr, "addr", "127.0.0.1:8787", "`host:port` to listen on")
	f.StringVar(&opts.db, "db", "", "store: sqlite:PATH or a postgres:// URL (default $"+ledgerDBEnv+" or "+stores.Default+")")
	f.Int64Var(&opts.maxBody, "max-body", server.DefaultMaxBody, "largest request body in `bytes`; larger ones get 413")
	f.StringArrayVar(&opts.trustKeys, "trust-key", nil, "trust records signed with this public key (`PUB`, PEM, reelier key init's signing.pub); repeatable")
	f.StringArrayVar(&opts.trustIdentities, "trust-identity", nil, "trust records signed keyless by this certificate identity (`ID`, e.g. a workflow's URL@ref); repeatable, each with a --trust-issuer")
	f.StringArrayVar(&opts.trustIssuers, "trust-issuer", nil, "the OIDC `ISSUER` of the --trust-identity in the same position (one for all of them when given once)")
	f.StringVar(&opts.trustedRoot, "trusted-root", "", "the Sigstore trusted_root.json (`FILE`) keyless certificates must chain to")
	f.BoolVar(&opts.requireSigned, "require-signed", false, "refuse a record pushed without its bundle (400)")
	f.DurationVar(&opts.verifyTimeout, "verify-timeout", verifyproc.DefaultTimeout, "longest the verifier may take over one record before the push is answered 503 and the verifier restarted")
	return cmd
}

// ledgerVerifier starts the verifier the trust flags ask for (nil when
// none is given) and says whom it trusts. A flag that does not make sense,
// a missing reelier-attest or a verifier that will not start (a key or
// root it cannot read) is a usage error: the ledger does not start.
func ledgerVerifier(ctx context.Context, opts ledgerServeOptions, logf func(string, ...any)) (*verifyproc.Proc, string, error) {
	ids, iss := opts.trustIdentities, opts.trustIssuers
	switch {
	case len(opts.trustKeys) == 0 && len(ids) == 0 && len(iss) == 0 && opts.trustedRoot == "":
		return nil, "", nil
	case len(ids) == 0 && len(iss) > 0:
		return nil, "", usageErrorf("--trust-issuer needs --trust-identity")
	case len(ids) > 0 && len(iss) == 0:
		return nil, "", usageErrorf("--trust-identity needs --trust-issuer ISSUER (the OIDC issuer its certificates name)")
	case len(ids) > 0 && len(iss) != 1 && len(iss) != len(ids):
		return nil, "", usageErrorf("each --trust-identity needs its --trust-issuer, or give one --trust-issuer for all: %d identities, %d issuers", len(ids), len(iss))
	case len(ids) > 0 && opts.trustedRoot == "":
		return nil, "", usageErrorf("--trust-identity needs --trusted-root FILE, the Sigstore trusted_root.json its certificates chain to")
	case len(ids) == 0 && opts.trustedRoot != "":
		return nil, "", usageErrorf("--trusted-root needs --trust-identity and --trust-issuer: the identities it vouches for")
	case opts.verifyTimeout <= 0:
		return nil, "", usageErrorf("--verify-timeout must be positive, got %v", opts.verifyTimeout)
	}
	prog, err := findAttest()
	if err != nil {
		return nil, "", usageErrorf("the trust flags need the signature verifier: %s", err)
	}
	args := []string{"ledger-verify"}
	var who []string
	for _, k := range opts.trustKeys {
		args = append(args, "--trust-key", k)
		who = append(who, "key "+termtext.Line(k))
	}
	for i, id := range ids {
		args = append(args, "--trust-identity", id)
		who = append(who, "identity "+termtext.Line(id))
		if i < len(iss) {
			args = append(args, "--trust-issuer", iss[i])
		}
	}
	if opts.trustedRoot != "" {
		args = append(args, "--trusted-root", opts.trustedRoot)
	}
	p := &verifyproc.Proc{Program: prog, Args: args, Timeout: opts.verifyTimeout, Logf: logf}
	if err := p.Start(ctx); err != nil {
		return nil, "", usageErrorf("the ledger's signature verifier: %v", err)
	}
	return p, strings.Join(who, ", "), nil
}

func newLedgerKeyCmd() *cobra.Command {
	key := &cobra.Command{
		Use:   "key",
		Short: "Manage the ledger's API keys",
		Long: `Manage the ledger's API keys: create one (push or read scope), list them,
revoke one. Each works on the store directly (--db or $REELIER_LEDGER_DB),
so it takes effect on the next request of every ledger process that
serves that store, without a restart.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return usageErrorf("key needs a subcommand: create, list or revoke (see 'reelier ledger key --help')")
		},
	}
	var opts ledgerKeyOptions
	create := &cobra.Command{
		Use:   "create NAME [--db STORE]",
		Short: "Create an API key and print it once",
		Long:  ledgerKeyCreateLong,
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.name = args[0]
			return ledgerKeyCreateRun(cmd, opts)
		},
	}
	create.Flags().StringVar(&opts.db, "db", "", "store: sqlite:PATH or a postgres:// URL (default $"+ledgerDBEnv+" or "+stores.Default+")")
	create.Flags().StringVar(&opts.scope, "scope", string(server.ScopePush), "what the key may do: `push` (upload and read) or read (read only)")
	key.AddCommand(create, newLedgerKeyListCmd(), newLedgerKeyRevokeCmd())
	return key
}

// openStore opens the named store (or the default), reporting failures
// without the connection string's password.
func openStore(ctx context.Context, db string) (server.Store, string, error) {
	if db == "" {
		db = defaultStore()
	}
	shown := stores.Redact(db)
	store, err := stores.Open(ctx, db)
	if errors.Is(err, stores.ErrUnknownKind) {
		return nil, shown, usageErrorf("--db: %v", err)
	}
	if err != nil {
		return nil, shown, &exitError{Code: exitFailed, Err: fmt.Errorf("opening the store %s: %v", shown, err)}
	}
	return store, shown, nil
}

func ledgerServeRun(cmd *cobra.Command, opts ledgerServeOptions) error {
	if opts.maxBody < 1 {
		return usageErrorf("--max-body must be at least 1, got %d", opts.maxBody)
	}
	ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	store, shown, err := openStore(ctx, opts.db)
	if err != nil {
		return err
	}
	defer store.Close()
	lo := server.ListenOptions{Store: store, Shown: shown, Addr: opts.addr, MaxBody: opts.maxBody, Stdout: cmd.OutOrStdout(), Stderr: cmd.ErrOrStderr(), RequireSigned: opts.requireSigned}
	logger := log.New(cmd.ErrOrStderr(), "reelier ledger: ", log.LstdFlags)
	verifier, trust, err := ledgerVerifier(ctx, opts, logger.Printf)
	if err != nil {
		return err
	}
	if verifier != nil {
		defer verifier.Close()
		lo.VerifyRecord, lo.Trust = verifier.Verify, trust
	}
	return server.Listen(ctx, lo)
}

func ledgerKeyCreateRun(cmd *cobra.Command, opts ledgerKeyOptions) error {
	if msg := server.KeyNameProblem(opts.name); msg != "" {
		return usageErrorf("invalid key name %q: %s", opts.name, msg)
	}
	scope := server.Scope(opts.scope)
	if !scope.Valid() {
		return usageErrorf("--scope must be push or read, got %q", opts.scope)
	}
	ctx := cmd.Context()
	store, shown, err := openStore(ctx, opts.db)
	if err != nil {
		return err
	}
	defer store.Close()
	key, hash := server.NewKey()
	err = store.AddKey(ctx, server.Key{Name: opts.name, Scope: scope, CreatedAt: time.Now().UTC()}, hash)
	switch {
	case errors.Is(err, server.ErrKeyExists):
		return usageErrorf("the store %s already has a key named %q; choose another name", shown, opts.name)
	case err != nil:
		return &exitError{Code: exitFailed, Err: fmt.Errorf("storing the key in %s: %v", shown, err)}
	}
	fmt.Fprintln(cmd.OutOrStdout(), key)
	use := "Pushers use it as REELIER_CLOUD_KEY."
	if scope == server.ScopeRead {
		use = "It opens the receipts pages (as the password) and the GET API; it cannot push."
	}
	fmt.Fprintf(cmd.ErrOrStderr(), "reelier ledger: created %s API key %q in %s; this is the only time it is shown (only its hash is stored). %s\n", scope, opts.name, shown, use)
	return nil
}
