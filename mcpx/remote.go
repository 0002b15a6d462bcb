package mcpx

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/reelier/reelier/redact"
)

// Remote downstreams. A --wrap value that starts with http:// or https://
// is not a command but the address of an MCP server reached over the
// streamable HTTP transport (the SDK's StreamableClientTransport). When
// the server refuses the streamable transport's first POST the way a
// server of the older HTTP+SSE transport does (400, 404 or 405), the
// start is tried again with the SDK's SSEClientTransport, as the MCP
// specification's backwards-compatibility section describes.
//
// Each remote server may be given request headers (Options.Headers), whose
// values are written with $VAR or ${VAR} references to the environment
// and expanded only when the requests are made: a token stays out of
// argv, out of the trace and out of the compiled skill. The server is
// named everywhere (errors, warnings, the trace) by its URL with the
// credentials in it blanked (RedactURL).

// IsURL reports whether a --wrap value is the URL of a remote server
// rather than a command.
func IsURL(wrap string) bool {
	s := strings.TrimSpace(wrap)
	return len(s) >= 7 && strings.EqualFold(s[:7], "http://") || len(s) >= 8 && strings.EqualFold(s[:8], "https://")
}

// Header is one request header for a remote server, its value as written:
// $VAR and ${VAR} are references to environment variables, $$ is a
// dollar sign.
type Header struct {
	Name  string
	Value string
}

// String returns the header as written, "Name: Value".
func (h Header) String() string { return h.Name + ": " + h.Value }

// reservedHeaders are set by the MCP transport itself.
var reservedHeaders = map[string]bool{
	"Accept": true, "Content-Type": true, "Content-Length": true, "Host": true,
	"Mcp-Session-Id": true, "Mcp-Protocol-Version": true, "Last-Event-Id": true,
	"Connection": true, "Transfer-Encoding": true,
}

// ParseHeader reads a header written "NAME: VALUE". The name must be an
// HTTP field name and not one the transport sets itself; the value is
// trimmed, may be empty, and may hold $VAR references (checked, not
// expanded: see Expand).
func ParseHeader(s string) (Header, error) {
	name, value, ok := strings.Cut(s, ":")
	if !ok {
		return Header{}, fmt.Errorf("want 'NAME: VALUE' (such as 'Authorization: Bearer $TOKEN'), with a colon after the name")
	}
	name = strings.TrimSpace(name)
	if name == "" {
		return Header{}, fmt.Errorf("the header name before the colon is empty")
	}
	for i := 0; i < len(name); i++ {
		if !isTokenChar(name[i]) {
			return Header{}, fmt.Errorf("%q is not a header name: use letters, digits and - (such as X-Api-Key)", name)
		}
	}
	canon := http.CanonicalHeaderKey(name)
	if reservedHeaders[canon] {
		return Header{}, fmt.Errorf("%s is set by the MCP transport and cannot be given", canon)
	}
	value = strings.TrimSpace(value)
	for i := 0; i < len(value); i++ {
		if c := value[i]; c < ' ' && c != '\t' || c == 0x7f {
			return Header{}, fmt.Errorf("the value of %s holds a control character", name)
		}
	}
	h := Header{Name: name, Value: value}
	if _, err := h.expand(func(string) (string, bool) { return "x", true }); err != nil {
		return Header{}, err
	}
	return h, nil
}

// isTokenChar reports whether c may appear in an HTTP field name (RFC 9110
// token).
func isTokenChar(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0
}

// Vars returns the names of the environment variables the value refers
// to, in order, each once.
func (h Header) Vars() []string {
	var names []string
	seen := map[string]bool{}
	h.expand(func(name string) (string, bool) {
		if !seen[name] {
			seen[name] = true
			names = append(names, name)
		}
		return "", true
	})
	return names
}

// Expand returns the value with its variable references replaced from
// lookup (os.LookupEnv when nil). A variable that is unset or empty is an
// error naming it: a request sent with an empty token would only fail
// later, less clearly.
func (h Header) Expand(lookup func(string) (string, bool)) (string, error) {
	if lookup == nil {
		lookup = os.LookupEnv
	}
	return h.expand(lookup)
}

