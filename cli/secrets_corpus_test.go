package cli

import (
	"bytes"
	"context"
	"encoding/base64"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/reelier/reelier/testkit/testutil"
)

// Corpus secrets, built at run time so no credential literal sits in the
// source.
var (
	corpusHeader   = "hdrKey-" + "Zq81xLmW4vTb7"                // the value of $CORPUS_KEY, sent as X-Api-Key
	corpusRedact   = "envVal-" + "Pw3nRt6YsKd2"                 // the value of a variable REELIER_REDACT names
	corpusSecret   = "secVar-" + "Ju5kQe9HcXa4"                 // a --secret-var value
	corpusPassword = "Hunter2" + "-corpus-" + "Vq7"             // a password in url-encoded text
	corpusAWSID    = "AKIA" + "QX7RZ2M4TY6W8P3K"                // an AWS access key id
	corpusAWSKey   = "wJalr" + "XUtnFEMI/K7MDENG/bPxRfiCY3x9Qz" // its secret, 40 characters
	corpusGitHub   = "ghp_" + strings.Repeat("Cq4z", 9)         // a GitHub token
)

// corpusShape is one way a secret reaches an output: the text the
// skill's step sends (in which the server replaces HDR… with the
// X-Api-Key header it got, encoded as named) and the secret material
// that must not come out.
type corpusShape struct {
	name, text, material string
	// runOnly: a --secret-var value, for a build whose reelier mcp has
	// no --secret-var (REELIER_CORPUS_BIN): a recording is then not held
	// to it.
	runOnly bool
}

func corpusShapes() []corpusShape {
	b64 := base64.StdEncoding.EncodeToString
	return []corpusShape{
		{"header value echoed", "h1 HDR", corpusHeader, false},
		{"header value, percent-encoded", "h2 HDR%", url.QueryEscape(corpusHeader), false},
		{"header value in base64", "h3 HDR64", b64([]byte(corpusHeader)), false},
		{"header value in base64 of user:value", "h4 HDRU64", strings.TrimRight(b64([]byte("user:"+corpusHeader)), "=")[8:], false},
		{"REELIER_REDACT value", "e1 " + corpusRedact, corpusRedact, false},
		{"REELIER_REDACT value, percent-encoded", "e2 q=" + url.QueryEscape("a "+corpusRedact), corpusRedact[7:], false},
		{"secret-var value", "s1 {{secretvar}}", corpusSecret, true},
		{"secret-var value in base64", "s2 " + b64([]byte(corpusSecret)), b64([]byte(corpusSecret))[:12], true},
		{"password after %3D", "p1 body=user%3Dann%26password%3D" + corpusPassword, corpusPassword, false},
		{"base64 of AKIA…:secret", "a1 " + b64([]byte(corpusAWSID+":"+corpusAWSKey)), b64([]byte(corpusAWSID + ":" + corpusAWSKey))[:16], false},
		{"GitHub token", "g1 token " + corpusGitHub, corpusGitHub, false},
		{"Bearer credential", "b1 Authorization: Bearer " + corpusAWSKey[5:25] + "-x9", corpusAWSKey[5:25], false},
	}
}

// corpusServer is a remote MCP server whose echo tool replaces HDR,
// HDR%, HDR64 and HDRU64 in its text with the X-Api-Key header it got:
// as is, percent-encoded, in base64, and as base64 of user:value.
func corpusServer(t *testing.T) *httptest.Server {
	srv := mcp.NewServer(&mcp.Implementation{Name: "corpus", Version: "1"}, nil)
	type in struct {
		Text string `json:"text"`
	}
	mcp.AddTool(srv, &mcp.Tool{Name: "echo", Description: "echo"}, func(_ context.Context, req *mcp.CallToolRequest, args in) (*mcp.CallToolResult, any, error) {
		h := ""
		if req.Extra != nil {
			h = req.Extra.Header.Get("X-Api-Key")
		}
		text := strings.NewReplacer(
			"HDRU64", base64.StdEncoding.EncodeToString([]byte("user:"+h)),
			"HDR64", base64.StdEncoding.EncodeToString([]byte(h)),
			"HDR%", url.QueryEscape(h),
			"HDR", h,
		).Replace(args.Text)
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "remote: " + text}}}, nil, nil
	})
	ts := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil))
	t.Cleanup(ts.Close)
	return ts
}

