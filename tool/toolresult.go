package tool

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/reelier/reelier/tool/jsondata"
)

// ToolResult is an MCP tool result (CallToolResult) as Reelier reads it,
// whether it arrives from a server during a replay or from a trace's
// result body when compiling, healing or summarising. Its Observation is
// the one mapping every path uses.
type ToolResult struct {
	// Content is the result's content blocks, in order.
	Content []ContentBlock
	// Structured is the result's structuredContent, as written; nil when
	// absent or null.
	Structured json.RawMessage
	// IsError is set for a tool-level error result.
	IsError bool
}

// ContentBlock is one content block. Only the fields the observation
// describes are kept; image and audio data is counted, never kept.
type ContentBlock struct {
	Type     string
	Text     string
	MimeType string
	// DataLen is the length of an image's or audio's base64 data.
	DataLen int
	// URI names an embedded resource or a resource link.
	URI string
	// ResourceText is an embedded text resource's text.
	ResourceText string
	// Name is a resource link's name.
	Name string
}

// ErrNotToolResult is returned by ParseToolResult for a body that is not
// an MCP tool result: not a JSON object, or one without a content list.
var ErrNotToolResult = errors.New("not an MCP tool result (a JSON object with a content list)")

// ParseToolResult reads a CallToolResult from its JSON text. Only the
// content list is decoded; structuredContent is kept as written.
func ParseToolResult(body []byte) (*ToolResult, error) {
	if !json.Valid(body) {
		return nil, ErrNotToolResult
	}
	return ParseValidToolResult(body)
}

// ParseValidToolResult is ParseToolResult for a body already known to be
// valid JSON, such as a result read from a trace (the trace reader checks
// every line): it does not check it again.
func ParseValidToolResult(body []byte) (*ToolResult, error) {
	body = bytes.TrimSpace(body)
	if len(body) == 0 || body[0] != '{' {
		return nil, ErrNotToolResult
	}
	content, ok := jsondata.RawAt(body, []string{"content"})
	if !ok || content[0] != '[' {
		return nil, ErrNotToolResult
	}
	v, err := jsondata.Parse(string(content))
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrNotToolResult, err)
	}
	list := v.([]any)
	r := &ToolResult{Content: make([]ContentBlock, len(list))}
	for i, e := range list {
		obj, ok := e.(*jsondata.Object)
		if !ok {
			return nil, fmt.Errorf("%w: content block %d is not an object", ErrNotToolResult, i)
		}
		r.Content[i] = blockOf(obj)
	}
	if raw, ok := jsondata.RawAt(body, []string{"structuredContent"}); ok && string(raw) != "null" {
		r.Structured = bytes.Clone(raw)
	}
	if raw, ok := jsondata.RawAt(body, []string{"isError"}); ok && string(raw) == "true" {
		r.IsError = true
	}
	return r, nil
}

// blockOf reads one content block. Binary data is measured, not kept. An
// image block written the way Anthropic's API writes it (a session
// transcript's tool result, `source: {media_type, data}`) is read too.
func blockOf(obj *jsondata.Object) ContentBlock {
	str := func(o *jsondata.Object, key string) string {
		if o == nil {
			return ""
		}
		v, _ := o.Get(key)
		s, _ := v.(string)
		return s
	}
	sub := func(key string) *jsondata.Object {
		v, _ := obj.Get(key)
		o, _ := v.(*jsondata.Object)
		return o
	}
	b := ContentBlock{Type: str(obj, "type"), Text: str(obj, "text"), MimeType: str(obj, "mimeType"),
		URI: str(obj, "uri"), Name: str(obj, "name"), DataLen: len(str(obj, "data"))}
	if src := sub("source"); src != nil {
		if b.MimeType == "" {
			b.MimeType = str(src, "media_type")
		}
		b.DataLen = len(str(src, "data"))
	}
	if res := sub("resource"); res != nil {
		b.URI, b.ResourceText = str(res, "uri"), str(res, "text")
		if b.MimeType == "" {
			b.MimeType = str(res, "mimeType")
		}
		b.DataLen = len(str(res, "blob"))
	}
	return b
}

// Observation maps the result to what asserts and binds see:
//
//   - status is 200, or 500 for an error result;
//   - body is the text of the content blocks joined with "\n": a text
//     block's text as it is, and any other block as a one-line
//     description (`[image image/png, 1204 bytes]`), never its data;
//   - json paths read structuredContent when the result has it, and the
//     text blocks' text parsed as JSON otherwise (JSONText).
func (r *ToolResult) Observation() *Observation {
	status := 200
	if r.IsError {
		status = 500
	}
	obs := &Observation{Status: status, Headers: map[string]string{}, Body: r.Text(), Structured: r.Structured}
	if obs.Structured == nil && r.describes() {
		// json paths read the text blocks only, never the descriptions
		// of the other blocks.
		obs.Structured = []byte(r.JSONText())
	}
	return obs
}

// describes reports whether the body holds a description of a block
// that is not text.
func (r *ToolResult) describes() bool {
	for _, c := range r.Content {
		if c.Type != "text" {
			return true
		}
	}
	return false
}

// JSONText is the text `json.` paths read: the structured content when the
// result has it, the text blocks joined with "\n" otherwise.
func (r *ToolResult) JSONText() string {
	if r.Structured != nil {
		return string(r.Structured)
	}
	var b strings.Builder
	n := 0
	for _, c := range r.Content {
		if c.Type != "text" {
			continue
		}
		if n > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(c.Text)
		n++
	}
	return b.String()
}

// Text is the body the observation shows: text blocks as they are, other
// blocks described on a line of their own.
func (r *ToolResult) Text() string {
	var b strings.Builder
	for i, c := range r.Content {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(c.describe())
	}
	return b.String()
}

// describe renders one block as body text.
func (c ContentBlock) describe() string {
	switch c.Type {
	case "text":
		return c.Text
	case "image", "audio":
		return fmt.Sprintf("[%s %s, %d bytes of base64]", c.Type, orUnknown(c.MimeType), c.DataLen)
	case "resource":
		if c.ResourceText != "" {
			return fmt.Sprintf("[resource %s (%s), %d characters of text]", c.URI, orUnknown(c.MimeType), len(c.ResourceText))
		}
		return fmt.Sprintf("[resource %s (%s), %d bytes of base64]", c.URI, orUnknown(c.MimeType), c.DataLen)
	case "resource_link":
		return fmt.Sprintf("[resource link %s %s]", c.URI, c.Name)
	}
	return fmt.Sprintf("[%s block]", orUnknown(c.Type))
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}

// ObserveToolResult is ParseToolResult followed by Observation.
func ObserveToolResult(body []byte) (*Observation, error) {
	r, err := ParseToolResult(body)
	if err != nil {
		return nil, err
	}
	return r.Observation(), nil
}
