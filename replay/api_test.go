package replay_test

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/reelier/reelier/lang/ast"
	"github.com/reelier/reelier/lang/grammar"
	"github.com/reelier/reelier/replay"
	"github.com/reelier/reelier/replay/httptool"
	"github.com/reelier/reelier/tool"
)

// itemsBody is the JSON most tests assert against.
const itemsBody = `{"items":[{"id":"a1","n":3,"tags":["x","y"]},{"id":"b2","n":4,"tags":[]}],` +
	`"count":2,"price":1.50,"name":"Zoë 😀","nothing":null,"flag":true,"status":"pending",` +
	`"nested":{"0":"zero-key","length":7},"big":1e3}`

// api is a fixture HTTP server on 127.0.0.1 that counts its hits.
type api struct {
	*httptest.Server
	mu   sync.Mutex
	hits map[string]int
	// last is the last request to /echo: method, content type, body.
	last [3]string
}

func newAPI(t testing.TB) *api {
	t.Helper()
	a := &api{hits: map[string]int{}}
	mux := http.NewServeMux()
	mux.HandleFunc("/items", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Add("X-Multi", "one")
		w.Header().Add("X-Multi", "two")
		io.WriteString(w, itemsBody)
	})
	mux.HandleFunc("/items/{id}", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, `{"id":%q,"status":"confirmed"}`, r.PathValue("id"))
	})
	mux.HandleFunc("/html", func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "<html><body>Location: /done?id=48213</body></html>")
	})
	mux.HandleFunc("/missing", func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, `{"error":"not found"}`, http.StatusNotFound)
	})
	mux.HandleFunc("/echo", func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		a.mu.Lock()
		a.last = [3]string{r.Method, r.Header.Get("Content-Type"), string(body)}
		a.mu.Unlock()
		fmt.Fprintf(w, `{"method":%q,"auth":%q}`, r.Method, r.Header.Get("Authorization"))
	})
	mux.HandleFunc("/hang", func(w http.ResponseWriter, r *http.Request) {
		<-r.Context().Done() // held until the client gives up
	})
	a.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		a.mu.Lock()
		a.hits[r.URL.Path]++
		a.mu.Unlock()
		mux.ServeHTTP(w, r)
	}))
	t.Cleanup(a.Close)
	return a
}

// hitCount returns how often path was requested.
func (a *api) hitCount(path string) int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.hits[path]
}

// total returns the number of requests the server saw.
func (a *api) total() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	n := 0
	for _, c := range a.hits {
		n += c
	}
	return n
}

// parse parses skill text, failing the test on any diagnostic.
func parse(t testing.TB, src string) *ast.Skill {
	t.Helper()
	s, diags := grammar.Parse("test.skill.md", []byte(src))
	if len(diags) > 0 {
		t.Fatalf("skill does not parse:\n%v\n%s", diags, src)
	}
	return s
}

// step is the text of one step for skill().
type step struct {
	title, action, effect string
	asserts, binds        []string
}

// skill writes a skill named test with the given steps.
func skill(steps ...step) string {
	var b strings.Builder
	b.WriteString("---\nname: test\ndescription: a test skill\n---\n\n## Steps\n")
	for i, s := range steps {
		title := s.title
		if title == "" {
			title = fmt.Sprintf("Step number %d", i+1)
		}
		effect := s.effect
		if effect == "" {
			effect = "read"
		}
		fmt.Fprintf(&b, "\n### Step %d — %s\n- intent: do step %d\n- action: %s\n", i+1, title, i+1, s.action)
		for _, a := range s.asserts {
			fmt.Fprintf(&b, "- assert: %s\n", a)
		}
		for _, bd := range s.binds {
			fmt.Fprintf(&b, "- bind: %s\n", bd)
		}
		fmt.Fprintf(&b, "- effect: %s\n", effect)
	}
	return b.String()
}

// fixedClock is 2026-07-18T14:00:00Z.
func fixedClock() time.Time { return time.Date(2026, 7, 18, 14, 0, 0, 0, time.UTC) }

// options returns run options with the builtin HTTP tools, the fixed clock
// and base bound to the server's URL.
func (a *api) options() replay.Options {
	reg := tool.Registry{}
	httptool.Register(reg, nil)
	return replay.Options{Tools: reg, Vars: map[string]string{"base": a.URL}, Clock: fixedClock, RunID: "golden"}
}

func get(path string) string { return `http.get {"url": "{{base}}` + path + `"}` }
