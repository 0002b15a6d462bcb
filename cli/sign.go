package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/reelier/reelier/internal/termtext"
	"github.com/reelier/reelier/lang/loader"
	"github.com/reelier/reelier/mcpx"
	"github.com/reelier/reelier/replay/runlog"
	"github.com/reelier/reelier/replay/signkey"
	"github.com/spf13/cobra"
)

// Signing defaults from the environment.
const (
	// envSign makes reelier run sign without --sign ("1" or "true").
	envSign = "REELIER_SIGN"
	// envSignKey names the private key run --sign uses.
	envSignKey = "REELIER_SIGN_KEY"
	// envAttest names the reelier-attest program to run.
	envAttest = "REELIER_ATTEST"
	// attestProgram is the program that signs and verifies.
	attestProgram = "reelier-attest"
)

const keyLong = `Manage the key that signs run records (reelier run --sign).

reelier key init makes a signing key: an Ed25519 key (--type ed25519, the
default) or an ECDSA P-256 key (--type ecdsa-p256), the private half as
PKCS #8 PEM with permissions 0600, the public half as PKIX PEM beside it:

  <user config dir>/reelier/keys/signing.key   private: keep it
  <user config dir>/reelier/keys/signing.pub   public: give it to reviewers

(<user config dir> is $XDG_CONFIG_HOME or ~/.config on Linux,
~/Library/Application Support on macOS, %AppData% on Windows; --dir puts
the files elsewhere.) An existing key is never replaced without --force:
receipts it signed verify only with its public half.

Exit status: 0 written; 2 bad usage, a key already there, or a file that
could not be written.`

func newKeyCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "key",
		Short: "Make the key that signs run records",
		Long:  keyLong,
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return usageErrorf("key needs a subcommand: reelier key init [--type ed25519|ecdsa-p256] [--force]")
		},
	}
	var typ, dir string
	var force bool
	initCmd := &cobra.Command{
		Use:   "init [--type ed25519|ecdsa-p256] [--force] [--dir DIR]",
		Short: "Make a signing key (private 0600, public beside it)",
		Long:  keyLong,
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if typ != signkey.Ed25519 && typ != signkey.ECDSAP256 {
				return usageErrorf("--type must be %s or %s, got %q", signkey.Ed25519, signkey.ECDSAP256, typ)
			}
			if dir == "" {
				d, err := signkey.Dir()
				if err != nil {
					return usageErrorf("no user configuration directory to keep the key in (%v): give --dir", err)
				}
				dir = d
			}
			priv, pub, err := signkey.Init(dir, typ, force)
			if err != nil {
				return usageErrorf("key init: %s", termtext.Line(err.Error()))
			}
			out := cmd.OutOrStdout()
			fmt.Fprintf(out, "private key: %s (%s, mode 0600)\n", termtext.Line(priv), typ)
			fmt.Fprintf(out, "public key:  %s\n", termtext.Line(pub))
			fmt.Fprintf(out, "Sign runs with: reelier run --sign …   Verify with: reelier verify BUNDLE --key %s\n", termtext.Line(pub))
			return nil
		},
	}
	f := initCmd.Flags()
	f.StringVar(&typ, "type", signkey.Ed25519, "key `TYPE`: ed25519 or ecdsa-p256")
	f.BoolVar(&force, "force", false, "replace a key that is already there")
	f.StringVar(&dir, "dir", "", "write the key files in `DIR` (default <user config dir>/reelier/keys)")
	cmd.AddCommand(initCmd)
	return cmd
}

// defaultSignKey is the private key run --sign uses when --sign-key is
// not given: $REELIER_SIGN_KEY, else the one reelier key init writes.
func defaultSignKey() string {
	if k := os.Getenv(envSignKey); k != "" {
		return k
	}
	dir, err := signkey.Dir()
	if err != nil {
		return ""
	}
	return filepath.Join(dir, signkey.KeyFile)
}

// signFromEnv says whether REELIER_SIGN asks run to sign.
func signFromEnv() bool {
	switch strings.ToLower(os.Getenv(envSign)) {
	case "1", "true", "yes":
		return true
	}
	return false
}

// findAttest is the reelier-attest program: $REELIER_ATTEST, else the one
// beside this executable, else the one on PATH.
func findAttest() (string, error) {
	if p, ok := findProgram(attestProgram, envAttest); ok {
		return p, nil
	}
	return "", fmt.Errorf("signing and verifying need the %s program, found neither beside reelier nor on PATH: go install github.com/reelier/reelier/cmd/%s@latest (or set %s)", attestProgram, attestProgram, envAttest)
}

