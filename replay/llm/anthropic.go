package llm

import (
	"context"
	"fmt"
	"net/http"
	"strings"
)

// anthropicVersion is the Messages API version every request names.
const anthropicVersion = "2023-06-01"

// anthropic speaks the Anthropic Messages API: POST <base>/v1/messages.
type anthropic struct{ w *wire }

// NewAnthropic returns the Anthropic Messages adapter for c, whatever the
// host (NewClient picks it for api.anthropic.com). A base URL whose path
// already ends in /v1 is not given a second one. The Messages API always
// authenticates, so an empty key is an error.
func NewAnthropic(c Config) (Client, error) {
	u, err := c.check(true)
	if err != nil {
		return nil, err
	}
	path := "/v1/messages"
	if strings.HasSuffix(strings.TrimRight(u.Path, "/"), "/v1") {
		path = "/messages"
	}
	key := c.APIKey
	ep := endpoint(u, path)
	u.User = nil
	return &anthropic{w: &wire{endpoint: ep, shown: endpoint(u, path), key: key, hc: c.httpClient(), auth: func(h http.Header) {
		h.Set("x-api-key", key)
		h.Set("anthropic-version", anthropicVersion)
	}}}, nil
}

type anthropicRequest struct {
	Model       string             `json:"model"`
	MaxTokens   int                `json:"max_tokens"`
	System      string             `json:"system,omitempty"`
	Messages    []anthropicMessage `json:"messages"`
	Temperature float64            `json:"temperature"`
}

type anthropicMessage struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

type anthropicResponse struct {
	Content []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"content"`
	StopReason string `json:"stop_reason"`
	Usage      struct {
		InputTokens              int64 `json:"input_tokens"`
		OutputTokens             int64 `json:"output_tokens"`
		CacheCreationInputTokens int64 `json:"cache_creation_input_tokens"`
		CacheReadInputTokens     int64 `json:"cache_read_input_tokens"`
	} `json:"usage"`
}

// Complete implements Client. Input tokens include any cache writes and
// reads the provider reports, so the count is what the request consumed.
func (a *anthropic) Complete(ctx context.Context, req Request) (Response, error) {
	raw, err := a.w.post(ctx, anthropicRequest{
		Model: req.Model, MaxTokens: MaxTokens, System: req.System,
		Messages: []anthropicMessage{{Role: "user", Content: req.Prompt}},
	})
	if err != nil {
		return Response{}, err
	}
	var body anthropicResponse
	if err := a.w.decode(raw, &body); err != nil {
		return Response{}, err
	}
	u := body.Usage
	out := Response{Usage: Usage{InputTokens: u.InputTokens + u.CacheCreationInputTokens + u.CacheReadInputTokens, OutputTokens: u.OutputTokens}}
	var text strings.Builder
	for _, c := range body.Content {
		if c.Type == "text" {
			text.WriteString(c.Text)
		}
	}
	out.Text = a.w.scrubText(text.String())
	if strings.TrimSpace(out.Text) == "" {
		return out, fmt.Errorf("LLM request failed: the reply from %s has no text (stop_reason %q)", a.w.shown, body.StopReason)
	}
	return out, nil
}
