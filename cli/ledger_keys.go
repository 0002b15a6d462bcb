package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"text/tabwriter"
	"time"

	"github.com/reelier/reelier/internal/termtext"
	"github.com/reelier/reelier/ledger/server"
	"github.com/reelier/reelier/ledger/stores"
	"github.com/spf13/cobra"
)

const ledgerKeyListLong = `List the store's API keys: name, scope, when each was created and, for a
revoked key, when it was revoked. Keys themselves are never shown (only
their hashes are stored). --json prints them as a JSON array.

Examples:
  reelier ledger key list
  reelier ledger key list --json --db postgres://reelier@db.internal/reelier`

const ledgerKeyRevokeLong = `Revoke the API key named NAME. Its row stays (so the name cannot be
reused and the ledger never falls back to its open, keyless mode), marked
revoked: every ledger process on the store refuses the key from its next
request, with a 401 that says it was revoked. Nothing is cached, so no
restart is needed. A push refused this way keeps its cursor: the records
it could not send go with the next push under a valid key.

Revoking a key that is already revoked changes nothing and says when it
was revoked.

Examples:
  reelier ledger key revoke laptop
  reelier ledger key revoke ci --db postgres://reelier@db.internal/reelier`

type ledgerKeyListOptions struct {
	db   string
	json bool
}

func newLedgerKeyListCmd() *cobra.Command {
	var opts ledgerKeyListOptions
	cmd := &cobra.Command{
		Use:   "list [--db STORE] [--json]",
		Short: "List the API keys with their scopes and revocations",
		Long:  ledgerKeyListLong,
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return ledgerKeyListRun(cmd, opts)
		},
	}
	cmd.Flags().StringVar(&opts.db, "db", "", "store: sqlite:PATH or a postgres:// URL (default $"+ledgerDBEnv+" or "+stores.Default+")")
	cmd.Flags().BoolVar(&opts.json, "json", false, "print the keys as JSON")
	return cmd
}

func newLedgerKeyRevokeCmd() *cobra.Command {
	var opts ledgerKeyOptions
	cmd := &cobra.Command{
		Use:   "revoke NAME [--db STORE]",
		Short: "Revoke an API key; every ledger refuses it from the next request",
		Long:  ledgerKeyRevokeLong,
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.name = args[0]
			return ledgerKeyRevokeRun(cmd, opts)
		},
	}
	cmd.Flags().StringVar(&opts.db, "db", "", "store: sqlite:PATH or a postgres:// URL (default $"+ledgerDBEnv+" or "+stores.Default+")")
	return cmd
}

// keyJSON is a key in 'key list --json'.
type keyJSON struct {
	Name      string `json:"name"`
	Scope     string `json:"scope"`
	CreatedAt string `json:"createdAt"`
	RevokedAt string `json:"revokedAt,omitempty"`
}

// keyTime formats a key's times.
func keyTime(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05Z") }

func ledgerKeyListRun(cmd *cobra.Command, opts ledgerKeyListOptions) error {
	ctx := cmd.Context()
	store, shown, err := openStore(ctx, opts.db)
	if err != nil {
		return err
	}
	defer store.Close()
	keys, err := store.Keys(ctx)
	if err != nil {
		return &exitError{Code: exitFailed, Err: fmt.Errorf("reading the API keys of %s: %v", shown, err)}
	}
	out := cmd.OutOrStdout()
	if opts.json {
		list := make([]keyJSON, 0, len(keys))
		for _, k := range keys {
			j := keyJSON{Name: k.Name, Scope: string(k.Scope), CreatedAt: keyTime(k.CreatedAt)}
			if k.Revoked() {
				j.RevokedAt = keyTime(k.RevokedAt)
			}
			list = append(list, j)
		}
		enc := json.NewEncoder(out)
		enc.SetIndent("", "  ")
		return enc.Encode(list)
	}
	if len(keys) == 0 {
		fmt.Fprintf(out, "no API keys in %s: the ledger is open to loopback clients only ('reelier ledger key create NAME' makes one)\n", shown)
		return nil
	}
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tSCOPE\tCREATED\tSTATUS")
	for _, k := range keys {
		status := "active"
		if k.Revoked() {
			status = "revoked " + keyTime(k.RevokedAt)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", termtext.Line(k.Name), k.Scope, keyTime(k.CreatedAt), status)
	}
	return tw.Flush()
}

func ledgerKeyRevokeRun(cmd *cobra.Command, opts ledgerKeyOptions) error {
	ctx := cmd.Context()
	store, shown, err := openStore(ctx, opts.db)
	if err != nil {
		return err
	}
	defer store.Close()
	k, err := store.RevokeKey(ctx, opts.name, time.Now().UTC())
	name := termtext.Line(opts.name)
	switch {
	case errors.Is(err, server.ErrNotFound):
		return usageErrorf("the store %s has no key named %q ('reelier ledger key list' shows them)", shown, name)
	case errors.Is(err, server.ErrKeyRevoked):
		fmt.Fprintf(cmd.ErrOrStderr(), "reelier ledger: API key %q in %s was already revoked at %s; nothing changed\n", name, shown, keyTime(k.RevokedAt))
		return nil
	case err != nil:
		return &exitError{Code: exitFailed, Err: fmt.Errorf("revoking the key in %s: %v", shown, err)}
	}
	fmt.Fprintf(cmd.ErrOrStderr(), "reelier ledger: revoked %s API key %q in %s at %s; every ledger on this store refuses it from its next request\n", k.Scope, name, shown, keyTime(k.RevokedAt))
	return nil
}
