package serve

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestSkillsExtensionTSClient: a client built on the official MCP
// TypeScript SDK, a third party, finds the extension declared, lists a
// Reelier skill and an ordinary Agent Skill, reads every file the manifest
// names with bytes that match their digests, and is refused a path out of
// the working directory.
func TestSkillsExtensionTSClient(t *testing.T) {
	sdk := npmPackage(t, "@modelcontextprotocol/sdk")
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"skills/weekly-bookings/SKILL.md": "---\nname: weekly-bookings\ndescription: Lists bookings\nmetadata:\n  owner: ops\n  revision: 2\n---\n\n### Step 1 — List\n- intent: List\n- action: http.get {\"url\": \"https://example.test/\"}\n- effect: read\n",
		"skills/weekly-bookings/notes.md": "Ask ops before changing the hotel.\n",
		"skills/pdf-notes/SKILL.md":       "---\nname: pdf-notes\ndescription: Take notes from PDF files\n---\n\n# PDF notes\n\nRead the file, then summarise it.\n",
	})
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	script, err := filepath.Abs(filepath.Join("testdata", "tsclient", "skills.mjs"))
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.CommandContext(ctx, "node", script, sdk, reelierBin(t), dir).CombinedOutput()
	if err != nil {
		t.Fatalf("node: %v\n%s", err, out)
	}
	var got struct {
		Extensions map[string]any `json:"extensions"`
		Skills     []struct {
			URI         string         `json:"uri"`
			Frontmatter map[string]any `json:"frontmatter"`
			Resources   []struct {
				URI    string `json:"uri"`
				Digest string `json:"digest"`
				Size   int64  `json:"size"`
			} `json:"resources"`
		} `json:"skills"`
		Reads  map[string]string `json:"reads"`
		Get    string            `json:"get"`
		Escape any               `json:"escape"`
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if _, ok := got.Extensions["io.modelcontextprotocol/skills"]; !ok {
		t.Fatalf("extension not declared: %v", got.Extensions)
	}
	uris := map[string]bool{}
	for _, s := range got.Skills {
		uris[s.URI] = true
		for _, r := range s.Resources {
			data, err := base64.StdEncoding.DecodeString(got.Reads[r.URI])
			if err != nil {
				t.Fatalf("%s: %v", r.URI, err)
			}
			rel := strings.TrimPrefix(r.URI, "skill://")
			disk, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(rel)))
			if err != nil {
				t.Fatal(err)
			}
			sum := sha256.Sum256(disk)
			if string(data) != string(disk) || r.Digest != "sha256:"+hex.EncodeToString(sum[:]) || r.Size != int64(len(disk)) {
				t.Errorf("%s: read %d bytes, digest %s size %d; on disk %d bytes sha256:%x", r.URI, len(data), r.Digest, r.Size, len(disk), sum)
			}
		}
	}
	for _, want := range []string{"skill://skills/weekly-bookings/SKILL.md", "skill://skills/pdf-notes/SKILL.md"} {
		if !uris[want] {
			t.Errorf("%s not listed: %v", want, uris)
		}
	}
	for _, s := range got.Skills {
		if s.URI == "skill://skills/weekly-bookings/SKILL.md" {
			md, _ := s.Frontmatter["metadata"].(map[string]any)
			if md["owner"] != "ops" || md["revision"] != float64(2) || len(s.Resources) != 2 {
				t.Errorf("weekly-bookings: frontmatter %v, %d files", s.Frontmatter, len(s.Resources))
			}
		}
	}
	if got.Get == "" || got.Escape != float64(-32602) {
		t.Errorf("get %q, escape answered %v", got.Get, got.Escape)
	}
}
