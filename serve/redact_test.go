package serve

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reelier/reelier/redact"
)

// TestSessionToolsRedacted: reelier_scan and reelier_from_session answer
// with what they found and compiled, never with a value the transcript's
// calls carried that a trace would blank — in arguments, in results, or in
// a skipped shell command — and the skill they write holds none either.
func TestSessionToolsRedacted(t *testing.T) {
	github, password, envValue := "ghp_"+strings.Repeat("sRv8", 9), "Hunter2-"+"serve", "env-value-"+"S3rvQ1"
	t.Setenv(redact.RedactEnv, "SERVE_SECRET")
	t.Setenv("SERVE_SECRET", envValue)
	login := [3]string{"mcp__crm__login", `{"user":"ann","password":"` + password + `","note":"` + envValue + `"}`,
		`[{"type":"text","text":"{\"token\":\"` + github + `\",\"user\":\"ann\"}"}]`}
	shell := [3]string{"Bash", `{"command":"curl -H 'Authorization: Bearer ` + github + `' https://crm.test"}`, `"ok"`}
	history := t.TempDir()
	writeFiles(t, history, map[string]string{"-home-ann-crm/s1.jsonl": transcript("5e1f0a2b-0000-1111-2222-333344445555", shell, login)})
	dir := t.TempDir()
	cs := connect(t, Options{Dir: dir, HistoryDir: history})
	answers := map[string]string{}
	for _, c := range [][2]string{
		{"reelier_scan", `{}`},
		{"reelier_from_session", `{"transcriptPath": "` + filepath.Join(history, "-home-ann-crm", "s1.jsonl") + `", "name": "crm"}`},
	} {
		res := call(t, cs, c[0], c[1])
		whole, _ := json.Marshal(res)
		if res.IsError {
			t.Fatalf("%s: %s", c[0], whole)
		}
		answers[c[0]] = string(whole)
	}
	skill, err := os.ReadFile(filepath.Join(dir, "crm.skill.md"))
	if err != nil {
		t.Fatalf("no skill written: %v\n%s", err, answers["reelier_from_session"])
	}
	answers["crm.skill.md"] = string(skill)
	for name, text := range answers {
		for _, secret := range []string{github, password, envValue} {
			if strings.Contains(text, secret) {
				t.Errorf("%s holds a secret:\n%s", name, text)
			}
		}
	}
}
