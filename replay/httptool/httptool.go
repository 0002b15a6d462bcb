package httptool

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/reelier/reelier/lang/ast"
	"github.com/reelier/reelier/tool"
)

// Timeout bounds one HTTP call, connection to last body byte.
const Timeout = 15 * time.Second

// MaxBody is the largest response body a call reads.
const MaxBody = 64 << 20

// Tool is one builtin HTTP tool.
type Tool struct {
	method string
	effect ast.Effect
	client *http.Client
}

// Register adds http.get and http.post to reg. A nil client means one with
// the default transport; each call is bounded by its context, which the
// runtime gives the run's limit (Timeout unless the run or skill sets one).
func Register(reg tool.Registry, client *http.Client) {
	if client == nil {
		client = &http.Client{}
	}
	reg["http.get"] = &Tool{method: http.MethodGet, effect: ast.EffectRead, client: client}
	reg["http.post"] = &Tool{method: http.MethodPost, effect: ast.EffectDestructive, client: client}
}

// Timeout is the tool's own limit, which the runtime applies to each call
// unless the run or the skill sets one (--timeout, reelier-timeout).
func (t *Tool) Timeout() time.Duration { return Timeout }

// Effect implements tool.Tool: GET reads; POST is destructive, since a
// POST is not safe to repeat unless the step's author says so, as the
// compiler and the effect_verb lint also read it (SPEC.md §3 "Effect
// verbs"). A step's own effect, when it declares one, wins.
func (t *Tool) Effect() ast.Effect { return t.effect }

// args are the arguments both tools understand.
type args struct {
	URL     *string           `json:"url"`
	Headers map[string]string `json:"headers"`
	Body    json.RawMessage   `json:"body"`
}

// Call implements tool.Tool.
func (t *Tool) Call(ctx context.Context, raw []byte) (*tool.Observation, error) {
	req, err := t.request(ctx, raw)
	if err != nil {
		return nil, err
	}
	resp, err := t.client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	// A declared length over the limit is refused before the body is
	// read; an undeclared one is read up to the limit and no further.
	if resp.ContentLength > MaxBody {
		return nil, fmt.Errorf("the response from %s is %d bytes, over the %d MiB limit on a response body; it was not read", req.URL.Host, resp.ContentLength, MaxBody>>20)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, MaxBody+1))
	if err != nil {
		return nil, fmt.Errorf("reading the response body: %w", err)
	}
	if len(body) > MaxBody {
		return nil, fmt.Errorf("the response from %s is larger than the %d MiB limit on a response body (%d bytes); it was not read further", req.URL.Host, MaxBody>>20, MaxBody)
	}
	return &tool.Observation{Status: resp.StatusCode, Headers: lowerHeaders(resp.Header), Body: string(body)}, nil
}

// request builds the HTTP request from the tool's JSON arguments.
func (t *Tool) request(ctx context.Context, raw []byte) (*http.Request, error) {
	var a args
	if err := json.Unmarshal(raw, &a); err != nil {
		return nil, fmt.Errorf(`arguments must be an object {"url": string, "headers"?: {name: string}%s}: %v`, t.bodyHint(), err)
	}
	if a.URL == nil {
		return nil, errors.New(`missing required string argument "url"`)
	}
	body, contentType, err := t.body(a.Body)
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, t.method, *a.URL, body)
	if err != nil {
		return nil, err
	}
	for k, v := range a.Headers {
		req.Header.Set(k, v)
	}
	if contentType != "" && req.Header.Get("Content-Type") == "" {
		req.Header.Set("Content-Type", contentType)
	}
	return req, nil
}

func (t *Tool) bodyHint() string {
	if t.method == http.MethodPost {
		return `, "body"?: any`
	}
	return ""
}

// body returns the request body and its default content type.
func (t *Tool) body(raw json.RawMessage) (io.Reader, string, error) {
	if t.method != http.MethodPost || len(raw) == 0 || string(raw) == "null" {
		return nil, "", nil
	}
	if raw[0] == '"' {
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return nil, "", err
		}
		return strings.NewReader(s), "text/plain;charset=UTF-8", nil
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, raw); err != nil {
		return nil, "", err
	}
	return &buf, "application/json", nil
}

// lowerHeaders flattens response headers to lower-case names.
func lowerHeaders(h http.Header) map[string]string {
	out := make(map[string]string, len(h))
	for k, vs := range h {
		out[strings.ToLower(k)] = strings.Join(vs, ", ")
	}
	return out
}