// recordSigner is run --sign's suite.Options.AfterRecord: it hands each
// run record to reelier-attest sign, which signs it with the key at path
// and writes its bundle beside the history. The key and the program are
// checked once, before anything runs.
func recordSigner(path, runsDir string, servers []mcpx.ServerSpec) (func(*loader.Skill, *runlog.Record) (string, error), error) {
	if path == "" {
		return nil, usageErrorf("--sign needs a key: run reelier key init, or give --sign-key FILE")
	}
	if _, err := signkey.LoadPrivate(path); err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, usageErrorf("--sign: no signing key at %s: run reelier key init, or give --sign-key FILE", termtext.Line(path))
		}
		return nil, usageErrorf("--sign: %s", termtext.Line(err.Error()))
	}
	prog, err := findAttest()
	if err != nil {
		return nil, usageErrorf("--sign: %s", err)
	}
	version := versionString()
	type reqServer struct {
		Name    string `json:"name,omitempty"`
		Command string `json:"command,omitempty"`
		URL     string `json:"url,omitempty"`
	}
	var wrap []reqServer
	for _, s := range servers {
		wrap = append(wrap, reqServer{s.Name, s.Command, s.URL})
	}
	return func(l *loader.Skill, rec *runlog.Record) (string, error) {
		name := rec.Path
		if name == "" {
			name = l.Path
		}
		// The request reelier-attest sign reads (attest.SignRequest).
		req, err := json.Marshal(struct {
			Key     string         `json:"key"`
			RunsDir string         `json:"runsDir"`
			Record  *runlog.Record `json:"record"`
			Name    string         `json:"name"`
			Src     []byte         `json:"src"`
			Servers []reqServer    `json:"servers,omitempty"`
			Version string         `json:"version"`
		}{path, runsDir, rec, name, l.Src, wrap, version})
		if err != nil {
			return "", err
		}
		var out, errb bytes.Buffer
		cmd := exec.Command(prog, "sign")
		cmd.Stdin, cmd.Stdout, cmd.Stderr = bytes.NewReader(req), &out, &errb
		if err := cmd.Run(); err != nil {
			msg := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(errb.String()), "reelier:"))
			if msg == "" {
				msg = err.Error()
			}
			return "", errors.New(msg)
		}
		return strings.TrimSpace(out.String()), nil
	}, nil
}

const verifyLong = `Verify a signed run record (a receipt bundle reelier run --sign wrote, or
one a CI signed keyless) and show what it says was checked.

A bundle is a Sigstore bundle holding a DSSE envelope, signed once, over
an in-toto Statement: its subject is the skill file (name and sha256), its
predicate Reelier's receipt (https://reelier.dev/receipt/v1, SPEC.md
§14). verify checks, offline:

  1. the signature: with --key, against that public key (Ed25519 or ECDSA
     P-256, PEM); keyless, the certificate's chain against --trusted-root
     (a Sigstore trusted_root.json), its identity (--certificate-identity,
     the subject alternative name, e.g. a workflow's URL@ref) and its OIDC
     issuer (--certificate-oidc-issuer), and that it was valid when it
     signed (a timestamp or transparency log entry in the bundle, else now);
  2. that the skill file on disk (the subject's name, or --skill FILE)
     still has the signed sha256;
  3. that the receipt is consistent: its verdict is what its steps say.

Then it prints what the receipt says was checked: the verdict, each step's
outcome with its asserts and binds, the tools' signatures, the servers and
where it ran — so that a reviewer sees what PASSED means.

Flags:
  --key FILE                      the signer's public key (reelier key init's signing.pub)
  --certificate-identity ID       keyless: the certificate's subject alternative name
  --certificate-oidc-issuer URL   keyless: the certificate's OIDC issuer
  --trusted-root FILE             keyless: the Sigstore trusted_root.json to chain to
  --skill FILE                    the skill file to check (default: the subject's name)

verify runs the reelier-attest program (beside reelier, on PATH, or
$REELIER_ATTEST), which holds the signing stack so that no other command
pays for loading it.

Exit status: 0 verified; 1 not verified (a changed byte, another key or
identity, an expired certificate, a changed skill file), with the reason;
2 bad usage or input (a missing or unreadable file, a key of the wrong
type, a truncated or non-JSON bundle, a bundle that is not a receipt or is
signed more than once, no reelier-attest program).`

func newVerifyCmd() *cobra.Command {
	return &cobra.Command{
		Use:                "verify BUNDLE [--key PUB | --certificate-identity ID --certificate-oidc-issuer ISSUER --trusted-root FILE] [--skill FILE]",
		Short:              "Verify a signed run record and show what it checked",
		Long:               verifyLong,
		DisableFlagParsing: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			for _, a := range args {
				if a == "-h" || a == "--help" || a == "-help" {
					return cmd.Help()
				}
				if a == "--" {
					break
				}
			}
			prog, err := findAttest()
			if err != nil {
				return usageErrorf("verify: %s", err)
			}
			c := exec.Command(prog, append([]string{"verify"}, args...)...)
			c.Stdin, c.Stdout, c.Stderr = cmd.InOrStdin(), cmd.OutOrStdout(), cmd.ErrOrStderr()
			if err := c.Run(); err != nil {
				var ee *exec.ExitError
				if errors.As(err, &ee) && ee.ExitCode() > 0 {
					return silentExit(ee.ExitCode())
				}
				return usageErrorf("verify: running %s: %v", prog, err)
			}
			return nil
		},
	}
}
