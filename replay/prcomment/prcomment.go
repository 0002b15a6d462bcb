// Package prcomment keeps one Reelier comment per workflow job on a
// GitHub pull request: it finds the comment an earlier run posted by its
// hidden marker (the first line of the body) through the REST API's
// paginated list of the pull request's issue comments, and updates it
// (PATCH) or posts a new one (POST). It reads the pull request's number
// from the event file the runner writes (GITHUB_EVENT_PATH).
//
// Every response is read through a bound, pages are followed only on the
// API's own host (the token never goes anywhere else), and a refusal (a
// 403 from a token without pull-requests: write, a 5xx) is an *APIError
// that says what was tried; the caller turns it into a warning.
package prcomment

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/reelier/reelier/internal/termtext"
)

// Bounds on what is read.
const (
	// maxResponse bounds one response body.
	maxResponse = 8 << 20
	// maxPages bounds the pages of comments read (100 a page).
	maxPages = 50
	// maxEvent bounds the event file.
	maxEvent = 16 << 20
	// maxMarkerName bounds each name in the marker.
	maxMarkerName = 100
)

// Marker is the hidden first line of the comment of one workflow job:
// an HTML comment GitHub does not show. Names are reduced to letters,
// digits and " ._/-" (anything else becomes _), so the marker cannot end
// its HTML comment early and reads the same on every run.
func Marker(workflow, job string) string {
	return fmt.Sprintf("<!-- reelier:pr-comment workflow=%q job=%q -->", markerName(workflow), markerName(job))
}

