package runtime

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// ToolResult is an MCP tool result (CallToolResult) as Reelier reads it,
// whether it arrives from a server during a replay or from a trace's
// result body when compiling, healing or summarising. Its Observation is
// the one mapping every path uses.
type ToolResult struct {
	// Content is the result's content blocks, in order.
	Content []ContentBlock `json:"content"`
	// Structured is the result's structuredContent, as written; nil when
	// absent or null.
	Structured json.RawMessage `json:"structuredContent,omitempty"`
	// IsError is set for a tool-level error result.
	IsError bool `json:"isError,omitempty"`
}

// ContentBlock is one content block. Only the fields the observation
// describes are kept; image and audio data is counted, never kept.
type ContentBlock struct {
	Type     string `json:"type"`
	Text     string `json:"text,omitempty"`
	MimeType string `json:"mimeType,omitempty"`
	// DataLen is the length of an image's or audio's base64 data.
	DataLen int
	// URI names an embedded resource or a resource link.
	URI string
	// ResourceText is an embedded text resource's text.
	ResourceText string
	// Name is a resource link's name.
	Name string
}

// UnmarshalJSON reads a block without keeping binary data.
func (b *ContentBlock) UnmarshalJSON(data []byte) error {
	var raw struct {
		Type     string `json:"type"`
		Text     string `json:"text"`
		MimeType string `json:"mimeType"`
		Data     json.RawMessage
		URI      string `json:"uri"`
		Name     string `json:"name"`
		// An image block written the way Anthropic's API writes it
		// (a session transcript's tool result).
		Source *struct {
			MediaType string          `json:"media_type"`
			Data      json.RawMessage `json:"data"`
		} `json:"source"`
		Resource *struct {
			URI      string `json:"uri"`
			MimeType string `json:"mimeType"`
			Text     string `json:"text"`
			Blob     json.RawMessage
		} `json:"resource"`
	}
	if err := json.Unmarshal(data, &raw); err != nil {
		return err
	}
	*b = ContentBlock{Type: raw.Type, Text: raw.Text, MimeType: raw.MimeType, URI: raw.URI, Name: raw.Name}
	if len(raw.Data) >= 2 {
		b.DataLen = len(raw.Data) - 2
	}
	if src := raw.Source; src != nil {
		if b.MimeType == "" {
			b.MimeType = src.MediaType
		}
		if len(src.Data) >= 2 {
			b.DataLen = len(src.Data) - 2
		}
	}
	if r := raw.Resource; r != nil {
		b.URI, b.ResourceText = r.URI, r.Text
		if b.MimeType == "" {
			b.MimeType = r.MimeType
		}
		if len(r.Blob) >= 2 {
			b.DataLen = len(r.Blob) - 2
		}
	}
	return nil
}

// ErrNotToolResult is returned by ParseToolResult for a body that is not
// an MCP tool result: not a JSON object, or one without a content list.
var ErrNotToolResult = errors.New("not an MCP tool result (a JSON object with a content list)")

// ParseToolResult reads a CallToolResult from its JSON text.
func ParseToolResult(body []byte) (*ToolResult, error) {
	body = bytes.TrimSpace(body)
	if len(body) == 0 || body[0] != '{' {
		return nil, ErrNotToolResult
	}
	var probe struct {
		Content json.RawMessage `json:"content"`
	}
	if err := json.Unmarshal(body, &probe); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrNotToolResult, err)
	}
	if len(probe.Content) == 0 || probe.Content[0] != '[' {
		return nil, ErrNotToolResult
	}
	var r ToolResult
	if err := json.Unmarshal(body, &r); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrNotToolResult, err)
	}
	if bytes.Equal(bytes.TrimSpace(r.Structured), []byte("null")) {
		r.Structured = nil
	}
	return &r, nil
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
