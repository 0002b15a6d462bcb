package main

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
