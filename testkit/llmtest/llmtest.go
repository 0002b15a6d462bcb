// Package llmtest is a fake LLM provider on 127.0.0.1 for tests. It speaks
// both wire formats the escalation ladder uses, the Anthropic Messages API
// (POST …/v1/messages) and OpenAI-compatible chat completions (POST
// …/chat/completions), checks the shape of every request, and answers with
// scripted replies in each format's real response shape, usage included.
//
// A reply is chosen per request: the first unused reply whose Match text
// occurs in the prompt (an empty Match matches any prompt). A request with
// no reply left gets HTTP 500, a malformed one HTTP 400 naming its problems.
package llmtest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
)

// The two wire formats, as Request.Wire names them.
const (
	Anthropic = "anthropic"
	OpenAI    = "openai"
)

// Reply is one scripted answer.
type Reply struct {
	// Match, when set, limits the reply to prompts containing it.
	Match string `json:"match,omitempty"`
	// Text is the model's reply, wrapped in the wire format's response.
	Text string `json:"text,omitempty"`
	// InputTokens and OutputTokens are the usage the response reports.
	InputTokens  int64 `json:"in,omitempty"`
	OutputTokens int64 `json:"out,omitempty"`
	// Status, when not 0 or 200, answers with that HTTP status and the
	// wire format's error body carrying Text as the message.
	Status int `json:"status,omitempty"`
	// Raw, when set, is sent as the whole body instead (malformed JSON),
	// with Status when that is set.
	Raw string `json:"raw,omitempty"`
	// Hang holds the request until the client gives up (a timeout).
	Hang bool `json:"hang,omitempty"`
	// EchoKey replaces every "$KEY" in Text with the API key the request
	// carried, as a hostile or careless provider might.
	EchoKey bool `json:"echoKey,omitempty"`
}

// Request is what the server saw of one request.
type Request struct {
	Wire   string
	Path   string
	Model  string
	System string
	Prompt string
	// Key is the credential the request carried ("" when a
	// chat-completions request carried none).
	Key string
	// Problems are the ways the request's shape was wrong; none is a
	// well-formed request.
	Problems []string
}

// Server is the fake provider.
type Server struct {
	*httptest.Server

	mu       sync.Mutex
	replies  []Reply
	used     []bool
	requests []Request
	// barrier holds every reply until this many requests have arrived.
	barrier int
	arrived chan struct{}
	log     io.Writer
}

// Options configure a Server.
type Options struct {
	// Barrier, when above 1, holds every reply until that many requests
	// have arrived, so concurrent clients are all mid-request at once.
	Barrier int
	// Log, when set, gets one line per request: "<wire> <path> model=<m>".
	Log io.Writer
}

// New starts a server with the scripted replies; Close stops it.
func New(replies []Reply, opts Options) *Server {
	s := &Server{replies: replies, used: make([]bool, len(replies)), barrier: opts.Barrier,
		arrived: make(chan struct{}), log: opts.Log}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	return s
}

// Requests returns what the server has seen so far.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// Problems returns every shape problem of every request so far.
func (s *Server) Problems() []string {
	var out []string
	for i, r := range s.Requests() {
		for _, p := range r.Problems {
			out = append(out, fmt.Sprintf("request %d (%s): %s", i+1, r.Wire, p))
		}
	}
	return out
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	req := Request{Path: r.URL.Path}
	switch {
	case strings.HasSuffix(r.URL.Path, "/v1/messages"):
		req.Wire = Anthropic
	case strings.HasSuffix(r.URL.Path, "/chat/completions"):
		req.Wire = OpenAI
	default:
		http.Error(w, `{"error":{"type":"not_found_error","message":"no such endpoint"}}`, http.StatusNotFound)
		return
	}
	if r.Method != http.MethodPost {
		req.Problems = append(req.Problems, "method "+r.Method+", want POST")
	}
	if ct := r.Header.Get("Content-Type"); ct != "application/json" {
		req.Problems = append(req.Problems, fmt.Sprintf("Content-Type %q, want application/json", ct))
	}
	body, _ := io.ReadAll(r.Body)
	if req.Wire == Anthropic {
		checkAnthropic(&req, r.Header, body)
	} else {
		checkOpenAI(&req, r.Header, body)
	}
	reply, ok := s.record(req)
	if s.log != nil {
		fmt.Fprintf(s.log, "%s %s model=%s\n", req.Wire, req.Path, req.Model)
	}
	s.wait(r)
	switch {
	case len(req.Problems) > 0:
		writeError(w, req.Wire, http.StatusBadRequest, "llmtest: malformed request: "+strings.Join(req.Problems, "; "))
	case !ok:
		writeError(w, req.Wire, http.StatusInternalServerError, "llmtest: no scripted reply left for this prompt")
	case reply.Hang:
		<-r.Context().Done()
	case reply.Raw != "":
		w.Header().Set("Content-Type", "application/json")
		if reply.Status != 0 {
			w.WriteHeader(reply.Status)
		}
		io.WriteString(w, reply.Raw)
	case reply.Status != 0 && reply.Status != http.StatusOK:
		writeError(w, req.Wire, reply.Status, reply.Text)
	default:
		text := reply.Text
		if reply.EchoKey {
			text = strings.ReplaceAll(text, "$KEY", req.Key)
		}
		writeReply(w, req.Wire, req.Model, text, reply)
	}
}

// record notes the request and claims its reply.
func (s *Server) record(req Request) (Reply, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.requests = append(s.requests, req)
	if len(s.requests) == s.barrier {
		close(s.arrived)
	}
	for i, rp := range s.replies {
		if len(req.Problems) == 0 && !s.used[i] && strings.Contains(req.Prompt, rp.Match) {
			s.used[i] = true
			return rp, true
		}
	}
	return Reply{}, false
}

