package mcpx_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/reelier/reelier/tool"
	"github.com/reelier/reelier/tool/jsondata"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/reelier/reelier/lang/ast"
	"github.com/reelier/reelier/mcpx"
	"github.com/reelier/reelier/testkit/mcptest"
)

func TestMain(m *testing.M) {
	mcptest.ServeIfAsked()
	os.Setenv(mcptest.ServeEnv, "1")
	os.Exit(m.Run())
}

func server(name string) string { return fmt.Sprintf("'%s' -name %s", os.Args[0], name) }

func TestExposedNames(t *testing.T) {
	tests := []struct {
		name      string
		in        [][]string
		reserved  []string
		want      [][]string
		collision []string
	}{
		{"no collision", [][]string{{"a", "b"}, {"c"}}, nil, [][]string{{"a", "b"}, {"c"}}, nil},
		{"later downstream prefixed", [][]string{{"echo", "x"}, {"echo"}, {"echo", "y"}}, nil,
			[][]string{{"echo", "x"}, {"1_echo"}, {"2_echo", "y"}},
			[]string{"[reelier] tool name collision: 'echo' from downstream 1 (d1) exposed as '1_echo'", "[reelier] tool name collision: 'echo' from downstream 2 (d2) exposed as '2_echo'"}},
		{"reserved control names", [][]string{{"reelier_note", "a"}}, mcpx.ControlTools, [][]string{{"0_reelier_note", "a"}},
			[]string{"[reelier] tool name collision: 'reelier_note' from downstream 0 (d0) exposed as '0_reelier_note'"}},
		{"prefixed name taken too", [][]string{{"x", "1_x"}, {"x"}}, nil, [][]string{{"x", "1_x"}, {"1_1_x"}},
			[]string{"[reelier] tool name collision: 'x' from downstream 1 (d1) exposed as '1_1_x'"}},
		{"empty downstream", [][]string{{}, {"a"}}, nil, [][]string{{}, {"a"}}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			labels := []string{"d0", "d1", "d2"}
			got, cs := mcpx.ExposedNames(tt.in, labels, tt.reserved)
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("exposed %v; want %v", got, tt.want)
			}
			var msgs []string
			for _, c := range cs {
				msgs = append(msgs, c.String())
			}
			if !reflect.DeepEqual(msgs, tt.collision) {
				t.Errorf("collisions %q; want %q", msgs, tt.collision)
			}
		})
	}
}

func TestObserve(t *testing.T) {
	tests := []struct {
		name   string
		res    *mcp.CallToolResult
		status int
		body   string
	}{
		{"one JSON text", &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: `{"result":9}`}}}, 200, `{"result":9}`},
		{"error", &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "nope"}}, IsError: true}, 500, "nope"},
		{"texts joined, others described", &mcp.CallToolResult{Content: []mcp.Content{
			&mcp.TextContent{Text: "a"}, &mcp.ImageContent{Data: []byte{1}, MIMEType: "image/png"}, &mcp.TextContent{Text: "b"},
		}}, 200, "a\n[image image/png, 4 bytes of base64]\nb"},
		{"no content", &mcp.CallToolResult{}, 200, ""},
		{"structured content is what json paths read", &mcp.CallToolResult{
			Content:           []mcp.Content{&mcp.TextContent{Text: "it is 36 degrees"}},
			StructuredContent: map[string]any{"temperature": 36},
		}, 200, "it is 36 degrees"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := mcpx.Observe(tt.res)
			if o.Status != tt.status || o.Body != tt.body || o.Headers == nil || len(o.Headers) != 0 {
				t.Errorf("got %d %q %v", o.Status, o.Body, o.Headers)
			}
			if tt.res.StructuredContent != nil {
				v, err := o.JSON()
				if err != nil || jsondata.String(v) != `{"temperature":36}` {
					t.Errorf("json paths read %v (%v); want the structured content", v, err)
				}
			}
		})
	}
}

