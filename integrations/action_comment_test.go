package integrations_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/reelier/reelier/testkit/testutil"
)

// fakeGitHub is the part of GitHub's REST API the comment step uses, on
// 127.0.0.1: a pull request's issue comments, listed 100 a page with
// Link headers, posted and updated. fail, when set, is the status every
// request is answered with.
type fakeGitHub struct {
	t        *testing.T
	url      string
	mu       sync.Mutex
	comments []fakeComment
	nextID   int64
	fail     int
	requests []string
}

type fakeComment struct {
	ID   int64  `json:"id"`
	Body string `json:"body"`
	URL  string `json:"html_url"`
}

const (
	prNumber = 7
	ghToken  = "ghs_test_token_4242"
)

func newFakeGitHub(t *testing.T) *fakeGitHub {
	g := &fakeGitHub{t: t, nextID: 1000}
	mux := http.NewServeMux()
	list := fmt.Sprintf("/repos/acme/shop/issues/%d/comments", prNumber)
	mux.HandleFunc("GET "+list, func(w http.ResponseWriter, r *http.Request) {
		page, _ := strconv.Atoi(r.URL.Query().Get("page"))
		page = max(page, 1)
		per, _ := strconv.Atoi(r.URL.Query().Get("per_page"))
		if per <= 0 {
			per = 30
		}
		lo, hi := min((page-1)*per, len(g.comments)), min(page*per, len(g.comments))
		if hi < len(g.comments) {
			w.Header().Set("Link", fmt.Sprintf(`<%s%s?per_page=%d&page=%d>; rel="next", <%s%s?per_page=%d&page=%d>; rel="last"`, g.url, list, per, page+1, g.url, list, per, (len(g.comments)+per-1)/per))
		}
		json.NewEncoder(w).Encode(g.comments[lo:hi])
	})
	mux.HandleFunc("POST "+list, func(w http.ResponseWriter, r *http.Request) {
		var in struct{ Body string }
		json.NewDecoder(r.Body).Decode(&in)
		g.nextID++
		c := fakeComment{ID: g.nextID, Body: in.Body, URL: fmt.Sprintf("https://github.com/acme/shop/pull/%d#issuecomment-%d", prNumber, g.nextID)}
		g.comments = append(g.comments, c)
		w.WriteHeader(http.StatusCreated)
		json.NewEncoder(w).Encode(c)
	})
	mux.HandleFunc("PATCH /repos/acme/shop/issues/comments/{id}", func(w http.ResponseWriter, r *http.Request) {
		id, _ := strconv.ParseInt(r.PathValue("id"), 10, 64)
		var in struct{ Body string }
		json.NewDecoder(r.Body).Decode(&in)
		for i := range g.comments {
			if g.comments[i].ID == id {
				g.comments[i].Body = in.Body
				json.NewEncoder(w).Encode(g.comments[i])
				return
			}
		}
		http.Error(w, `{"message":"Not Found"}`, http.StatusNotFound)
	})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		g.mu.Lock()
		defer g.mu.Unlock()
		g.requests = append(g.requests, r.Method+" "+r.URL.Path)
		if r.Header.Get("Authorization") != "Bearer "+ghToken {
			http.Error(w, `{"message":"Bad credentials"}`, http.StatusUnauthorized)
			return
		}
		if g.fail != 0 {
			w.WriteHeader(g.fail)
			fmt.Fprintf(w, `{"message":"Resource not accessible by integration <b>@octocat</b>"}`)
			return
		}
		mux.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	g.url = srv.URL
	// Other people's comments, enough for two pages; one quotes the
	// marker below its first line, and does not count.
	for i := range 130 {
		g.nextID++
		body := fmt.Sprintf("review comment %d", i)
		if i == 60 {
			body = "> earlier:\n<!-- reelier:pr-comment workflow=\"Reelier replay\" job=\"replay\" -->"
		}
		g.comments = append(g.comments, fakeComment{ID: g.nextID, Body: body})
	}
	return g
}

// take returns the requests since the last take.
func (g *fakeGitHub) take() []string {
	g.mu.Lock()
	defer g.mu.Unlock()
	r := g.requests
	g.requests = nil
	return r
}

// ours returns the comments whose first line is the marker.
func (g *fakeGitHub) ours() []fakeComment {
	g.mu.Lock()
	defer g.mu.Unlock()
	var out []fakeComment
	for _, c := range g.comments {
		if strings.HasPrefix(c.Body, "<!-- reelier:pr-comment") {
			out = append(out, c)
		}
	}
	return out
}

