package prcomment

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
)

// TestMarker: names are reduced to a safe alphabet, so the marker cannot
// end its HTML comment or break its quotes, and is bounded.
func TestMarker(t *testing.T) {
	tests := []struct{ workflow, job, want string }{
		{"Reelier replay", "replay", `<!-- reelier:pr-comment workflow="Reelier replay" job="replay" -->`},
		{`x" --> <b>`, "a\nb", `<!-- reelier:pr-comment workflow="x_ --_ _b_" job="a_b" -->`},
		{strings.Repeat("w", 300), "", `<!-- reelier:pr-comment workflow="` + strings.Repeat("w", 100) + `" job="" -->`},
	}
	for _, tt := range tests {
		if got := Marker(tt.workflow, tt.job); got != tt.want {
			t.Errorf("Marker(%q, %q) = %q, want %q", tt.workflow, tt.job, got, tt.want)
		}
	}
}

// TestReadEvent: a pull_request event's number and head; anything else is
// a clear error.
func TestReadEvent(t *testing.T) {
	dir := t.TempDir()
	write := func(name, s string) string {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(s), 0o644)
		return p
	}
	ev, err := ReadEvent(write("pr.json", `{"number": 5, "pull_request": {"number": 5, "head": {"sha": "abc"}}}`))
	if err != nil || ev.Number != 5 || ev.HeadSHA != "abc" {
		t.Errorf("a pull request: %+v %v", ev, err)
	}
	for _, tc := range []struct{ name, body, want string }{
		{"push.json", `{"ref": "refs/heads/main"}`, "the event names no pull request"},
		{"bad.json", `{"pull_request": `, "the event file is not JSON"},
		{"zero.json", `{"pull_request": {"number": 0}}`, "the event names no pull request"},
	} {
		if _, err := ReadEvent(write(tc.name, tc.body)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
	if _, err := ReadEvent(filepath.Join(dir, "missing.json")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a missing file: %v", err)
	}
}

// TestNextLink: GitHub's Link header, its next page.
func TestNextLink(t *testing.T) {
	tests := []struct {
		values []string
		want   string
	}{
		{[]string{`<https://api.github.com/x?page=2>; rel="next", <https://api.github.com/x?page=5>; rel="last"`}, "https://api.github.com/x?page=2"},
		{[]string{`<https://api.github.com/x?page=1>; rel="prev"`, `<https://api.github.com/x?page=3>; rel="next"`}, "https://api.github.com/x?page=3"},
		{[]string{`<https://a/x>; rel="prev next"`}, "https://a/x"},
		{[]string{`https://a/x; rel="next"`}, ""},
		{[]string{`<https://a/x>; rel="last"`}, ""},
		{nil, ""},
	}
	for _, tt := range tests {
		if got := nextLink(tt.values); got != tt.want {
			t.Errorf("nextLink(%q) = %q, want %q", tt.values, got, tt.want)
		}
	}
}

// TestPostPagesStayOnTheAPI: a next page on another host is not
// followed, so the token never leaves the API's host; the comment is
// then posted.
func TestPostPagesStayOnTheAPI(t *testing.T) {
	var elsewhere atomic.Int32
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		elsewhere.Add(1)
		w.Write([]byte(`[]`))
	}))
	defer other.Close()
	var posted atomic.Int32
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.Method {
		case http.MethodGet:
			w.Header().Set("Link", fmt.Sprintf(`<%s/repos/a/b/issues/1/comments?page=2>; rel="next"`, other.URL))
			w.Write([]byte(`[{"id": 1, "body": "hello"}]`))
		case http.MethodPost:
			posted.Add(1)
			json.NewEncoder(w).Encode(map[string]any{"id": 2, "html_url": "https://github.com/a/b/pull/1#issuecomment-2"})
		}
	}))
	defer api.Close()
	m := Marker("w", "j")
	res, err := Post(context.Background(), Options{APIURL: api.URL, Repository: "a/b", Number: 1, Token: "t", Marker: m, Body: m + "\nbody"})
	if err != nil || res.Updated || posted.Load() != 1 || elsewhere.Load() != 0 {
		t.Errorf("res %+v err %v posted %d requests elsewhere %d", res, err, posted.Load(), elsewhere.Load())
	}
}

// TestPostErrors: what the API refuses is an *APIError naming the
// status and, for 403, the permission; bad options are refused before
// any request.
func TestPostErrors(t *testing.T) {
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusForbidden)
		w.Write([]byte(`{"message": "Resource not accessible by integration"}`))
	}))
	defer api.Close()
	m := Marker("w", "j")
	_, err := Post(context.Background(), Options{APIURL: api.URL, Repository: "a/b", Number: 1, Token: "t", Marker: m, Body: m})
	var ae *APIError
	if !errors.As(err, &ae) || ae.Status != 403 || !strings.Contains(err.Error(), "listing the comments: the GitHub API answered 403 Forbidden (Resource not accessible by integration); the job's token needs pull-requests: write") {
		t.Errorf("403: %v", err)
	}
	for _, o := range []Options{
		{APIURL: "ftp://x", Repository: "a/b", Number: 1, Marker: m, Body: m},
		{APIURL: api.URL, Repository: "ab", Number: 1, Marker: m, Body: m},
		{APIURL: api.URL, Repository: "a/b", Number: 0, Marker: m, Body: m},
		{APIURL: api.URL, Repository: "a/b", Number: 1, Marker: m, Body: "no marker"},
	} {
		if _, err := Post(context.Background(), o); err == nil || errors.As(err, &ae) {
			t.Errorf("%+v: %v, want an error before any request", o, err)
		}
	}
}

// FuzzNextLink: any Link header is read without a panic, and a next
// link found is what stood between < and >.
func FuzzNextLink(f *testing.F) {
	f.Add(`<https://api.github.com/x?page=2>; rel="next", <https://api.github.com/x?page=5>; rel="last"`)
	f.Add(`<>; rel=next`)
	f.Add(`<a>;;; rel="next"`)
	f.Fuzz(func(t *testing.T, v string) {
		if got := nextLink([]string{v}); got != "" && !strings.Contains(v, "<"+got+">") {
			t.Errorf("nextLink(%q) = %q", v, got)
		}
	})
}

// FuzzReadEvent: any event file is read without a panic; a number is
// positive.
func FuzzReadEvent(f *testing.F) {
	f.Add(`{"number": 5, "pull_request": {"number": 5, "head": {"sha": "abc"}}}`)
	f.Add(`{"pull_request": null}`)
	f.Add(`[]`)
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, s string) {
		p := filepath.Join(dir, "event.json")
		os.WriteFile(p, []byte(s), 0o644)
		if ev, err := ReadEvent(p); err == nil && ev.Number <= 0 {
			t.Errorf("%q: number %d", s, ev.Number)
		}
	})
}
