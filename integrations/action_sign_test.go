package integrations_test

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// actionSignKey: sign: key, the way a runner runs it. A key made here by
// reelier key init is handed over as the signing-key input (a secret's
// value: the PEM text); the install steps put reelier-attest beside
// reelier; the replay signs each record with reelier run --sign; the
// bundle stays in the runs-dir and is named by bundle-path; the key's
// temporary file is gone when the job ends and the key never reaches the
// log. Then reelier verify, with the public half, verifies the bundle the
// Action produced, and refuses it once a byte of the signed statement is
// changed (the verdict) or a byte of the signature.
func actionSignKey(t *testing.T, files map[string]string, vars string) {
	bin := binary(t)
	if _, err := os.Stat(filepath.Join(filepath.Dir(bin), "reelier-attest")); err != nil {
		t.Fatalf("the install steps did not put reelier-attest beside reelier: %v", err)
	}
	keys := t.TempDir()
	if out, err := exec.Command(bin, "key", "init", "--dir", keys).CombinedOutput(); err != nil {
		t.Fatalf("key init: %v\n%s", err, out)
	}
	priv := readFile(t, filepath.Join(keys, "signing.key"))
	pub := filepath.Join(keys, "signing.pub")

	r := newRunner(t, files)
	r.inputs = map[string]string{"skills": "skills/booking.skill.md", "vars": vars, "sign": "key", "signing-key": priv}
	if code, failed := r.run(); code != 0 {
		t.Fatalf("exit %d at %q\n%s", code, failed, r.log.String())
	}
	runsDir := r.outputs["replay"]["runs-dir"]
	bundle := r.outputs["sign-keep"]["bundle-path"]
	if filepath.Dir(bundle) != filepath.Join(runsDir, "booking-status.bundles") || !strings.HasSuffix(bundle, ".sigstore.json") {
		t.Fatalf("bundle-path %q, want one bundle in %s/booking-status.bundles\n%s", bundle, runsDir, r.log.String())
	}
	if r.outputs["sign-prep"]["enabled"] != "false" {
		t.Errorf("sign: key went to actions/attest too: %v", r.outputs["sign-prep"])
	}
	if !strings.Contains(r.log.String(), "Signed with the key: 1 bundle(s) in the runs-dir") {
		t.Errorf("the log does not say what was signed:\n%s", r.log.String())
	}
	// The key's file is removed, and its text never shown.
	filepath.WalkDir(r.temp, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Name() == "signing.key" {
			t.Errorf("the key file was left behind: %s", p)
		}
		return nil
	})
	keyBody := strings.Split(strings.TrimSpace(priv), "\n")[1]
	if strings.Contains(r.log.String(), keyBody) || strings.Contains(r.summary, keyBody) {
		t.Error("the private key appeared in the log or the summary")
	}

	verify := func(path string) (int, string) {
		cmd := exec.Command(bin, "verify", path, "--key", pub)
		cmd.Dir = r.workspace
		out, err := cmd.CombinedOutput()
		var ee *exec.ExitError
		switch {
		case errors.As(err, &ee):
			return ee.ExitCode(), string(out)
		case err != nil:
			t.Fatal(err)
		}
		return 0, string(out)
	}
	if code, out := verify(bundle); code != 0 || !strings.Contains(out, "VERIFIED ") || !strings.Contains(out, "passed") {
		t.Fatalf("reelier verify on the Action's bundle: exit %d\n%s", code, out)
	}

	// One byte changed: the statement's verdict, then the signature.
	var b map[string]any
	if err := json.Unmarshal([]byte(readFile(t, bundle)), &b); err != nil {
		t.Fatal(err)
	}
	env, _ := b["dsseEnvelope"].(map[string]any)
	payload, err := base64.StdEncoding.DecodeString(env["payload"].(string))
	if err != nil || !strings.Contains(string(payload), `"verdict":"passed"`) {
		t.Fatalf("the statement: %v\n%s", err, payload)
	}
	for _, tc := range []struct {
		name   string
		change func(map[string]any)
	}{
		{"verdict", func(env map[string]any) {
			env["payload"] = base64.StdEncoding.EncodeToString([]byte(strings.Replace(string(payload), `"verdict":"passed"`, `"verdict":"failed"`, 1)))
		}},
		{"signature", func(env map[string]any) {
			sigs := env["signatures"].([]any)
			sig := sigs[0].(map[string]any)
			raw, _ := base64.StdEncoding.DecodeString(sig["sig"].(string))
			raw[len(raw)/2] ^= 1
			sig["sig"] = base64.StdEncoding.EncodeToString(raw)
		}},
	} {
		var c map[string]any
		json.Unmarshal([]byte(readFile(t, bundle)), &c)
		tc.change(c["dsseEnvelope"].(map[string]any))
		data, _ := json.Marshal(c)
		altered := filepath.Join(t.TempDir(), "altered-"+tc.name+".sigstore.json")
		os.WriteFile(altered, data, 0o644)
		if code, out := verify(altered); code != 1 || !strings.Contains(out, "NOT VERIFIED") {
			t.Errorf("a changed %s: exit %d, want 1 NOT VERIFIED\n%s", tc.name, code, out)
		}
	}
}

// TestActionPolicy: a repository with a policy file (.reelier/policy.yaml)
// replays under it in the Action: the install steps put reelier-seatbelt
// beside reelier, where run finds it. A policy that allows the calls
// passes; one that denies a call stops the run (exit 2, verdict config),
// so the policy was read, not skipped.
func TestActionPolicy(t *testing.T) {
	api := fakeAPI(t)
	for _, tc := range []struct {
		name, rule string
		code       int
		verdict    string
	}{
		{"allowed", `tool == "http.post"`, 0, "passed"},
		{"denied", `tool == "http.get" && args.url.endsWith("/bookings/bk_1")`, 2, "failed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			policy := "rules:\n  - name: the-rule\n    when: " + tc.rule + "\n    action: deny\n    message: not in CI\n"
			r := newRunner(t, map[string]string{"skills/booking.skill.md": bookingSkill, ".reelier/policy.yaml": policy})
			r.inputs = map[string]string{"skills": "skills/booking.skill.md", "vars": "base=" + api + "\nid=bk_1"}
			code, _ := r.run()
			if code != tc.code || r.outputs["report"]["verdict"] != tc.verdict || strings.Contains(r.log.String(), "needs the reelier-seatbelt program") {
				t.Errorf("exit %d verdict %q, want %d %q\n%s", code, r.outputs["report"]["verdict"], tc.code, tc.verdict, r.log.String())
			}
		})
	}
}
