package cli

import (
	"bytes"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sigstore/sigstore-go/pkg/sign"

	"github.com/reelier/reelier/ledger/wire"
	"github.com/reelier/reelier/replay/attest"
	"github.com/reelier/reelier/replay/runlog"
	"github.com/reelier/reelier/testkit/ledgertest"
)

// TestLedgerServeVerifies runs `reelier ledger serve --trust-key` as a
// process (its verifier, reelier-attest ledger-verify, a child of it) and
// pushes to it over HTTP: the listening line names whom it trusts, a
// signed record is stored verified with its signer, the same record
// changed by one byte is refused 400 with the reason, and an unsigned one
// is stored unsigned; the ledger stops cleanly with its verifier.
func TestLedgerServeVerifies(t *testing.T) {
	dir := t.TempDir()
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	ledgerMust(t, err)
	der, _ := x509.MarshalPKIXPublicKey(pub)
	pubPath := filepath.Join(dir, "signing.pub")
	ledgerMust(t, os.WriteFile(pubPath, pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der}), 0o644))
	key, err := attest.NewKey(priv)
	ledgerMust(t, err)

	var rec runlog.Record
	ledgerMust(t, json.Unmarshal(ledgertest.Record("shared", 0, runlog.Passed, runlog.Unchecked), &rec))
	line, _ := runlog.Marshal(&rec)
	st, err := attest.BuildStatement(attest.Input{Record: &rec, Src: []byte("x"), Name: "shared.skill.md", Version: "test"})
	ledgerMust(t, err)
	bundle, err := attest.Sign(st, key, sign.BundleOptions{})
	ledgerMust(t, err)

	l := startLedger(t, "sqlite:"+filepath.Join(dir, "ledger.db"), "--trust-key", pubPath)
	if !strings.Contains(l.line, "signed records verified against key "+pubPath) {
		t.Errorf("listening line %q does not say whom it trusts", l.line)
	}
	post := func(path string, body []byte) (int, string) {
		t.Helper()
		resp, err := http.Post(l.url+path, "application/json", bytes.NewReader(body))
		ledgerMust(t, err)
		defer resp.Body.Close()
		out, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(out)
	}
	skill, _ := json.Marshal(wire.SkillUpload{Name: "shared", SkillMd: "---\nname: shared\n---\n"})
	if status, body := post(wire.SkillsPath, skill); status != 200 {
		t.Fatalf("skill upload: %d %s", status, body)
	}
	changed := bytes.Replace(line, []byte(`"Step 1"`), []byte(`"Step 7"`), 1)
	for _, tc := range []struct {
		name           string
		record, bundle []byte
		status         int
		want           string
	}{
		{"signed", line, bundle, 202, `"signature":"verified","signer":"key `},
		{"changed", changed, bundle, 400, `"record.signature":"the record is not the one the bundle signs`},
		{"unsigned", changed, nil, 202, `"signature":"unsigned"`},
	} {
		if status, body := post(wire.RunsPath, wire.EncodeSignedRunUpload("shared", tc.record, tc.bundle)); status != tc.status || !strings.Contains(body, tc.want) {
			t.Errorf("%s: %d %s; want %d with %s", tc.name, status, body, tc.status, tc.want)
		}
	}
}
