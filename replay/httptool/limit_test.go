package httptool

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
)

// TestHugeBody: a 1 GiB answer to http.get — chunked, or with its
// Content-Length — fails the call with an error naming the host and the
// limit; with the length declared, nothing of the body is read.
func TestHugeBody(t *testing.T) {
	const size = 1 << 30
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("length") == "1" {
			w.Header().Set("Content-Length", strconv.Itoa(size))
		}
		chunk := bytes.Repeat([]byte("A"), 64<<10)
		for left := size; left > 0; left -= len(chunk) {
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
	}))
	defer srv.Close()
	host := strings.TrimPrefix(srv.URL, "http://")
	for _, q := range []string{"", "?length=1"} {
		_, err := tools()["http.get"].Call(context.Background(), []byte(`{"url": "`+srv.URL+"/"+q+`"}`))
		if err == nil || !strings.Contains(err.Error(), host) || !strings.Contains(err.Error(), "64 MiB limit") {
			t.Errorf("GET /%s: %v; want the host and the limit named", q, err)
		}
	}
}
