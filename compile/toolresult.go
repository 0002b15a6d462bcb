package compile

import (
	"bytes"
	"strconv"
	"unicode/utf8"

	"github.com/reelier/reelier/tool"
	"github.com/reelier/reelier/tool/jsondata"
)

// parseToolResult is tool.ParseValidToolResult, reading the common
// result — content blocks of only a type and a text, beside optional
// structuredContent and isError — in one pass over the body, decoding
// nothing but the texts (#20: the runtime's reader walks the body three
// times and builds a tree of the content list). Any other body is left
// to the runtime's reader. body must be valid JSON.
func parseToolResult(body []byte) (*tool.ToolResult, error) {
	if res, ok := quickToolResult(body); ok {
		return res, nil
	}
	return tool.ParseValidToolResult(body)
}

// maxQuickBlocks is the most content blocks quickToolResult reads.
const maxQuickBlocks = 8

// quickToolResult reads a body of the common shape; ok is false for any
// other.
func quickToolResult(body []byte) (res *tool.ToolResult, ok bool) {
	body = bytes.TrimSpace(body)
	if len(body) == 0 || body[0] != '{' {
		return nil, false
	}
	var content, structured, isError []byte
	plain := true
	jsondata.EachMember(body, func(key []byte, esc bool, v []byte) bool {
		if esc || !utf8.Valid(key) {
			plain = false
			return false
		}
		// The last of a repeated key counts, as it does for RawAt.
		switch string(key) {
		case "content":
			content = v
		case "structuredContent":
			structured = v
		case "isError":
			isError = v
		}
		return true
	})
	if !plain || len(content) == 0 || content[0] != '[' {
		return nil, false
	}
	res = &tool.ToolResult{}
	for k := 0; ; k++ {
		el, found := jsondata.RawAt(content, []string{strconv.Itoa(k)})
		if !found {
			break
		}
		if k == maxQuickBlocks {
			// Each block is found from the list's start: a long list is
			// the runtime's to read.
			return nil, false
		}
		block, ok := quickBlock(el)
		if !ok {
			return nil, false
		}
		res.Content = append(res.Content, block)
	}
	if res.Content == nil {
		res.Content = []tool.ContentBlock{}
	}
	if structured != nil && string(structured) != "null" {
		res.Structured = bytes.Clone(structured)
	}
	res.IsError = string(isError) == "true"
	return res, true
}

// quickBlock reads a content block of only a type and a text, both
// strings.
func quickBlock(el []byte) (tool.ContentBlock, bool) {
	var typ, text []byte
	ok := len(el) > 0 && el[0] == '{' && jsondata.EachMember(el, func(key []byte, esc bool, v []byte) bool {
		if esc || len(v) == 0 || v[0] != '"' {
			return false
		}
		switch string(key) {
		case "type":
			typ = v
		case "text":
			text = v
		default:
			return false
		}
		return true
	})
	if !ok {
		return tool.ContentBlock{}, false
	}
	var b tool.ContentBlock
	for _, f := range []struct {
		raw []byte
		dst *string
	}{{typ, &b.Type}, {text, &b.Text}} {
		if f.raw == nil {
			continue
		}
		v, err := jsondata.Parse(string(f.raw))
		s, isStr := v.(string)
		if err != nil || !isStr {
			return tool.ContentBlock{}, false
		}
		*f.dst = s
	}
	return b, true
}
