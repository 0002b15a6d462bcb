package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/reelier/reelier/internal/words"
	"github.com/reelier/reelier/redact"
)

// Client sends one prompt to a model. Implementations are safe for
// concurrent use.
type Client interface {
	// Complete asks the model and returns its text. Response.Usage holds
	// whatever usage the provider reported, even when err is not nil (a
	// reply with usage but no usable text).
	Complete(ctx context.Context, req Request) (Response, error)
}

// Request is one prompt.
type Request struct {
	Model string
	// System is the standing instruction; Prompt the one user message.
	System string
	Prompt string
}

// MaxTokens caps every reply: a patch is a few hundred tokens.
const MaxTokens = 1024

// Response is the model's reply.
type Response struct {
	Text  string
	Usage Usage
}

// Usage is what the provider reported one request cost, in tokens.
type Usage struct {
	InputTokens  int64
	OutputTokens int64
}

// maxResponse bounds a response body read into memory.
const maxResponse = 4 << 20

// maxErrorText bounds the provider text quoted in an error.
const maxErrorText = 300

// wire is what both adapters share: the endpoint, the key and the client.
type wire struct {
	endpoint string
	// shown is the endpoint as errors print it (no user info).
	shown string
	key   string
	hc    *http.Client
	// auth sets the authentication and version headers; with no key the
	// chat-completions wire sets none.
	auth func(h http.Header)
}

// post sends body as JSON and returns the body of a successful response.
// Any error is scrubbed of the key.
func (w *wire) post(ctx context.Context, body any) ([]byte, error) {
	data, err := json.Marshal(body)
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, w.endpoint, bytes.NewReader(data))
	if err != nil {
		return nil, w.scrub(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	w.auth(req.Header)
	resp, err := w.hc.Do(req)
	if err != nil {
		return nil, w.scrub(fmt.Errorf("LLM request failed: %w", err))
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, maxResponse+1))
	switch {
	case err != nil:
		return nil, w.scrub(fmt.Errorf("LLM request failed: reading the response from %s: %w", w.shown, err))
	case len(raw) > maxResponse:
		return nil, fmt.Errorf("LLM request failed: the response from %s is larger than %d bytes", w.shown, maxResponse)
	case resp.StatusCode/100 != 2:
		hint := ""
		if w.key == "" && (resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden) {
			hint = " (no API key was sent: set " + EnvAPIKey + " or pass --llm-api-key)"
		}
		return nil, w.scrub(fmt.Errorf("LLM request failed: %s answered HTTP %s: %s%s", w.shown, resp.Status, providerMessage(raw), hint))
	}
	return raw, nil
}

// decode parses a successful response body into v.
func (w *wire) decode(raw []byte, v any) error {
	if err := json.Unmarshal(raw, v); err != nil {
		return w.scrub(fmt.Errorf("LLM request failed: malformed response from %s: %v; body starts %q", w.shown, err, words.Clip(string(raw), 120)))
	}
	return nil
}

// scrub removes the key from an error's text.
func (w *wire) scrub(err error) error {
	if err == nil || w.key == "" || !strings.Contains(err.Error(), w.key) {
		return err
	}
	return errors.New(w.scrubText(err.Error()))
}

// scrubText removes the key from text.
func (w *wire) scrubText(s string) string {
	if w.key == "" {
		return s
	}
	return strings.ReplaceAll(s, w.key, redact.Redacted)
}

// providerMessage extracts the error message both wire formats use
// ({"error": {"type", "message"}}, or {"error": "text"}), else the start of
// the body.
func providerMessage(raw []byte) string {
	var body struct {
		Error json.RawMessage `json:"error"`
	}
	if json.Unmarshal(raw, &body) == nil && len(body.Error) > 0 {
		var text string
		if json.Unmarshal(body.Error, &text) == nil && text != "" {
			return words.Clip(text, maxErrorText)
		}
		var obj struct {
			Type    string `json:"type"`
			Message string `json:"message"`
		}
		if json.Unmarshal(body.Error, &obj) == nil && obj.Message != "" {
			if obj.Type != "" {
				return words.Clip(obj.Type+": "+obj.Message, maxErrorText)
			}
			return words.Clip(obj.Message, maxErrorText)
		}
	}
	if len(bytes.TrimSpace(raw)) == 0 {
		return "(empty body)"
	}
	return words.Clip(strings.Join(strings.Fields(string(raw)), " "), maxErrorText)
}
