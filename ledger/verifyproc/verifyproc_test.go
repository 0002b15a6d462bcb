package verifyproc_test

import (
	"bufio"
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sigstore/sigstore-go/pkg/sign"

	"github.com/reelier/reelier/ledger/server"
	"github.com/reelier/reelier/ledger/verifyproc"
	"github.com/reelier/reelier/ledger/wire"
	"github.com/reelier/reelier/replay/attest"
	"github.com/reelier/reelier/replay/runlog"
	"github.com/reelier/reelier/testkit/ledgertest"
)

// childEnv makes this test binary play a child: "attest" is
// reelier-attest itself; the others are broken verifiers.
const childEnv = "VERIFYPROC_TEST_CHILD"

func TestMain(m *testing.M) {
	switch os.Getenv(childEnv) {
	case "":
		os.Exit(m.Run())
	case "attest":
		os.Exit(attest.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
	case "refuse":
		fmt.Fprintln(os.Stderr, "reelier: --trust-key: open nowhere.pub: no such file or directory")
		os.Exit(2)
	case "hang", "crash", "garbage":
		fmt.Println(`{"ready":true}`)
		sc := bufio.NewScanner(os.Stdin)
		sc.Buffer(nil, wire.MaxVerifyLine)
		for sc.Scan() {
			switch os.Getenv(childEnv) {
			case "crash":
				os.Exit(3)
			case "garbage":
				fmt.Println("not json")
			}
			// hang: never answers
		}
		os.Exit(0)
	}
}

// child is a Proc running this binary as the named child.
func child(t *testing.T, kind string, args ...string) *verifyproc.Proc {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv(childEnv, kind)
	p := &verifyproc.Proc{Program: self, Args: args, Timeout: 5 * time.Second, Logf: t.Logf}
	t.Cleanup(func() { p.Close() })
	return p
}

// signedRecord is a record of "weekly" and its bundle, signed with a new
// key whose public half is written to pubPath.
func signedRecord(t testing.TB, pubPath string) ([]byte, []byte) {
	t.Helper()
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	der, _ := x509.MarshalPKIXPublicKey(pub)
	if err := os.WriteFile(pubPath, pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der}), 0o644); err != nil {
		t.Fatal(err)
	}
	k, err := attest.NewKey(priv)
	if err != nil {
		t.Fatal(err)
	}
	var rec runlog.Record
	json.Unmarshal(ledgertest.Record("weekly", 0, runlog.Passed), &rec)
	line, _ := runlog.Marshal(&rec)
	st, err := attest.BuildStatement(attest.Input{Record: &rec, Src: []byte("x"), Name: "weekly.skill.md", Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	b, err := attest.Sign(st, k, sign.BundleOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return line, b
}

// TestVerifier: the real verifier as a child answers verified, and
// refuses a changed record; after it is killed the next record starts a
// fresh one.
func TestVerifier(t *testing.T) {
	pub := filepath.Join(t.TempDir(), "signing.pub")
	line, bundle := signedRecord(t, pub)
	p := child(t, "attest", "ledger-verify", "--trust-key", pub)
	ctx := context.Background()
	if err := p.Start(ctx); err != nil {
		t.Fatal(err)
	}
	sig, err := p.Verify(ctx, "weekly", line, bundle)
	if err != nil || sig.State != server.SignatureVerified || !strings.HasPrefix(sig.Signer, "key ") {
		t.Fatalf("a signed record: %+v, %v; want verified by its key", sig, err)
	}
	changed := []byte(strings.Replace(string(line), `"Step 1"`, `"Step 9"`, 1))
	_, err = p.Verify(ctx, "weekly", changed, bundle)
	var rej *server.Rejection
	if !errors.As(err, &rej) || !strings.Contains(rej.Reason, "the record is not the one the bundle signs") {
		t.Fatalf("a changed record: %v; want a rejection saying so", err)
	}
	p.Kill()
	if sig, err := p.Verify(ctx, "weekly", line, bundle); err != nil || sig.State != server.SignatureVerified || p.Starts != 2 {
		t.Fatalf("after the child was killed: %+v, %v, %d starts; want verified by a second child", sig, err, p.Starts)
	}
}

// TestBrokenVerifier: a child that will not start says why; one that
// hangs is given up after the timeout, one that crashes or answers
// garbage is an error (503 at the ledger), never a verdict, and each is
// replaced for the next record.
func TestBrokenVerifier(t *testing.T) {
	ctx := context.Background()
	p := child(t, "refuse")
	if err := p.Start(ctx); err == nil || !strings.Contains(err.Error(), "did not start: --trust-key: open nowhere.pub") {
		t.Errorf("a child that refuses its flags: %v", err)
	}
	for _, kind := range []string{"hang", "crash", "garbage"} {
		t.Run(kind, func(t *testing.T) {
			p := child(t, kind)
			p.Timeout = 300 * time.Millisecond
			for i := range 2 {
				_, err := p.Verify(ctx, "weekly", []byte(`{}`), []byte(`{}`))
				var rej *server.Rejection
				if err == nil || errors.As(err, &rej) {
					t.Fatalf("request %d: %v; want a failure that is not a rejection", i, err)
				}
			}
			if p.Starts != 2 {
				t.Errorf("%d children started; want a fresh one for the second request", p.Starts)
			}
		})
	}
}

// BenchmarkVerifier is one signed record verified by the ledger's
// verifier child: the request line out, the check in reelier-attest
// (the record matched to its statement, the signature against the
// trusted key), the answer back (BENCHMARKS.md, "Signed receipts").
func BenchmarkVerifier(b *testing.B) {
	pub := filepath.Join(b.TempDir(), "signing.pub")
	line, bundle := signedRecord(b, pub)
	self, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	b.Setenv(childEnv, "attest")
	p := &verifyproc.Proc{Program: self, Args: []string{"ledger-verify", "--trust-key", pub}}
	defer p.Close()
	ctx := context.Background()
	if err := p.Start(ctx); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if sig, err := p.Verify(ctx, "weekly", line, bundle); err != nil || sig.State != server.SignatureVerified {
			b.Fatal(sig, err)
		}
	}
}
