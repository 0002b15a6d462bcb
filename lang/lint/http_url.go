package lint

import (
	"fmt"
	"net/url"
	"strings"

	"github.com/reelier/reelier/internal/words"
	"github.com/reelier/reelier/lang/ast"
)

var ruleHTTPURL = &Rule{
	Name:            "http_url",
	Title:           "An http.* step's url is missing or not an absolute http(s) URL",
	Category:        CategoryCorrectness,
	DefaultSeverity: ast.SeverityError,
	Doc: "The builtin HTTP tools (`http.get`, `http.post`, …) take their target from the " + "`url`" + ` argument,
and there is no base URL to resolve a relative one against: the URL must
start with ` + "`http://` or `https://`" + ` and name a host. A URL that starts with a
template hole (` + "`{{base_url}}/items`" + `) is taken on trust, since its value
is only known at run time.`,
	FixDoc: "A URL that starts with a host name (`api.example.test/v1`) gets `https://` in front.",
	Example: exampleSkill("Fetch items", `- action: http.get {"url": "api.example.test/items"}`) +
		"\n### Step 2 — Fetch one\n- intent: Fetch one\n- action: http.get {\"url\": \"/items/1\"}\n- assert: status == 200\n- effect: read\n",
	Run: runHTTPURL,
}

// isHTTPTool reports whether a tool is one of the builtin HTTP tools.
func isHTTPTool(tool string) bool { return strings.HasPrefix(tool, "http.") }

func runHTTPURL(p *Pass) {
	for _, st := range p.Skill.Steps {
		a := st.Action
		if a == nil || !isHTTPTool(a.Tool) {
			continue
		}
		obj, _ := a.Args.(*ast.Object)
		var u ast.Value
		if obj != nil {
			for _, m := range obj.Members {
				if m.Key == "url" {
					u = m.Value
				}
			}
		}
		s, ok := u.(*ast.String)
		switch {
		case u == nil:
			rng := a.ToolRange
			if a.Args != nil {
				rng = a.Args.Span()
			}
			p.Reportf(st.Number, rng, "%s needs a \"url\" argument", a.Tool)
		case !ok:
			p.Reportf(st.Number, u.Span(), "the \"url\" of %s must be a string", a.Tool)
		default:
			checkURL(p, st.Number, a.Tool, s)
		}
	}
}

func checkURL(p *Pass, step int, tool string, s *ast.String) {
	if len(s.Holes) > 0 && s.Holes[0].Start == 0 {
		return
	}
	v := s.Value
	if absoluteHTTP(v) {
		return
	}
	parsed, err := url.Parse(v)
	if err == nil && (parsed.Scheme == "http" || parsed.Scheme == "https") && parsed.Host != "" {
		return
	}
	d := ast.Diagnostic{Step: step, Range: s.Range}
	switch {
	case err == nil && parsed.Scheme != "" && parsed.Opaque == "" && parsed.Host != "":
		d.Message = fmt.Sprintf("%s speaks http and https only, not %s: %q", tool, parsed.Scheme, v)
	default:
		d.Message = fmt.Sprintf("the url of %s is not an absolute http(s) URL: %q", tool, v)
		if looksLikeHost(v) {
			if start, _, plain := p.stringInner(s); plain {
				d.Fixes = fix("Add https://", p.insertAt(start, "https://"))
			}
		}
	}
	p.Report(d)
}

// absoluteHTTP is the fast path for the common case: http:// or https://
// followed by a host name.
func absoluteHTTP(v string) bool {
	rest, ok := strings.CutPrefix(v, "https://")
	if !ok {
		rest, ok = strings.CutPrefix(v, "http://")
	}
	return ok && rest != "" && words.IsIdentByte(rest[0]) && !strings.ContainsAny(v, " \t\\%")
}

// looksLikeHost reports whether v starts with a dotted host name, such as
// api.example.test or localhost:8080, rather than a path.
func looksLikeHost(v string) bool {
	host := v
	if i := strings.IndexAny(host, "/?#"); i >= 0 {
		host = host[:i]
	}
	if h, port, ok := strings.Cut(host, ":"); ok {
		if port == "" || strings.Trim(port, "0123456789") != "" {
			return false
		}
		host = h
	}
	if host == "localhost" {
		return true
	}
	if !strings.Contains(host, ".") || strings.HasPrefix(host, ".") || strings.HasSuffix(host, ".") {
		return false
	}
	for i := 0; i < len(host); i++ {
		c := host[i]
		if !(words.IsIdentByte(c) && c != '_' || c == '.' || c == '-') {
			return false
		}
	}
	return true
}
