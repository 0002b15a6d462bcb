package llm

import (
	"context"
	"fmt"
	"net/http"
	"strings"
)

// openAI speaks OpenAI-compatible chat completions: POST
// <base>/chat/completions, the base URL carrying any version path
// (https://openrouter.ai/api/v1, http://127.0.0.1:11434/v1).
type openAI struct{ w *wire }

// NewOpenAI returns the chat-completions adapter for c, whatever the host
// (NewClient picks it for every host but api.anthropic.com). The key is
// sent as "Authorization: Bearer <key>"; with no key no Authorization
// header is sent at all, which is what a local server (Ollama, vLLM,
// llama.cpp) expects.
func NewOpenAI(c Config) (Client, error) {
	u, err := c.check(false)
	if err != nil {
		return nil, err
	}
	key := c.APIKey
	ep := endpoint(u, "/chat/completions")
	u.User = nil
	return &openAI{w: &wire{endpoint: ep, shown: endpoint(u, "/chat/completions"), key: key, hc: c.httpClient(), auth: func(h http.Header) {
		if key != "" {
			h.Set("Authorization", "Bearer "+key)
		}
	}}}, nil
}

type chatRequest struct {
	Model       string        `json:"model"`
	Messages    []chatMessage `json:"messages"`
	MaxTokens   int           `json:"max_tokens"`
	Temperature float64       `json:"temperature"`
}

type chatMessage struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

type chatResponse struct {
	Choices []struct {
		Message struct {
			Content *string `json:"content"`
		} `json:"message"`
		FinishReason string `json:"finish_reason"`
	} `json:"choices"`
	Usage struct {
		PromptTokens     int64 `json:"prompt_tokens"`
		CompletionTokens int64 `json:"completion_tokens"`
	} `json:"usage"`
}

// Complete implements Client.
func (o *openAI) Complete(ctx context.Context, req Request) (Response, error) {
	msgs := make([]chatMessage, 0, 2)
	if req.System != "" {
		msgs = append(msgs, chatMessage{Role: "system", Content: req.System})
	}
	msgs = append(msgs, chatMessage{Role: "user", Content: req.Prompt})
	raw, err := o.w.post(ctx, chatRequest{Model: req.Model, Messages: msgs, MaxTokens: MaxTokens})
	if err != nil {
		return Response{}, err
	}
	var body chatResponse
	if err := o.w.decode(raw, &body); err != nil {
		return Response{}, err
	}
	out := Response{Usage: Usage{InputTokens: body.Usage.PromptTokens, OutputTokens: body.Usage.CompletionTokens}}
	if len(body.Choices) == 0 {
		return out, fmt.Errorf("LLM request failed: the reply from %s has no choices", o.w.shown)
	}
	c := body.Choices[0]
	if c.Message.Content != nil {
		out.Text = o.w.scrubText(*c.Message.Content)
	}
	if strings.TrimSpace(out.Text) == "" {
		return out, fmt.Errorf("LLM request failed: the reply from %s has no text (finish_reason %q)", o.w.shown, c.FinishReason)
	}
	return out, nil
}
