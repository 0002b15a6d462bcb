package tool

import "github.com/reelier/reelier/tool/jsondata"

// Observation is what a tool call returned, as asserts and binds see it.
// An MCP tool result becomes one through ToolResult.Observation; an HTTP
// response through package httptool.
type Observation struct {
	// Status is the HTTP status, or the tool's equivalent.
	Status int
	// Headers have lower-case names; repeated headers are joined with ", ".
	Headers map[string]string
	// Body is the response text.
	Body string
	// Structured, when not nil, is the JSON document `json.` paths read
	// instead of the body (an MCP result's structuredContent).
	Structured []byte
	// Resource is the URI of the resource an MCP result names: its first
	// resource_link content block's, else its first embedded resource's;
	// "" when it names none (SPEC.md §14 "Write receipts").
	Resource string

	parsed  bool
	json    any
	jsonErr error
}

// JSON returns the document `json.` paths read: Structured when set, the
// body parsed as JSON otherwise. It is parsed at most once; every assert
// and bind of a step shares the result. An Observation is not safe for
// concurrent use.
func (o *Observation) JSON() (any, error) {
	if !o.parsed {
		if o.Structured != nil {
			o.json, o.jsonErr = jsondata.Parse(string(o.Structured))
		} else {
			o.json, o.jsonErr = jsondata.Parse(o.Body)
		}
		o.parsed = true
	}
	return o.json, o.jsonErr
}
