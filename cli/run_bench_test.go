package cli

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/reelier/reelier/testkit/skillgen"
	"github.com/reelier/reelier/testkit/testutil"
)

const benchSkill = `---
name: three-steps
description: A three-step replay for the wall-time benchmark
---

### Step 1 — List bookings
- intent: List this week's bookings
- action: http.get {"url": "{{base}}/bookings", "from": "{{today-7d}}"}
- assert: status == 200
- assert: json.bookings length > 0
- bind: id = json.bookings.0.id
- effect: read

### Step 2 — Read the booking
- intent: Read the first booking
- action: http.get {"url": "{{base}}/bookings/{{id}}"}
- assert: json.status == "confirmed"
- bind: guest = json.guest
- effect: read

### Step 3 — Read the guest
- intent: Read the guest of the booking
- action: http.get {"url": "{{base}}/guests/{{guest}}"}
- assert: status == 200
- assert: json.name is string
- effect: read
`

// BenchmarkBinaryReplay3 measures the wall time of `reelier run` on a
// three-step skill against a server on 127.0.0.1, process start to exit:
// the figure a user waits for.
func BenchmarkBinaryReplay3(b *testing.B) {
	dir := b.TempDir()
	bin := testutil.ReelierBinary(b)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/bookings":
			io.WriteString(w, `{"bookings":[{"id":"bk_1"}]}`)
		case "/bookings/bk_1":
			io.WriteString(w, `{"id":"bk_1","status":"confirmed","guest":"g_7"}`)
		default:
			io.WriteString(w, `{"name":"Ada"}`)
		}
	}))
	defer srv.Close()
	skill := filepath.Join(dir, "three.skill.md")
	if err := os.WriteFile(skill, []byte(benchSkill), 0o644); err != nil {
		b.Fatal(err)
	}
	args := []string{"run", "--var", "base=" + srv.URL, "--runs-dir", filepath.Join(dir, "runs"), skill}
	for b.Loop() {
		cmd := exec.Command(bin, args...)
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("reelier run: %v\n%s", err, out)
		}
	}
}

// BenchmarkRunDryRun500 is `reelier run skill500.skill.md --dry-run` in
// process, on the skill the whole-process harness (bench/ab)
// generates: loading, parsing, filling and printing the plan, without the
// process start.
func BenchmarkRunDryRun500(b *testing.B) {
	path := filepath.Join(b.TempDir(), "skill500.skill.md")
	if err := os.WriteFile(path, skillgen.Skill(500), 0o644); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if code := run([]string{"run", path, "--dry-run"}, nil, io.Discard, io.Discard); code != 0 {
			b.Fatalf("exit code %d", code)
		}
	}
}
