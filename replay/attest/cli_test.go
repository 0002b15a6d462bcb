package attest_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sigstore/sigstore-go/pkg/sign"

	"github.com/reelier/reelier/lang/grammar"
	"github.com/reelier/reelier/replay/attest"
)

// TestMainVerify runs reelier-attest verify: its exit statuses, and a
// hostile step title reaching the terminal escaped.
func TestMainVerify(t *testing.T) {
	dir := t.TempDir()
	skill := filepath.Join(dir, "search.skill.md")
	os.WriteFile(skill, []byte(skillSrc), 0o644)
	rec := record()
	rec.Steps[0].Title = "Search \x1b[2J\x1b]0;owned\x07"
	sk, _ := grammar.Parse("search.skill.md", []byte(skillSrc))
	st, err := attest.BuildStatement(attest.Input{Record: rec, Skill: sk, Src: []byte(skillSrc), Name: "search.skill.md", Version: "v1"})
	if err != nil {
		t.Fatal(err)
	}
	k, pub := keyPair(t, attest.ECDSAP256)
	b, err := attest.Sign(st, k, sign.BundleOptions{})
	if err != nil {
		t.Fatal(err)
	}
	bundle := filepath.Join(dir, "r.sigstore.json")
	os.WriteFile(bundle, b, 0o644)
	_, otherPub := keyPair(t, attest.ECDSAP256)
	cases := []struct {
		name string
		args []string
		code int
		out  string // in stdout when code is 0, in stderr otherwise
	}{
		{"verified", []string{"verify", bundle, "--key", pub, "--skill", skill}, 0, "VERIFIED "},
		{"flags first", []string{"verify", "--skill", skill, "--key", pub, bundle}, 0, "step 1 Search "},
		{"another key", []string{"verify", bundle, "--key", otherPub, "--skill", skill}, 1, "NOT VERIFIED"},
		{"no skill file", []string{"verify", bundle, "--key", pub, "--skill", filepath.Join(dir, "none.md")}, 2, "cannot be read"},
		{"two bundles", []string{"verify", bundle, bundle, "--key", pub}, 2, "one bundle file"},
		{"unknown flag", []string{"verify", bundle, "--keyy", pub}, 2, "flag provided but not defined"},
		{"no command", []string{"frobnicate"}, 2, "unknown command"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			code := attest.Main(c.args, strings.NewReader(""), &out, &errb)
			if code != c.code {
				t.Fatalf("exit %d, want %d\nstdout: %s\nstderr: %s", code, c.code, &out, &errb)
			}
			where := errb.String()
			if c.code == 0 {
				where = out.String()
			}
			if !strings.Contains(where, c.out) {
				t.Fatalf("output %q does not say %q", where, c.out)
			}
			if strings.ContainsAny(out.String()+errb.String(), "\x1b\x07") {
				t.Fatalf("a control character reached the terminal: %q", out.String())
			}
		})
	}
}

// TestMainSign runs reelier-attest sign as run --sign does: the request on
// stdin, the bundle's path on stdout, the bundle verifying; a request
// whose key is missing or that is not JSON is exit 2.
func TestMainSign(t *testing.T) {
	dir := t.TempDir()
	_, pub := keyPair(t, attest.Ed25519)
	keyFile := strings.TrimSuffix(pub, ".pub") + ".key"
	req := attest.SignRequest{Key: keyFile, RunsDir: filepath.Join(dir, "runs"), Record: record(), Name: "search.skill.md", Src: []byte(skillSrc), Version: "v1",
		Servers: []attest.RequestServer{{Name: "mem", Command: "reelier mock --trace t.jsonl"}, {URL: "https://user:pw@mcp.example.com/mcp"}}}
	body, _ := json.Marshal(req)
	var out, errb bytes.Buffer
	if code := attest.Main([]string{"sign"}, bytes.NewReader(body), &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, &errb)
	}
	path := strings.TrimSpace(out.String())
	if filepath.Dir(path) != attest.BundleDir(req.RunsDir, "search") {
		t.Fatalf("bundle at %q", path)
	}
	data, _ := os.ReadFile(path)
	pk, _ := attest.LoadPublicKey(pub)
	v, err := attest.Verify(data, attest.Trust{Key: pk})
	if err != nil {
		t.Fatal(err)
	}
	sv := v.Statement.Predicate.Servers
	if len(sv) != 2 || !sv[0].Mock || sv[0].Target != "reelier" || sv[1].Kind != "url" || sv[1].Target != "mcp.example.com" {
		t.Fatalf("servers %+v", sv)
	}
	// The same record again: refused, the bundle kept.
	out.Reset()
	errb.Reset()
	if code := attest.Main([]string{"sign"}, bytes.NewReader(body), &out, &errb); code != 3 || !strings.Contains(errb.String(), "signed already") {
		t.Fatalf("signing the record twice: exit %d, %s", code, &errb)
	}
	for _, c := range []struct {
		name string
		body []byte
		want string
	}{
		{"not JSON", []byte("{"), "not a sign request"},
		{"no key", func() []byte { r := req; r.Key = filepath.Join(dir, "none.key"); b, _ := json.Marshal(r); return b }(), "no such file"},
		{"public key", func() []byte { r := req; r.Key = pub; b, _ := json.Marshal(r); return b }(), `not a "PRIVATE KEY" one`},
	} {
		errb.Reset()
		if code := attest.Main([]string{"sign"}, bytes.NewReader(c.body), &out, &errb); code != 2 || !strings.Contains(errb.String(), c.want) {
			t.Errorf("%s: exit %d, %s", c.name, code, &errb)
		}
	}
}