// TestRouter starts two colliding downstreams and checks the table, the
// registry it fills and calls through it, failures included.
func TestRouter(t *testing.T) {
	var stderr strings.Builder
	r, err := mcpx.Start(context.Background(), []string{server("a"), server("b")}, mcpx.Options{Stderr: &stderr})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if len(r.Collisions()) != 9 || strings.Count(stderr.String(), "tool name collision") != 9 {
		t.Errorf("collisions %v\n%s", r.Collisions(), stderr.String())
	}
	if fmt.Sprint(r.Names()) != fmt.Sprint([]string{server("a"), server("b")}) {
		t.Errorf("names %v", r.Names())
	}
	route, ok := r.Route("1_add")
	if !ok || route.Tool.Name != "add" || route.Downstream.Index != 1 || !strings.Contains(string(route.Raw), `"name":"1_add"`) {
		t.Fatalf("1_add: %+v", route)
	}
	reg := tool.Registry{}
	r.Register(reg, nil)
	// The Go SDK sends idempotentHint: false with every annotation, so
	// create_item (destructiveHint: false) is not safe to repeat.
	effects := map[string]ast.Effect{"get_item": ast.EffectRead, "create_item": ast.EffectDestructive, "delete_item": ast.EffectDestructive, "echo": ast.EffectDestructive, "1_add": ast.EffectRead}
	for name, want := range effects {
		if got := reg[name].Effect(); got != want {
			t.Errorf("%s effect %s; want %s", name, got, want)
		}
	}
	obs, err := reg["1_echo"].Call(context.Background(), []byte(`{"text":"hi"}`))
	if err != nil || obs.Body != "b: hi" || obs.Status != 200 {
		t.Errorf("1_echo: %+v %v", obs, err)
	}
	obs, err = reg["fail"].Call(context.Background(), []byte(`{}`))
	if err != nil || obs.Status != 500 {
		t.Errorf("fail: %+v %v", obs, err)
	}
	res, raw, err := r.Call(context.Background(), "add", json.RawMessage(`{"a":1,"b":2}`), nil)
	if err != nil || res.IsError || string(raw) != `{"content":[{"type":"text","text":"{\"sum\":3}"}],"structuredContent":{"sum":3}}` {
		t.Errorf("add: %s %v", raw, err)
	}
	if _, _, err := r.Call(context.Background(), "nope", nil, nil); err == nil || err.Error() != `unknown tool "nope"` {
		t.Errorf("unknown tool: %v", err)
	}
	_, _, err = r.Call(context.Background(), "1_crash", nil, nil)
	var de *mcpx.DownstreamError
	if !errors.As(err, &de) || de.Index != 1 || !strings.Contains(err.Error(), "downstream 1 ("+server("b")+") failed") {
		t.Errorf("crash: %v", err)
	}
	if _, err := reg["echo"].Call(context.Background(), []byte(`{"text":"still"}`)); err != nil {
		t.Errorf("downstream 0 after downstream 1 crashed: %v", err)
	}
}

func TestRegisterKeepsBuiltins(t *testing.T) {
	r, err := mcpx.Start(context.Background(), []string{server("a")}, mcpx.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	builtin := stub{}
	reg := tool.Registry{"echo": builtin}
	var warn strings.Builder
	r.Register(reg, &warn)
	if _, ok := reg["echo"].(stub); !ok {
		t.Error("the builtin was replaced")
	}
	if !strings.Contains(warn.String(), `tool "echo" from downstream 0`) {
		t.Errorf("warning: %q", warn.String())
	}
	if reg["get_item"] == nil {
		t.Error("MCP tools not registered")
	}
}

type stub struct{}

func (stub) Effect() ast.Effect { return ast.EffectRead }
func (stub) Call(context.Context, []byte) (*tool.Observation, error) {
	return &tool.Observation{}, nil
}

// TestServerStderr starts servers that each write two stderr lines: every
// line reaches Stderr prefixed with the server's name (a given name, else
// the command's label, numbered when two share it); Quiet drops them but
// keeps Reelier's own warnings.
func TestServerStderr(t *testing.T) {
	say := func(name string) string { return server(name) + ` -say "starting up" -say 'ready on stdio'` }
	label := mcpx.ServerLabel(server("a"))
	tests := []struct {
		name  string
		wrap  []string
		opts  mcpx.Options
		want  []string
		never []string
	}{
		// Two servers write at once, so their lines may interleave: each
		// wanted line is checked on its own.
		{name: "label from the command", wrap: []string{say("a")},
			want: []string{"[" + label + "] starting up\n[" + label + "] ready on stdio\n"}},
		{name: "given names", wrap: []string{say("a"), say("b")}, opts: mcpx.Options{Names: []string{"alpha", "beta"}},
			want: []string{"[alpha] starting up\n", "[alpha] ready on stdio\n", "[beta] starting up\n", "[beta] ready on stdio\n"}},
		{name: "a shared label is numbered", wrap: []string{say("a"), say("b")},
			want: []string{"[" + label + "#0] starting up\n", "[" + label + "#0] ready on stdio\n", "[" + label + "#1] starting up\n"}},
		{name: "quiet", wrap: []string{say("a"), say("b")}, opts: mcpx.Options{Quiet: true},
			want: []string{"tool name collision"}, never: []string{"] starting up\n", "] ready on stdio\n"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stderr strings.Builder
			tt.opts.Stderr = &stderr
			r, err := mcpx.Start(context.Background(), tt.wrap, tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			r.Close() // the servers' stderr is read to its end by then
			got := stderr.String()
			for _, w := range tt.want {
				if !strings.Contains(got, w) {
					t.Errorf("stderr lacks %q:\n%s", w, got)
				}
			}
			for _, n := range tt.never {
				if strings.Contains(got, n) {
					t.Errorf("stderr has %q:\n%s", n, got)
				}
			}
			for _, line := range strings.SplitAfter(got, "\n") {
				if line != "" && !strings.HasPrefix(line, "[") {
					t.Errorf("an unprefixed or broken line %q in:\n%s", line, got)
				}
			}
		})
	}
}