// wait holds a request at the barrier.
func (s *Server) wait(r *http.Request) {
	if s.barrier < 2 {
		return
	}
	select {
	case <-s.arrived:
	case <-r.Context().Done():
	}
}

func checkAnthropic(req *Request, h http.Header, body []byte) {
	req.Key = h.Get("x-api-key")
	if req.Key == "" {
		req.Problems = append(req.Problems, "no x-api-key header")
	}
	if v := h.Get("anthropic-version"); v != "2023-06-01" {
		req.Problems = append(req.Problems, fmt.Sprintf("anthropic-version %q", v))
	}
	if h.Get("Authorization") != "" {
		req.Problems = append(req.Problems, "an Authorization header on the Anthropic wire")
	}
	var b struct {
		Model     string `json:"model"`
		MaxTokens int    `json:"max_tokens"`
		System    string `json:"system"`
		Messages  []struct {
			Role    string `json:"role"`
			Content string `json:"content"`
		} `json:"messages"`
	}
	if err := strictDecode(body, &b, "model", "max_tokens", "system", "messages", "temperature"); err != nil {
		req.Problems = append(req.Problems, err.Error())
		return
	}
	req.Model, req.System = b.Model, b.System
	switch {
	case b.Model == "":
		req.Problems = append(req.Problems, "no model")
	case b.MaxTokens <= 0:
		req.Problems = append(req.Problems, "max_tokens missing or not positive")
	case b.System == "":
		req.Problems = append(req.Problems, "no top-level system prompt")
	case len(b.Messages) != 1 || b.Messages[0].Role != "user" || b.Messages[0].Content == "":
		req.Problems = append(req.Problems, "messages must be one non-empty user message")
	default:
		req.Prompt = b.Messages[0].Content
	}
}

func checkOpenAI(req *Request, h http.Header, body []byte) {
	// A key is optional on this wire (a local server needs none), but one
	// that is sent must be a non-empty bearer token.
	if auth, sent := h["Authorization"]; sent {
		req.Key = strings.TrimPrefix(h.Get("Authorization"), "Bearer ")
		if len(auth) != 1 || !strings.HasPrefix(auth[0], "Bearer ") || req.Key == "" {
			req.Problems = append(req.Problems, fmt.Sprintf("Authorization %q, want one \"Bearer <key>\" or none", auth))
		}
	}
	if h.Get("x-api-key") != "" {
		req.Problems = append(req.Problems, "an x-api-key header on the chat-completions wire")
	}
	var b struct {
		Model     string `json:"model"`
		MaxTokens int    `json:"max_tokens"`
		Messages  []struct {
			Role    string `json:"role"`
			Content string `json:"content"`
		} `json:"messages"`
	}
	if err := strictDecode(body, &b, "model", "max_tokens", "messages", "temperature"); err != nil {
		req.Problems = append(req.Problems, err.Error())
		return
	}
	req.Model = b.Model
	switch {
	case b.Model == "":
		req.Problems = append(req.Problems, "no model")
	case b.MaxTokens <= 0:
		req.Problems = append(req.Problems, "max_tokens missing or not positive")
	case len(b.Messages) != 2 || b.Messages[0].Role != "system" || b.Messages[1].Role != "user" ||
		b.Messages[0].Content == "" || b.Messages[1].Content == "":
		req.Problems = append(req.Problems, "messages must be a system message then a user message")
	default:
		req.System, req.Prompt = b.Messages[0].Content, b.Messages[1].Content
	}
}

// strictDecode decodes body into v and reports top-level keys outside the
// allowed set.
func strictDecode(body []byte, v any, allowed ...string) error {
	var keys map[string]json.RawMessage
	if err := json.Unmarshal(body, &keys); err != nil {
		return fmt.Errorf("body is not a JSON object: %v", err)
	}
	for k := range keys {
		if !slices.Contains(allowed, k) {
			return fmt.Errorf("unexpected field %q", k)
		}
	}
	return json.Unmarshal(body, v)
}

// writeReply answers in the wire format's success shape.
func writeReply(w http.ResponseWriter, wire, model, text string, r Reply) {
	var body any
	if wire == Anthropic {
		body = map[string]any{
			"id": "msg_fake01", "type": "message", "role": "assistant", "model": model,
			"content":     []map[string]any{{"type": "text", "text": text}},
			"stop_reason": "end_turn", "stop_sequence": nil,
			"usage": map[string]any{"input_tokens": r.InputTokens, "output_tokens": r.OutputTokens,
				"cache_creation_input_tokens": 0, "cache_read_input_tokens": 0},
		}
	} else {
		body = map[string]any{
			"id": "chatcmpl-fake01", "object": "chat.completion", "created": 1784383200, "model": model,
			"choices": []map[string]any{{"index": 0, "finish_reason": "stop",
				"message": map[string]any{"role": "assistant", "content": text}}},
			"usage": map[string]any{"prompt_tokens": r.InputTokens, "completion_tokens": r.OutputTokens,
				"total_tokens": r.InputTokens + r.OutputTokens},
		}
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(body)
}

// writeError answers in the wire format's error shape.
func writeError(w http.ResponseWriter, wire string, status int, msg string) {
	var body any
	if wire == Anthropic {
		kind := "api_error"
		if status == http.StatusTooManyRequests {
			kind = "rate_limit_error"
		}
		body = map[string]any{"type": "error", "error": map[string]any{"type": kind, "message": msg}}
	} else {
		body = map[string]any{"error": map[string]any{"message": msg, "type": "server_error", "code": nil}}
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(body)
}