// TestSecretsCorpus sends each shape of the corpus through a remote
// server that echoes it (the header's value reaches the server only in
// the header) and counts, per output — the trace of a recording, the
// --trace file of a replay, --verbose output, the receipt of the failed
// step, the run record — how many shapes were caught (their secret
// material absent while the echo itself is there). Every shape must be
// caught in every output.
func TestSecretsCorpus(t *testing.T) {
	// REELIER_CORPUS_BIN runs the corpus against another build (main's,
	// which has no --secret-var: the value is then given with --var).
	bin, secretFlag := os.Getenv("REELIER_CORPUS_BIN"), "--secret-var"
	recordSecret := true // reelier mcp --secret-var
	if bin == "" {
		bin = testutil.ReelierBinary(t)
	} else {
		secretFlag, recordSecret = "--var", false
	}
	dir := t.TempDir()
	ts := corpusServer(t)
	shapes := corpusShapes()
	var lines []string
	for _, s := range shapes {
		lines = append(lines, s.text)
	}
	text := strings.Join(lines, "\n")
	env := append(os.Environ(), "HOME="+filepath.Join(dir, "home"), "NO_COLOR=1",
		"CORPUS_KEY="+corpusHeader, "REELIER_REDACT=CORPUS_ENV", "CORPUS_ENV="+corpusRedact,
		"REELIER_CLOUD_URL=", "REELIER_CLOUD_KEY=")
	wrap := []string{"--wrap", ts.URL + "/mcp", "--wrap-header", "X-Api-Key: $CORPUS_KEY"}
	outputs := map[string]string{}

	// A recording: an agent calls echo through reelier mcp.
	{
		args := append([]string{"mcp"}, append(wrap, "--trace-dir", "traces")...)
		if recordSecret {
			args = append(args, "--secret-var", "secretvar="+corpusSecret)
		}
		cmd := exec.Command(bin, args...)
		cmd.Dir, cmd.Env = dir, env
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		session, err := mcp.NewClient(&mcp.Implementation{Name: "corpus-agent", Version: "1"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
		if err != nil {
			t.Fatal(err)
		}
		recText := strings.ReplaceAll(text, "{{secretvar}}", corpusSecret)
		if _, err := session.CallTool(ctx, &mcp.CallToolParams{Name: "reelier_start_recording", Arguments: map[string]any{"name": "corpus"}}); err != nil {
			t.Fatal(err)
		}
		res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": recText}})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := session.CallTool(ctx, &mcp.CallToolParams{Name: "reelier_stop_recording", Arguments: map[string]any{}}); err != nil {
			t.Fatal(err)
		}
		if got := res.Content[0].(*mcp.TextContent).Text; !strings.Contains(got, corpusHeader) {
			t.Errorf("the agent did not get the header's real value back: %s", got)
		}
		session.Close()
		files, _ := filepath.Glob(filepath.Join(dir, "traces", "*.jsonl"))
		var all []string
		for _, f := range files {
			b, _ := os.ReadFile(f)
			all = append(all, string(b))
		}
		outputs["recorded trace"] = strings.Join(all, "\n")
	}

	// A replay whose step fails its check, so the receipt quotes the
	// response.
	skill := "---\nname: corpus\ndescription: echo the corpus\n---\n\n## Steps\n\n### Step 1 — Echo\n- intent: echo every shape\n" +
		"- action: echo {\"text\": " + quoteJSON(text) + "}\n- assert: json.nope == 1\n- effect: read\n"
	if err := os.WriteFile(filepath.Join(dir, "corpus.skill.md"), []byte(skill), 0o644); err != nil {
		t.Fatal(err)
	}
	runReelier := func(args ...string) string {
		cmd := exec.Command(bin, args...)
		cmd.Dir, cmd.Env = dir, env
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		cmd.Run()
		return out.String()
	}
	base := append([]string{"run"}, wrap...)
	base = append(base, secretFlag, "secretvar="+corpusSecret)
	outputs["receipt"] = runReelier(append(base, "corpus.skill.md")...)
	outputs["--verbose"] = runReelier(append(base, "--verbose", "--trace", "replay.jsonl", "corpus.skill.md")...)
	b, _ := os.ReadFile(filepath.Join(dir, "replay.jsonl"))
	outputs["--trace file"] = string(b)
	records, _ := filepath.Glob(filepath.Join(dir, ".reelier", "runs", "*.jsonl"))
	var rec []string
	for _, f := range records {
		b, _ := os.ReadFile(f)
		rec = append(rec, string(b))
	}
	outputs["run record"] = strings.Join(rec, "\n")

	for _, out := range []string{"recorded trace", "--trace file", "--verbose", "receipt", "run record"} {
		got := outputs[out]
		// The echo reached the output: it holds the text around the
		// secrets (the first word of some shape lines).
		if !strings.Contains(got, "h1 ") || !strings.Contains(got, "g1 token") {
			t.Errorf("%s: the echo is not there, nothing to count:\n%s", out, got)
			continue
		}
		caught, total := 0, 0
		for _, s := range shapes {
			if s.runOnly && out == "recorded trace" && !recordSecret {
				continue
			}
			total++
			if strings.Contains(got, s.material) {
				t.Errorf("%s: %s got through: …%s…", out, s.name, excerptAround(got, strings.Index(got, s.material), len(s.material)))
				continue
			}
			caught++
		}
		t.Logf("secrets corpus: %-15s %2d/%d shapes caught", out, caught, total)
	}
}

func quoteJSON(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"', '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case '\n':
			b.WriteString(`\n`)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}