// TestActionComment: the pull-request comment, run the way a runner runs
// the Action, against a fake GitHub API on 127.0.0.1. On a pull_request
// event the first run lists the comments (two pages) and POSTs one; the
// second run finds it by its marker on the second page and PATCHes it:
// one comment, never two. The body (golden) has the verdict per skill,
// the failed step at file:line, the open-question count and the run's
// link. An API that answers 403 or 500 gives a warning, the job's exit
// status and summary unchanged. A push event is skipped with a notice and
// comment: "false" sends nothing.
func TestActionComment(t *testing.T) {
	api := fakeAPI(t)
	gh := newFakeGitHub(t)
	files := map[string]string{"skills/booking.skill.md": bookingSkill + "\n## Open questions\n\n- Is bk_2 ever confirmed?\n"}
	event := filepath.Join(t.TempDir(), "event.json")
	os.WriteFile(event, []byte(fmt.Sprintf(`{"action":"synchronize","number":%d,"pull_request":{"number":%d,"head":{"sha":"%s"}}}`, prNumber, prNumber, strings.Repeat("c0ffee", 6)+"beef")), 0o644)
	pr := []string{"GITHUB_EVENT_NAME=pull_request", "GITHUB_EVENT_PATH=" + event, "GITHUB_API_URL=" + gh.url}
	job := func(id string, inputs map[string]string, env ...string) (*runner, int) {
		r := newRunner(t, files)
		r.token = ghToken
		r.env = append(r.env, env...)
		r.inputs = map[string]string{"skills": "skills/booking.skill.md", "vars": "base=" + api + "\nid=" + id}
		for k, v := range inputs {
			r.inputs[k] = v
		}
		code, _ := r.run()
		if strings.Contains(r.log.String(), ghToken) {
			t.Error("the token appeared in the log")
		}
		return r, code
	}

	// First run: a failing replay; the comment is posted.
	r, code := job("bk_2", nil, pr...)
	reqs := gh.take()
	want := []string{"GET /repos/acme/shop/issues/7/comments", "GET /repos/acme/shop/issues/7/comments", "POST /repos/acme/shop/issues/7/comments"}
	if code != 1 || strings.Join(reqs, "|") != strings.Join(want, "|") {
		t.Fatalf("first run: exit %d, requests %q, want exit 1 and %q\n%s", code, reqs, want, r.log.String())
	}
	ours := gh.ours()
	if len(ours) != 1 || !strings.Contains(r.log.String(), "Reelier: posted the pull-request comment https://github.com/acme/shop/pull/7#issuecomment-") {
		t.Fatalf("after the first run: %d comments of ours\n%s", len(ours), r.log.String())
	}
	testutil.Golden(t).Assert(t, "failed", []byte(ours[0].Body))
	if dir := os.Getenv("REELIER_COMMENT_OUT"); dir != "" {
		os.WriteFile(filepath.Join(dir, "pr-comment.md"), []byte(ours[0].Body), 0o644)
	}

	// Second run: the replay passes and is pushed to a ledger; the same
	// comment is updated, and links the skill's page on the ledger.
	l := startLedger(t)
	r, code = job("bk_1", map[string]string{"cloud-url": l.url, "cloud-key": l.key}, pr...)
	reqs = gh.take()
	want = []string{"GET /repos/acme/shop/issues/7/comments", "GET /repos/acme/shop/issues/7/comments", fmt.Sprintf("PATCH /repos/acme/shop/issues/comments/%d", ours[0].ID)}
	if code != 0 || strings.Join(reqs, "|") != strings.Join(want, "|") {
		t.Fatalf("second run: exit %d, requests %q, want exit 0 and %q\n%s", code, reqs, want, r.log.String())
	}
	if again := gh.ours(); len(again) != 1 || again[0].ID != ours[0].ID || !strings.Contains(again[0].Body, "✅ Reelier: 1 of 1 skill(s) passed") ||
		!strings.Contains(r.log.String(), "Reelier: updated the pull-request comment") ||
		!strings.Contains(again[0].Body, "| [booking-status]("+l.url+"/skills/booking-status) |") || !strings.Contains(again[0].Body, "[the receipt ledger]("+l.url+"/)") {
		t.Fatalf("after the second run: %+v\n%s", again, r.log.String())
	}

	// The API refuses: a warning, the verdict's exit status and the
	// summary as they would be without the comment.
	for _, status := range []int{http.StatusForbidden, http.StatusInternalServerError} {
		for _, tc := range []struct {
			id   string
			code int
		}{{"bk_2", 1}, {"bk_1", 0}} {
			gh.fail = status
			r, code := job(tc.id, nil, pr...)
			gh.fail = 0
			log := r.log.String()
			if code != tc.code || !strings.Contains(log, fmt.Sprintf("::warning title=Reelier comment::the pull-request comment was not posted; the verdict, the job summary and the annotations stand: listing the comments: the GitHub API answered %d", status)) {
				t.Errorf("API %d, replay %s: exit %d, want %d\n%s", status, tc.id, code, tc.code, log)
			}
			if status == http.StatusForbidden && !strings.Contains(log, "needs pull-requests: write") {
				t.Errorf("a 403 does not name the permission:\n%s", log)
			}
			if !strings.Contains(r.summary, "Reelier: ") || !strings.Contains(r.summary, "skills/booking.skill.md") {
				t.Errorf("API %d: the job summary was lost:\n%s", status, r.summary)
			}
		}
	}
	gh.take()
	if n := len(gh.ours()); n != 1 {
		t.Errorf("%d comments of ours after the refusals", n)
	}

	// Not a pull request: skipped with a notice. comment: "false": nothing.
	r, code = job("bk_1", nil, "GITHUB_EVENT_NAME=push", "GITHUB_API_URL="+gh.url)
	if code != 0 || !strings.Contains(r.log.String(), "::notice title=Reelier comment::not a pull request event (push): no pull-request comment.") {
		t.Errorf("a push: exit %d\n%s", code, r.log.String())
	}
	r, code = job("bk_1", map[string]string{"comment": "false"}, pr...)
	if code != 0 || !strings.Contains(r.log.String(), "comment is false: no pull-request comment.") {
		t.Errorf("comment false: exit %d\n%s", code, r.log.String())
	}
	if reqs := gh.take(); len(reqs) != 0 {
		t.Errorf("requests without a comment to make: %q", reqs)
	}
}
