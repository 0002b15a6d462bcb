package demo

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/reelier/reelier/trace"
)

// serveEnv makes this test binary serve the demo registry on stdio, so
// Record can start it as a child process the way reelier init does.
const serveEnv = "REELIER_DEMO_SERVE"

func TestMain(m *testing.M) {
	if os.Getenv(serveEnv) != "" {
		if err := Serve(context.Background(), os.Stdin, os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Setenv(serveEnv, "1")
	os.Exit(m.Run())
}

func TestServer(t *testing.T) {
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	go NewServer().Run(ctx, st)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	tests := []struct {
		tool    string
		args    map[string]any
		isError bool
		want    string
	}{
		{LookupTool, map[string]any{"name": Package}, false, `"latest_release":"` + ReleaseID + `"`},
		{LookupTool, map[string]any{"name": "left-pad"}, true, `no package "left-pad"`},
		{ReleaseTool, map[string]any{"release_id": ReleaseID}, false, `"version":"1.4.0"`},
		{ReleaseTool, map[string]any{"release_id": "rel_nope"}, true, `no release "rel_nope"`},
	}
	for _, tt := range tests {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tt.tool, Arguments: tt.args})
		if err != nil {
			t.Fatal(err)
		}
		if text := resultText(res); res.IsError != tt.isError || !strings.Contains(text, tt.want) {
			t.Errorf("%s %v: %q (isError %v)", tt.tool, tt.args, text, res.IsError)
		}
	}
	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range tools.Tools {
		if tool.Annotations == nil || !tool.Annotations.ReadOnlyHint {
			t.Errorf("%s is not declared read-only", tool.Name)
		}
	}
}

// TestRecord records the demo through the real recorder and checks the
// trace record by record: meta first with the server's annotations, a
// note before each call, and the second call sending the release id the
// first returned.
func TestRecord(t *testing.T) {
	dir := t.TempDir()
	path, err := Record(context.Background(), RecordOptions{Server: fmt.Sprintf("'%s'", os.Args[0]), TraceDir: dir, Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	if path != filepath.Join(dir, TraceName+"-1.jsonl") {
		t.Errorf("trace %s", path)
	}
	tr, err := trace.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if tr.Meta.Name != TraceName || tr.Meta.Observed != trace.ObservedProxy || len(tr.Meta.ToolAnnotations) != 2 {
		t.Errorf("meta %+v", tr.Meta)
	}
	var kinds []string
	for _, r := range tr.Records {
		kinds = append(kinds, string(r.Kind()))
	}
	if got := strings.Join(kinds, " "); got != "meta note call result note call result" {
		t.Errorf("records %s", got)
	}
	second := tr.Records[5].(*trace.Call)
	var args map[string]string
	json.Unmarshal(second.Args, &args)
	if second.Tool != ReleaseTool || args["release_id"] != ReleaseID {
		t.Errorf("second call %s %s", second.Tool, second.Args)
	}
	if again, err := Record(context.Background(), RecordOptions{Server: fmt.Sprintf("'%s'", os.Args[0]), TraceDir: dir}); err != nil || again != filepath.Join(dir, TraceName+"-2.jsonl") {
		t.Errorf("a second recording: %s, %v", again, err)
	}
}

func TestRecordFailure(t *testing.T) {
	if _, err := Record(context.Background(), RecordOptions{Server: "no-such-demo-server", TraceDir: t.TempDir()}); err == nil {
		t.Error("a server that does not start recorded something")
	}
}
