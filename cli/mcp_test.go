package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestMCPAndTraceExitCodes pins the exit codes the scripts cannot see.
func TestMCPAndTraceExitCodes(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.jsonl")
	bad := filepath.Join(dir, "bad.jsonl")
	meta := `{"t":"meta","seq":0,"name":"n","startedAt":"2026-07-18T14:02:00.000Z","wrapped":[]}` + "\n"
	if err := os.WriteFile(good, []byte(meta), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bad, []byte(meta+"{nope\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		args []string
		want int
	}{
		{[]string{"mcp"}, exitUsage},
		{[]string{"mcp", "--wrap", "reelier-no-such-server"}, exitFailed},
		{[]string{"mcp", "--wrap", "false"}, exitFailed},
		{[]string{"mcp", "--wrap", "reelier-no-such-server", "--call-timeout", "-1s"}, exitUsage},
		{[]string{"mcp", "--wrap", "reelier-no-such-server", "--call-timeout", "soon"}, exitUsage},
		{[]string{"mcp", "--wrap", "reelier-no-such-server", "--max-message", "12XB"}, exitUsage},
		{[]string{"mcp", "--wrap", "reelier-no-such-server", "--max-message", "0"}, exitUsage},
		{[]string{"trace", good}, exitOK},
		{[]string{"trace", bad}, exitUsage},
		{[]string{"trace", filepath.Join(dir, "missing.jsonl")}, exitUsage},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			var out, errw bytes.Buffer
			if got := run(tt.args, strings.NewReader(""), &out, &errw); got != tt.want {
				t.Errorf("exit %d; want %d\nstderr: %s", got, tt.want, errw.String())
			}
		})
	}
}

// TestByteSize: --max-message takes bytes or KiB, MiB and GiB, up to 4 GiB.
func TestByteSize(t *testing.T) {
	for in, want := range map[string]int{"64MiB": 64 << 20, "1048576": 1 << 20, "512 KiB": 512 << 10, "4GiB": 4 << 30, "20MiB": 20 << 20} {
		var b byteSize
		if err := b.Set(in); err != nil || int(b) != want {
			t.Errorf("Set(%q): %d, %v; want %d", in, b, err, want)
		}
		var again byteSize
		if err := again.Set(b.String()); err != nil || again != b {
			t.Errorf("%q prints as %q, which reads as %d, %v", in, b.String(), again, err)
		}
	}
	for _, in := range []string{"", "0", "-1MiB", "1.5MiB", "64MB", "5GiB", "MiB", "64 mib"} {
		var b byteSize
		if err := b.Set(in); err == nil {
			t.Errorf("Set(%q) = %d; want an error", in, b)
		}
	}
}
