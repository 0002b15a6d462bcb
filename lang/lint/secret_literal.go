package lint

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/reelier/reelier/lang/ast"
	"github.com/reelier/reelier/redact"
)

var ruleSecretLiteral = &Rule{
	Name:            "secret_literal",
	Title:           "A credential is written into the arguments",
	Category:        CategorySafety,
	DefaultSeverity: ast.SeverityError,
	Doc: `Skills are shared, committed and replayed in CI; a key written into one is a
leaked key. The rule runs the same detectors as trace redaction over every
string argument: ` + "`sk-`" + ` API keys, bearer tokens, GitHub, Slack, Stripe live and
Google API keys, AWS access key ids, JSON Web Tokens, PEM private keys,
passwords in URLs, secret-named query parameters, and 32 or more hex digits
under a secret-named key (` + "`api_key`, `Authorization`" + `). Ordinary data — ids,
hashes under non-secret keys, dates, prose — is left alone. The message
names the kind of secret and never repeats it.

Pass secrets at run time instead, as inputs: ` + "`--var api_key=…`" + `, and document
them on the Inputs line.`,
	FixDoc: "The fix replaces the secret with a `{{variable}}` named after its key (or its kind); the same secret gets the same name everywhere.",
	Example: exampleSkill("Create a ticket",
		`- action: http.post {"url": "https://api.example.test/tickets", "headers": {"Authorization": "Bearer 0f9e8d7c6b5a4f3e2d1c"}}`),
	Run: runSecretLiteral,
}

// kindVarNames name the variable a secret of each kind is replaced by
// when its key says nothing better.
var kindVarNames = map[redact.Kind]string{
	redact.KindSKKey: "api_key", redact.KindBearer: "token", redact.KindHex: "secret",
	redact.KindGitHub: "github_token", redact.KindSlack: "slack_token",
	redact.KindAWSKeyID: "aws_access_key_id", redact.KindGoogleAPIKey: "google_api_key",
	redact.KindStripeLive: "stripe_key", redact.KindJWT: "jwt",
	redact.KindPEM: "private_key", redact.KindURLPassword: "password",
	redact.KindQuerySecret: "api_key",
	redact.KindStripe:      "stripe_key", redact.KindAWSSecretKey: "aws_secret_access_key",
	redact.KindAWSSessionToken: "aws_session_token", redact.KindServiceToken: "api_token",
	redact.KindBasic: "basic_credentials", redact.KindNamedValue: "secret",
}

// secretNamer hands out variable names: one per distinct secret value,
// never a name the skill already binds or documents.
type secretNamer struct {
	byValue map[string]string
	taken   map[string]bool
}

func newSecretNamer(p *Pass) *secretNamer {
	n := &secretNamer{byValue: map[string]string{}, taken: map[string]bool{"today": true}}
	f := p.dataflow()
	for _, b := range f.binds {
		n.taken[b.name] = true
	}
	for _, u := range f.uses {
		n.taken[u.hole.Name] = true
	}
	return n
}

func (n *secretNamer) name(value, key string, kind redact.Kind) string {
	if v, ok := n.byValue[value]; ok {
		return v
	}
	base := kindVarNames[kind]
	if k := snakeName(key); k != "" && redact.IsSecretKey(key) {
		base = k
	}
	name := base
	for i := 2; n.taken[name]; i++ {
		name = base + "_" + strconv.Itoa(i)
	}
	n.taken[name] = true
	n.byValue[value] = name
	return name
}

// snakeName turns a key such as "X-Api-Key" into an identifier (x_api_key).
func snakeName(key string) string {
	words := strings.FieldsFunc(strings.ToLower(key), func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9')
	})
	s := strings.Join(words, "_")
	if s == "" || s[0] >= '0' && s[0] <= '9' {
		return ""
	}
	return s
}

func runSecretLiteral(p *Pass) {
	var namer *secretNamer
	for _, st := range p.Skill.Steps {
		if st.Action == nil {
			continue
		}
		ast.WalkLeaves(st.Action.Args, "", func(leaf ast.Value, key string) {
			s, ok := leaf.(*ast.String)
			if !ok {
				return
			}
			for _, m := range redact.FindAll(key, s.Value) {
				if namer == nil {
					namer = newSecretNamer(p)
				}
				reportSecret(p, st.Number, s, key, m, namer)
			}
		})
	}
}

// queryParam returns the name of the query parameter whose value starts
// at offset at of s (the text between the last '?' or '&' and the '=').
func queryParam(s string, at int) string {
	name := strings.TrimSuffix(s[:at], "=")
	if i := strings.LastIndexAny(name, "?&"); i >= 0 {
		name = name[i+1:]
	}
	return name
}

func reportSecret(p *Pass, step int, s *ast.String, key string, m redact.Match, namer *secretNamer) {
	where := "in the arguments"
	if key != "" {
		where = fmt.Sprintf("under %q", key)
	}
	d := ast.Diagnostic{
		Step:    step,
		Range:   s.Range,
		Message: fmt.Sprintf("%s %s; pass it at run time with --var instead", m.Kind.Label(), where),
	}
	start, end, plain := p.stringInner(s)
	secret := s.Value[m.Start:m.End]
	if m.Kind == redact.KindQuerySecret {
		key = queryParam(s.Value, m.Start)
	}
	switch {
	case plain:
		start, end = start+m.Start, start+m.End
	case m.Start == 0 && m.End == len(s.Value):
		// The whole value is the secret; replace all of its escaped text.
	case strings.Count(string(p.Src[start:end]), secret) == 1:
		start += strings.Index(string(p.Src[start:end]), secret)
		end = start + len(secret)
	default:
		p.Report(d)
		return
	}
	d.Range = p.span(start, end)
	name := namer.name(secret, key, m.Kind)
	d.Fixes = fix(fmt.Sprintf("Replace with {{%s}}", name), replace(d.Range, "{{"+name+"}}"))
	p.Report(d)
}
