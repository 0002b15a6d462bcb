package cli

import (
	"os"
	"time"

	"github.com/reelier/reelier/replay/attest"
	"github.com/reelier/reelier/testkit/attesttest"
	"github.com/rogpeppe/go-internal/testscript"
)

// The identity and issuer the script command keyless signs as: a GitHub
// Actions workflow's, the way a CI's keyless signature names it.
const (
	keylessIdentity = "https://github.com/acme/app/.github/workflows/nightly.yml@refs/heads/main"
	keylessIssuer   = "https://token.actions.githubusercontent.com"
)

// keylessCmd is the script command `keyless [-expired] IN OUT ROOT`: it
// takes the statement a key-signed bundle IN signs, signs it again keyless
// — a certificate for keylessIdentity from a certificate authority made
// on the spot, with a timestamp, as a CI does through Fulcio — writes the
// bundle to OUT and the trusted root naming that authority to ROOT. With
// -expired the certificate ran out before the signature and there is no
// timestamp.
func keylessCmd(ts *testscript.TestScript, neg bool, args []string) {
	expired := len(args) > 0 && args[0] == "-expired"
	if expired {
		args = args[1:]
	}
	if neg || len(args) != 3 {
		ts.Fatalf("usage: keyless [-expired] IN OUT ROOT")
	}
	_, payload, err := attest.ParseBundle([]byte(ts.ReadFile(args[0])))
	ts.Check(err)
	ca, err := attesttest.New()
	ts.Check(err)
	o := attesttest.Options{Timestamp: true}
	if expired {
		o = attesttest.Options{NotBefore: time.Now().Add(-time.Hour)}
	}
	b, err := ca.Sign(payload, keylessIdentity, keylessIssuer, o)
	ts.Check(err)
	ts.Check(os.WriteFile(ts.MkAbs(args[1]), b, 0o644))
	root, err := ca.RootJSON()
	ts.Check(err)
	ts.Check(os.WriteFile(ts.MkAbs(args[2]), root, 0o644))
}