func (h Header) expand(lookup func(string) (string, bool)) (string, error) {
	var b strings.Builder
	s := h.Value
	for i := 0; i < len(s); i++ {
		if s[i] != '$' || i+1 == len(s) {
			b.WriteByte(s[i])
			continue
		}
		var name string
		switch c := s[i+1]; {
		case c == '$':
			b.WriteByte('$')
			i++
			continue
		case c == '{':
			end := strings.IndexByte(s[i+2:], '}')
			if end < 0 {
				return "", fmt.Errorf("the value of %s has ${ without a closing }", h.Name)
			}
			name = s[i+2 : i+2+end]
			if !isVarName(name) {
				return "", fmt.Errorf("the value of %s refers to ${%s}, which is not a variable name (letters, digits and _, not starting with a digit)", h.Name, name)
			}
			i += 2 + end
		case isVarStart(c):
			j := i + 1
			for j < len(s) && (isVarStart(s[j]) || s[j] >= '0' && s[j] <= '9') {
				j++
			}
			name = s[i+1 : j]
			i = j - 1
		default:
			b.WriteByte('$') // a dollar sign that starts no reference
			continue
		}
		v, ok := lookup(name)
		if !ok || v == "" {
			what := "unset"
			if ok {
				what = "empty"
			}
			return "", &UnsetVarError{Header: h.Name, Var: name, What: what}
		}
		b.WriteString(v)
	}
	return b.String(), nil
}

// UnsetVarError is a header whose value refers to an environment variable
// that is unset or empty.
type UnsetVarError struct {
	Header, Var string
	// What is "unset" or "empty".
	What string
}

func (e *UnsetVarError) Error() string {
	return fmt.Sprintf("header %s refers to $%s, which is %s: export %s before starting reelier", e.Header, e.Var, e.What, e.Var)
}

