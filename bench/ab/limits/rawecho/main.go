// Command rawecho is the limit-style MCP server of the A/B harness's proxy
// workload (bench/ab): newline-delimited JSON-RPC on stdio with the
// least work that answers initialize, tools/list and a tools/call of its
// one tool, echo (its text back), so that what a measurement through it
// shows is the cost of what stands between it and the client. Responses
// are buffered while more requests are waiting, and written together.
package main

import (
	"bufio"
	"encoding/json"
	"os"
)

// request is the part of a message rawecho reads.
type request struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params struct {
		ProtocolVersion string `json:"protocolVersion"`
		Arguments       struct {
			Text string `json:"text"`
		} `json:"arguments"`
	} `json:"params"`
}

const tools = `{"tools":[{"name":"echo","description":"Echo the text back.","inputSchema":{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}}]}`

func main() {
	in := bufio.NewReaderSize(os.Stdin, 64<<10)
	out := bufio.NewWriterSize(os.Stdout, 64<<10)
	var req request
	for {
		line, err := in.ReadSlice('\n')
		if len(line) > 0 {
			req = request{}
			if json.Unmarshal(line, &req) == nil && req.ID != nil && req.Method != "" {
				answer(out, &req)
			}
		}
		if err != nil && err != bufio.ErrBufferFull {
			out.Flush()
			return
		}
		if in.Buffered() == 0 {
			out.Flush()
		}
	}
}

func answer(out *bufio.Writer, req *request) {
	out.WriteString(`{"jsonrpc":"2.0","id":`)
	out.Write(req.ID)
	switch req.Method {
	case "initialize":
		v := req.Params.ProtocolVersion
		if v == "" || v > "2025-11-25" {
			v = "2025-11-25"
		}
		out.WriteString(`,"result":{"protocolVersion":"` + v + `","capabilities":{"tools":{}},"serverInfo":{"name":"rawecho","version":"1"}}}` + "\n")
	case "tools/list":
		out.WriteString(`,"result":` + tools + "}\n")
	case "tools/call":
		text, _ := json.Marshal(req.Params.Arguments.Text)
		out.WriteString(`,"result":{"content":[{"type":"text","text":`)
		out.Write(text)
		out.WriteString("}]}}\n")
	case "ping":
		out.WriteString(`,"result":{}}` + "\n")
	default:
		out.WriteString(`,"error":{"code":-32601,"message":"method not found"}}` + "\n")
	}
}
