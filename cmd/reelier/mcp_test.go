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

// TestTraceColour: on a terminal, notes, tools and outcomes are coloured.
func TestTraceColour(t *testing.T) {
	src := `{"t":"meta","seq":0,"name":"n","startedAt":"s","wrapped":[]}
{"t":"note","seq":1,"ts":"s","text":"step"}
{"t":"call","seq":2,"i":0,"ts":"s","tool":"x","args":{}}
{"t":"result","seq":3,"i":0,"ok":false,"ms":1,"body":{"content":[],"isError":true}}
`
	records, problems, err := readTrace(strings.NewReader(src))
	if err != nil || len(problems) > 0 {
		t.Fatal(err, problems)
	}
	results := map[int]lined{0: records[3]}
	var b bytes.Buffer
	if err := printTraceText(&b, records, results, painter(true)); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"\x1b[1;36m## step\x1b[0m", "\x1b[1mx\x1b[0m", "\x1b[31merror\x1b[0m"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("no %q in %q", want, b.String())
		}
	}
}