func isVarStart(c byte) bool { return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

func isVarName(s string) bool {
	if s == "" || !isVarStart(s[0]) {
		return false
	}
	for i := 1; i < len(s); i++ {
		if !isVarStart(s[i]) && !(s[i] >= '0' && s[i] <= '9') {
			return false
		}
	}
	return true
}

// ParseURL checks a remote server's --wrap URL: http or https, with a
// host, and no blanks. Its errors name the URL redacted.
func ParseURL(raw string) (*url.URL, error) {
	raw = strings.TrimSpace(raw)
	u, err := url.Parse(raw)
	switch {
	case err != nil:
		return nil, fmt.Errorf("--wrap %s: not a URL: %v", RedactURL(nil, raw), unwrapURLError(err))
	case u.Scheme != "http" && u.Scheme != "https" || !IsURL(raw):
		return nil, fmt.Errorf("--wrap %s: a remote server's URL starts with http:// or https://", RedactURL(nil, raw))
	case u.Host == "" || u.Hostname() == "":
		return nil, fmt.Errorf("--wrap %s: the URL has no host", RedactURL(nil, raw))
	case strings.ContainsAny(raw, " \t"):
		return nil, fmt.Errorf("--wrap %s: a URL cannot hold blanks (write them as %%20)", RedactURL(nil, raw))
	}
	return u, nil
}

func unwrapURLError(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}

// RedactURL returns a remote server's URL as Reelier shows and records
// it: the userinfo (user:password@) is blanked whole, and so is the value
// of every query parameter whose name names a secret (token, key,
// api_key, access_token, sig…) or whose value the redactor recognises;
// what is left goes through the redactor as text too. r nil is the
// redactor the environment configures. A string that is not a URL is
// redacted as text.
func RedactURL(r *redact.Redactor, raw string) string {
	if r == nil {
		r = redact.RedactorFromEnv()
	}
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil || u.Host == "" && u.User == nil {
		return r.String("", raw)
	}
	var b strings.Builder
	b.WriteString(u.Scheme)
	b.WriteString("://")
	if u.User != nil {
		b.WriteString(redact.Redacted)
		b.WriteByte('@')
	}
	b.WriteString(u.Host)
	b.WriteString(u.EscapedPath())
	if u.RawQuery != "" || u.ForceQuery {
		b.WriteByte('?')
		for k, pair := range strings.Split(u.RawQuery, "&") {
			if k > 0 {
				b.WriteByte('&')
			}
			name, value, hasValue := strings.Cut(pair, "=")
			dn, err1 := url.QueryUnescape(name)
			dv, err2 := url.QueryUnescape(value)
			if err1 != nil || err2 != nil {
				dn, dv = name, value
			}
			b.WriteString(name)
			if !hasValue {
				continue
			}
			b.WriteByte('=')
			if dv != "" && (redact.IsSecretKey(dn) || r.String(dn, dv) != dv) {
				b.WriteString(redact.Redacted)
			} else {
				b.WriteString(value)
			}
		}
	}
	if u.Fragment != "" {
		b.WriteByte('#')
		b.WriteString(u.EscapedFragment())
	}
	return r.String("", b.String())
}

// urlLabel is the short name of a remote server for the lines printed
// about it: its host and port.
func urlLabel(raw string) string {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil || u.Host == "" {
		return "remote"
	}
	return u.Host
}

// SkillHeader returns a header as a skill (and the trace it is compiled
// from) keeps it, so that a replay can send it again without the file
// holding its value: the value as written when it refers to at least one
// environment variable and the rest of it is not a secret (as in
// "Authorization: Bearer $TOKEN"); otherwise a reference to a variable
// named after the header ("X-Api-Key: $X_API_KEY"), for the user to set.
func SkillHeader(r *redact.Redactor, h Header) string {
	if r == nil {
		r = redact.RedactorFromEnv()
	}
	if len(h.Vars()) > 0 {
		// The literal parts, each variable reference standing in for a
		// harmless placeholder, must not look like a secret.
		probe := Header{Name: h.Name, Value: h.Value}
		lit, err := probe.expand(func(string) (string, bool) { return "VAR", true })
		if err == nil && !looksSecret(r, h.Name, lit) {
			return h.String()
		}
	}
	return h.Name + ": $" + headerVar(h.Name)
}

// looksSecret reports whether the literal parts of a header value would
// be blanked by the redactor. The scheme word of an Authorization value
// ("Bearer VAR") is not a secret.
func looksSecret(r *redact.Redactor, name, lit string) bool {
	if scheme, rest, ok := strings.Cut(lit, " "); ok && (strings.EqualFold(scheme, "Bearer") || strings.EqualFold(scheme, "Basic") || strings.EqualFold(scheme, "Token")) {
		lit = rest
	}
	if lit == "VAR" {
		return false
	}
	return r.String(name, lit) != lit || r.String("", name+": "+lit) != name+": "+lit
}

// headerVar is the environment variable a header without one is written
// with: its name in upper case, '-' as '_' ("X-Api-Key" is X_API_KEY).
func headerVar(name string) string {
	var b strings.Builder
	for i := 0; i < len(name); i++ {
		c := name[i]
		switch {
		case c >= 'a' && c <= 'z':
			b.WriteByte(c - 'a' + 'A')
		case c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
			b.WriteByte(c)
		default:
			b.WriteByte('_')
		}
	}
	s := b.String()
	if s == "" || s[0] >= '0' && s[0] <= '9' {
		s = "H_" + s
	}
	return s
}

// remote is what a remote downstream keeps besides the session.
type remote struct {
	url     string // as given, credentials included: only for requests
	headers []Header
	rt      *headerTransport
	legacy  bool // connected with the HTTP+SSE transport
}

// Headers returns the request headers given for a remote downstream, as
// written (values unexpanded); nil for a command.
func (d *Downstream) Headers() []Header {
	if d.remote == nil {
		return nil
	}
	return d.remote.headers
}

// Remote reports whether the downstream is a remote server.
func (d *Downstream) Remote() bool { return d.remote != nil }

// startRemote connects to a remote server and completes the MCP handshake
// and the listing of its tools, within the start timeout.
func startRemote(ctx context.Context, index int, raw string, headers []Header, opts Options) (*Downstream, error) {
	d, err := startRemoteAt(ctx, index, raw, headers, opts, downstreamProtocol)
	var refused *refusedHandshake
	if errors.As(err, &refused) {
		// A server that speaks only 2026-07-28 and later: connect again,
		// and let the SDK open the session with server/discover.
		d, err = startRemoteAt(ctx, index, raw, headers, opts, modernProtocol)
		if err != nil {
			return nil, fmt.Errorf("%w (it refused the %s handshake first: %v)", err, downstreamProtocol, refused.err)
		}
		d.notef(retryModern, downstreamProtocol, refused.err, d.Revision())
	}
	return d, err
}

// startRemoteAt is startRemote on the given protocol revision; a refused
// initialize is returned as a refusedHandshake.
func startRemoteAt(ctx context.Context, index int, raw string, headers []Header, opts Options, version string) (*Downstream, error) {
	red := opts.Redactor
	if red == nil {
		red = redact.RedactorFromEnv()
	}
	name := RedactURL(red, raw)
	u, err := ParseURL(raw)
	if err != nil {
		return nil, err
	}
	values := http.Header{}
	for _, h := range headers {
		v, err := h.Expand(nil)
		if err != nil {
			return nil, fmt.Errorf("--wrap %s: %v", name, err)
		}
		values.Add(h.Name, v)
		// A value from the environment is the user's secret: every
		// redactor of the process blanks it, whatever the header is
		// called and wherever the server echoes it.
		for _, name := range h.Vars() {
			if val, ok := os.LookupEnv(name); ok {
				redact.RegisterSecret(name, val)
			}
		}
	}
	rt := &headerTransport{base: newHTTPTransport(), header: values, red: red, max: opts.maxMessage(), name: name}
	httpClient := &http.Client{Transport: rt, CheckRedirect: rt.refuseRedirect}
	// The streamable connection is tapped at the HTTP layer (httpTap),
	// not wrapped, so the SDK still opens its standalone GET stream.
	tap := newTap()
	tappedClient := &http.Client{Transport: &httpTap{base: rt, tap: tap, max: opts.maxMessage()}, CheckRedirect: rt.refuseRedirect}
	d := &Downstream{Index: index, Name: name, exited: make(chan struct{}), callTimeout: opts.CallTimeout,
		limits: map[string]*time.Timer{},
		remote: &remote{url: strings.TrimSpace(raw), headers: headers, rt: rt}}
	if len(headers) > 0 && unencrypted(u) {
		d.notef("its headers are sent unencrypted: the URL is http://, not https://, and not a loopback address")
	}
	tap.seen = d.seen
	client := d.newClient(opts)
	limit := opts.startTimeout()
	hctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	stopNotice := opts.waitNotice("--wrap " + name)
	defer stopNotice()
	session, err := client.Connect(hctx, &mcp.StreamableClientTransport{Endpoint: d.remote.url, HTTPClient: tappedClient, MaxEventSize: opts.maxMessage() + sseSlack, MaxRetries: 2},
		&mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil && hctx.Err() == nil {
		if r := refusal(version, err); r != err {
			rt.base.(*http.Transport).CloseIdleConnections()
			return nil, &refusedHandshake{d.hideURL(err)}
		}
	}
	if err != nil && hctx.Err() == nil && legacyStatus(rt.firstStatus()) {
		// An HTTP+SSE server answers the streamable transport's POST
		// with 400, 404 or 405: try its GET stream.
		first := err
		seen := rt.save()
		tt := &tapTransport{inner: &detached{&mcp.SSEClientTransport{Endpoint: d.remote.url, HTTPClient: httpClient, MaxEventSize: opts.maxMessage() + sseSlack}}, seen: d.seen}
		session, err = client.Connect(hctx, tt, &mcp.ClientSessionOptions{ProtocolVersion: version})
		tap = tt.conn
		if err != nil {
			err = first // the streamable transport's failure says more
			rt.restore(seen)
		} else {
			d.remote.legacy = true
			d.notef("connected with the older HTTP+SSE transport (the server refused streamable HTTP)")
		}
	}
	if err == nil {
		d.session, d.tap = session, tap
		err = d.list(hctx)
	}
	if err != nil {
		timedOut := hctx.Err() != nil
		stopNotice()
		if session != nil {
			session.Close()
		}
		rt.base.(*http.Transport).CloseIdleConnections()
		msg := remoteFailure(rt, red, timedOut, limit, d.hideURL(err))
		if timedOut {
			msg += opts.boundedBy()
		}
		return nil, fmt.Errorf("--wrap %s: %s", name, msg)
	}
	return d, nil
}

// unencrypted reports whether requests to u cross a network in plain
// text: http:// to a host other than localhost or a loopback address.
func unencrypted(u *url.URL) bool {
	if u.Scheme != "http" {
		return false
	}
	host := u.Hostname()
	if strings.EqualFold(host, "localhost") {
		return false
	}
	ip := net.ParseIP(host)
	return ip == nil || !ip.IsLoopback()
}

// newHTTPTransport is the transport of one remote server: the default
// one's settings, with bounds on the stages before a response starts.
func newHTTPTransport() *http.Transport {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.TLSHandshakeTimeout = 15 * time.Second
	return t
}

// legacyStatus reports whether the first POST's status is one an
// HTTP+SSE server answers it with.
func legacyStatus(status int) bool {
	return status == http.StatusBadRequest || status == http.StatusNotFound || status == http.StatusMethodNotAllowed
}

// remoteFailure explains why a remote server could not be started.
func remoteFailure(rt *headerTransport, red *redact.Redactor, timedOut bool, limit time.Duration, err error) string {
	var opErr *net.OpError
	resp := rt.firstBad()
	switch {
	case rt.redirected() != nil:
		return rt.redirected().Error()
	case resp != nil && resp.status == http.StatusUnauthorized || resp != nil && resp.status == http.StatusForbidden:
		return fmt.Sprintf("the server refused the request: HTTP %d %s; check the credentials given with --wrap-header", resp.status, http.StatusText(resp.status))
	case resp != nil && resp.html:
		return fmt.Sprintf("the server answered HTTP %d with an HTML page, not MCP: is this the server's MCP endpoint (often …/mcp)?", resp.status)
	case resp != nil && resp.status >= 300:
		return fmt.Sprintf("the server answered HTTP %d %s, not MCP: is this the server's MCP endpoint (often …/mcp)?", resp.status, http.StatusText(resp.status))
	case resp != nil && resp.contentType != "":
		return fmt.Sprintf("the server answered with %s, not MCP (application/json or text/event-stream): is this the server's MCP endpoint (often …/mcp)?", resp.contentType)
	case timedOut:
		return fmt.Sprintf("the server did not finish the MCP handshake within %v (the start timeout)", limit)
	case errors.As(err, &opErr) && opErr.Op == "dial":
		return fmt.Sprintf("could not connect: %v", opErr.Err)
	case strings.Contains(err.Error(), "dial tcp "):
		// The SDK keeps the text of the dial error, not the error.
		text := err.Error()
		return "could not connect: " + text[strings.Index(text, "dial tcp "):]
	}
	return "the MCP handshake failed: " + red.String("", err.Error())
}

// redirectError is a remote server's answer that redirects: Reelier does
// not follow it (the headers would go to another address), and says
// where it points.
type redirectError struct {
	status   int
	location string // redacted
}

func (e *redirectError) Error() string {
	return fmt.Sprintf("the server redirects (HTTP %d) to %s; Reelier does not follow redirects: give that URL to --wrap if you trust it", e.status, e.location)
}

// refuseRedirect is the HTTP client's CheckRedirect: it refuses every
// redirect and keeps the first, to explain a failed start.
func (t *headerTransport) refuseRedirect(req *http.Request, via []*http.Request) error {
	status := 0
	if req.Response != nil {
		status = req.Response.StatusCode
	}
	e := &redirectError{status: status, location: RedactURL(t.red, req.URL.String())}
	t.mu.Lock()
	if t.redirect == nil {
		t.redirect = e
	}
	t.mu.Unlock()
	return e
}

func (t *headerTransport) redirected() *redirectError {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.redirect
}

// detached connects a transport whose connection lives on the context it
// was connected with (the SDK's SSE client reads its GET stream under
// it): the connection gets a context of its own, cancelled when it is
// closed, and the connect itself is still bounded by the caller's.
type detached struct{ inner mcp.Transport }

func (t *detached) Connect(ctx context.Context) (mcp.Connection, error) {
	dctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	stop := context.AfterFunc(ctx, cancel)
	conn, err := t.inner.Connect(dctx)
	if !stop() || err != nil {
		cancel()
		if err == nil {
			conn.Close()
			err = ctx.Err()
		}
		return nil, err
	}
	return &cancelOnClose{Connection: conn, cancel: cancel}, nil
}

type cancelOnClose struct {
	mcp.Connection
	cancel context.CancelFunc
}

func (c *cancelOnClose) Close() error {
	err := c.Connection.Close()
	c.cancel()
	return err
}

// headerTransport adds the configured headers to every request, and notes
// the first answers that were not MCP, to explain a failed start.
type headerTransport struct {
	base   http.RoundTripper
	header http.Header
	red    *redact.Redactor
	max    int    // the most bytes of one message (a JSON body, an SSE event) read
	name   string // the server, for the error a larger one gets (URL redacted)
	// tooLarge is the last TooLargeError a body read gave, until a failed
	// call reports it.
	tooLarge atomic.Pointer[TooLargeError]

	mu       sync.Mutex
	first    int            // status of the first response, 0 before it
	bad      *badResponse   // the first response that was not MCP
	redirect *redirectError // the first redirect refused
}

// badResponse describes a response that was not what MCP answers.
type badResponse struct {
	status      int
	contentType string
	html        bool
}

func (t *headerTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.Clone(req.Context())
	for name, values := range t.header {
		req.Header[name] = values
	}
	resp, err := t.base.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	ct := resp.Header.Get("Content-Type")
	base, _, _ := strings.Cut(ct, ";")
	base = strings.ToLower(strings.TrimSpace(base))
	okType := base == "application/json" || base == "text/event-stream" || base == ""
	t.mu.Lock()
	if t.first == 0 {
		t.first = resp.StatusCode
	}
	if t.bad == nil && (resp.StatusCode >= 300 || !okType && req.Method == http.MethodPost && resp.StatusCode != http.StatusAccepted) {
		t.bad = &badResponse{status: resp.StatusCode, html: base == "text/html" || base == "application/xhtml+xml"}
		if !okType {
			t.bad.contentType = base
		}
	}
	t.mu.Unlock()
	if resp.Body != nil && t.max > 0 {
		if resp.ContentLength > int64(t.max) {
			resp.Body.Close()
			return nil, &TooLargeError{Server: t.name, Limit: t.max, Size: resp.ContentLength}
		}
		resp.Body = &boundedBody{ReadCloser: resp.Body, sse: base == "text/event-stream", left: t.max, max: t.max, server: t.name, seen: &t.tooLarge}
	}
	return resp, nil
}

func (t *headerTransport) firstStatus() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.first
}

func (t *headerTransport) firstBad() *badResponse {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.bad
}

// seenResponses is what a headerTransport noted of the responses.
type seenResponses struct {
	first    int
	bad      *badResponse
	redirect *redirectError
}

// save returns what was noted so far and starts afresh.
func (t *headerTransport) save() seenResponses {
	t.mu.Lock()
	defer t.mu.Unlock()
	s := seenResponses{t.first, t.bad, t.redirect}
	t.first, t.bad, t.redirect = 0, nil, nil
	return s
}

// restore puts back what save returned.
func (t *headerTransport) restore(s seenResponses) {
	t.mu.Lock()
	t.first, t.bad, t.redirect = s.first, s.bad, s.redirect
	t.mu.Unlock()
}

// remoteFault wraps an error of a call to a remote server.
func (d *Downstream) remoteFault(ctx context.Context, err error) error {
	var limit *CallTimeoutError
	if errors.As(context.Cause(ctx), &limit) {
		return &DownstreamError{Index: d.Index, Name: d.Name, Err: limit}
	}
	var tl *TooLargeError
	switch {
	case errors.As(err, &tl):
		d.remote.rt.tooLarge.Store(nil)
		err = tl
	case d.remote.rt.tooLarge.Load() != nil:
		// The SDK drops the error of a stream it stopped reading and
		// says only that the request ended without a response.
		err = d.remote.rt.tooLarge.Swap(nil)
	case d.remote.rt.redirected() != nil:
		err = d.remote.rt.redirected()
	case errors.Is(err, mcp.ErrConnectionClosed) || errors.Is(err, io.EOF):
		err = fmt.Errorf("its connection closed: %w", err)
	default:
		err = d.hideURL(err)
	}
	return &DownstreamError{Index: d.Index, Name: d.Name, Err: err}
}

// hideURL returns err with the server's URL, wherever its text holds it
// (an HTTP client error quotes the URL it failed on), replaced by the
// redacted one.
func (d *Downstream) hideURL(err error) error {
	if err == nil {
		return nil
	}
	text := err.Error()
	if u := d.remote.url; u != "" && strings.Contains(text, u) {
		return errors.New(strings.ReplaceAll(text, u, d.Name))
	}
	if red := RedactURL(nil, text); red != text {
		return errors.New(red)
	}
	return err
}

// closeRemote ends the session (the SDK's DELETE, bounded by the SDK).
func (d *Downstream) closeRemote() {
	if d.session != nil {
		d.session.Close()
	}
	d.remote.rt.base.(*http.Transport).CloseIdleConnections()
}