func markerName(s string) string {
	var b strings.Builder
	for _, r := range s {
		if b.Len() >= maxMarkerName {
			break
		}
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune(" ._/-", r) {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	return b.String()
}

// Event is what the comment needs of the event that started the run.
type Event struct {
	// Number is the pull request's number.
	Number int
	// HeadSHA is the commit of the pull request's head.
	HeadSHA string
}

// ReadEvent reads a pull_request (or pull_request_target) event file.
func ReadEvent(path string) (Event, error) {
	f, err := os.Open(path)
	if err != nil {
		return Event{}, err
	}
	defer f.Close()
	var ev struct {
		Number      int `json:"number"`
		PullRequest *struct {
			Number int `json:"number"`
			Head   struct {
				SHA string `json:"sha"`
			} `json:"head"`
		} `json:"pull_request"`
	}
	data, err := io.ReadAll(io.LimitReader(f, maxEvent+1))
	if err != nil {
		return Event{}, err
	}
	if len(data) > maxEvent {
		return Event{}, fmt.Errorf("%s: the event file is over %d bytes", termtext.Line(path), maxEvent)
	}
	if err := json.Unmarshal(data, &ev); err != nil {
		return Event{}, fmt.Errorf("%s: the event file is not JSON: %v", termtext.Line(path), err)
	}
	if ev.PullRequest == nil || ev.PullRequest.Number <= 0 {
		return Event{}, fmt.Errorf("%s: the event names no pull request (no pull_request.number)", termtext.Line(path))
	}
	return Event{Number: ev.PullRequest.Number, HeadSHA: ev.PullRequest.Head.SHA}, nil
}

// Options say where to comment.
type Options struct {
	// APIURL is the REST API's base URL (GITHUB_API_URL).
	APIURL string
	// Repository is owner/name (GITHUB_REPOSITORY).
	Repository string
	// Number is the pull request's number.
	Number int
	// Token authenticates the calls (the job's GITHUB_TOKEN).
	Token string
	// Marker is the comment's first line (Marker); Body must start with it.
	Marker string
	// Body is the comment.
	Body string
	// Client is the HTTP client (http.DefaultClient with a 30 s timeout
	// when nil).
	Client *http.Client
}

// Result says what was done.
type Result struct {
	// Updated is true when an earlier comment was updated, false when a
	// new one was posted.
	Updated bool
	// URL is the comment's page.
	URL string
}

// APIError is an answer of the API that is not a success.
type APIError struct {
	// Op is what was tried ("listing the comments", "updating comment
	// 12", "posting the comment").
	Op string
	// Status is the HTTP status.
	Status int
	// Message is the API's message, when it gave one.
	Message string
}

func (e *APIError) Error() string {
	msg := fmt.Sprintf("%s: the GitHub API answered %d %s", e.Op, e.Status, http.StatusText(e.Status))
	if e.Message != "" {
		msg += " (" + termtext.Line(e.Message) + ")"
	}
	if e.Status == http.StatusForbidden || e.Status == http.StatusUnauthorized || e.Status == http.StatusNotFound {
		msg += "; the job's token needs pull-requests: write (permissions: pull-requests: write in the workflow; reelier ci writes it unless --comment=false)"
	}
	return msg
}

type comment struct {
	ID      int64  `json:"id"`
	Body    string `json:"body"`
	HTMLURL string `json:"html_url"`
}

// Post finds the comment whose first line is the marker and updates it,
// or posts a new one.
func Post(ctx context.Context, o Options) (Result, error) {
	if !strings.HasPrefix(o.Body, o.Marker) || o.Marker == "" {
		return Result{}, errors.New("the body does not start with the marker")
	}
	base, err := url.Parse(strings.TrimRight(o.APIURL, "/"))
	if err != nil || (base.Scheme != "https" && base.Scheme != "http") || base.Host == "" {
		return Result{}, fmt.Errorf("the API URL %q is not an http(s) URL", termtext.Line(o.APIURL))
	}
	owner, name, ok := strings.Cut(o.Repository, "/")
	if !ok || owner == "" || name == "" || strings.Contains(name, "/") {
		return Result{}, fmt.Errorf("the repository %q is not owner/name", termtext.Line(o.Repository))
	}
	if o.Number <= 0 {
		return Result{}, fmt.Errorf("no pull request number")
	}
	if o.Client == nil {
		o.Client = &http.Client{Timeout: 30 * time.Second}
	}
	c := &client{o: o, base: base}
	issue := fmt.Sprintf("%s/repos/%s/%s/issues/%d/comments", base.String(), url.PathEscape(owner), url.PathEscape(name), o.Number)
	found, err := c.find(ctx, issue+"?per_page=100")
	if err != nil {
		return Result{}, err
	}
	payload, _ := json.Marshal(map[string]string{"body": o.Body})
	var out comment
	if found != nil {
		u := fmt.Sprintf("%s/repos/%s/%s/issues/comments/%d", base.String(), url.PathEscape(owner), url.PathEscape(name), found.ID)
		if err := c.do(ctx, http.MethodPatch, u, payload, fmt.Sprintf("updating comment %d", found.ID), &out); err != nil {
			return Result{}, err
		}
		return Result{Updated: true, URL: out.HTMLURL}, nil
	}
	if err := c.do(ctx, http.MethodPost, issue, payload, "posting the comment", &out); err != nil {
		return Result{}, err
	}
	return Result{URL: out.HTMLURL}, nil
}

type client struct {
	o    Options
	base *url.URL
}

// find reads the pages of comments and returns the first whose body
// starts with the marker line.
func (c *client) find(ctx context.Context, u string) (*comment, error) {
	for page := 0; u != "" && page < maxPages; page++ {
		var list []comment
		next, err := c.get(ctx, u, &list)
		if err != nil {
			return nil, err
		}
		for i := range list {
			if first, _, _ := strings.Cut(list[i].Body, "\n"); strings.TrimRight(first, "\r") == c.o.Marker {
				return &list[i], nil
			}
		}
		u = next
	}
	return nil, nil
}

// get reads one page and returns the next page's URL from the Link
// header, kept only when it is on the API's own scheme and host.
func (c *client) get(ctx context.Context, u string, out any) (string, error) {
	resp, err := c.send(ctx, http.MethodGet, u, nil)
	if err != nil {
		return "", fmt.Errorf("listing the comments: %w", err)
	}
	defer resp.Body.Close()
	if err := c.decode(resp, "listing the comments", out); err != nil {
		return "", err
	}
	next := nextLink(resp.Header.Values("Link"))
	if next == "" {
		return "", nil
	}
	p, err := url.Parse(next)
	if err != nil || p.Scheme != c.base.Scheme || p.Host != c.base.Host {
		return "", nil
	}
	return next, nil
}

func (c *client) do(ctx context.Context, method, u string, body []byte, op string, out any) error {
	resp, err := c.send(ctx, method, u, body)
	if err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	defer resp.Body.Close()
	return c.decode(resp, op, out)
}

func (c *client) send(ctx context.Context, method, u string, body []byte) (*http.Response, error) {
	var r io.Reader
	if body != nil {
		r = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, u, r)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/vnd.github+json")
	req.Header.Set("X-GitHub-Api-Version", "2022-11-28")
	req.Header.Set("User-Agent", "reelier")
	if c.o.Token != "" {
		req.Header.Set("Authorization", "Bearer "+c.o.Token)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	return c.o.Client.Do(req)
}

// decode reads a response: a 2xx body into out, anything else as an
// *APIError with the API's message.
func (c *client) decode(resp *http.Response, op string, out any) error {
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxResponse+1))
	if err != nil {
		return fmt.Errorf("%s: reading the answer: %w", op, err)
	}
	if len(data) > maxResponse {
		return fmt.Errorf("%s: the answer is over %d bytes", op, maxResponse)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		var m struct{ Message string }
		json.Unmarshal(data, &m)
		if len(m.Message) > 200 {
			m.Message = m.Message[:200] + "…"
		}
		return &APIError{Op: op, Status: resp.StatusCode, Message: m.Message}
	}
	if err := json.Unmarshal(data, out); err != nil {
		return fmt.Errorf("%s: the answer is not the JSON expected: %v", op, err)
	}
	return nil
}

// nextLink finds rel="next" in Link headers (RFC 8288, as GitHub writes
// them: <url>; rel="next", <url>; rel="last").
func nextLink(values []string) string {
	for _, v := range values {
		for _, part := range strings.Split(v, ",") {
			target, params, ok := strings.Cut(strings.TrimSpace(part), ";")
			if !ok || !strings.HasPrefix(target, "<") || !strings.HasSuffix(target, ">") {
				continue
			}
			for _, p := range strings.Split(params, ";") {
				k, val, _ := strings.Cut(strings.TrimSpace(p), "=")
				if strings.TrimSpace(k) == "rel" && slices.Contains(strings.Fields(strings.Trim(strings.TrimSpace(val), `"`)), "next") {
					return target[1 : len(target)-1]
				}
			}
		}
	}
	return ""
}
