package heal

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/reelier/reelier/internal/words"
	"github.com/reelier/reelier/lang/ast"
	"github.com/reelier/reelier/lang/format"
	"github.com/reelier/reelier/redact"
	"github.com/reelier/reelier/replay"
	"github.com/reelier/reelier/tool"
	"github.com/reelier/reelier/tool/jsondata"
)

// Bounds of the observation summary sent to the model.
const (
	maxBody      = 2000 // characters of the body
	maxLeaves    = 40   // sampled json.<path> leaves
	maxLeafValue = 80   // bytes of one leaf's value
	sampleItems  = 3    // elements sampled from each array
)

// system is the standing instruction of every escalation.
const system = `You repair one step of a Reelier skill. A skill replays recorded tool calls and checks each response with asserts; binds capture values for later steps. This step's checks failed against the response shown, usually because the service changed the shape of its data. Propose checks that verify the same intent against that response.

Answer with one JSON object and nothing else:
{"reason": "<one sentence: what changed>", "asserts": ["<assert>", ...], "binds": ["<bind>", ...]}

- "asserts" and "binds" replace the step's lists; leave a key out to keep that list unchanged.
- Keep at least one assert, and keep every bind name the step already has: later steps use them.
- Keep every value check (status, contains, not contains, ==, !=, >, <, >=, <=, matches, length): change the value it expects, or move it to the field's new path, but never drop it or turn it into a type or presence check (is string, is set). A patch that checks less is refused.
- Each assert and bind is one line with no line breaks, in exactly these forms:
  status == N | status != N
  body contains "text" | body not contains "text"
  json.PATH is array|set|number|string|boolean|null
  json.PATH matches /regex/
  json.PATH length >|<|>=|<= N
  json.PATH ==|!=|>|<|>=|<= JSON-scalar
  NAME = json.PATH
  NAME = body match /regex with one (capture group)/
- PATH is dot-separated object keys and array indexes, such as data.items.0.id.`

// level2Rules extend the instruction when the arguments may change.
const level2Rules = `

This time you may also change the call: add "args" with the action's complete JSON arguments, or leave "args" out to repeat the call as it is. The step's tool will be called exactly once more and your checks applied to that new response. In string values, {{NAME}} may name only these bound variables: %s; and {{today}}, {{today-Nd}}, {{today+Nd}} are dates.`

// prompt is the user message for one attempt; previous is why the level
// below did not hold ("" for Level 1). Everything in it from the skill, the
// failures and the response goes through the run's redactor first
// (d.Redactor), JSON quoted in text included, so the model never sees a
// value the run record or a trace would blank.
func prompt(d *replay.Divergence, level int, previous string) (string, string) {
	r := d.Redactor()
	sys := system
	if level >= 2 {
		sys += fmt.Sprintf(level2Rules, orNone(d.BoundNames()))
	}
	var b strings.Builder
	b.WriteString("The step:\n\n")
	writeStep(&b, d.Step, r)
	b.WriteString("\nIts failures:\n")
	for _, f := range d.Failures {
		fmt.Fprintf(&b, "- %s\n", redact.Text(r, "", f.Message))
	}
	b.WriteString("\nThe response it checked:\n")
	writeSummary(&b, redacted(r, d.Observation))
	if previous != "" {
		fmt.Fprintf(&b, "\nA Level 1 patch (re-reading this response without calling the tool again) was tried; %s\n", redact.Text(r, "", previous))
	}
	return sys, b.String()
}

// writeStep prints the step as its skill file would, each line redacted.
func writeStep(b *strings.Builder, st *ast.Step, r *redact.Redactor) {
	line := func(format string, args ...any) {
		b.WriteString(redact.Text(r, "", fmt.Sprintf(format, args...)))
		b.WriteByte('\n')
	}
	line("### Step %d — %s", st.Number, st.Title)
	if st.Intent != nil {
		line("- intent: %s", st.Intent.Text)
	}
	line("- action: %s", format.Action(st.Action))
	for _, a := range st.Asserts {
		line("- assert: %s", format.Assert(a.Expr))
	}
	for _, bd := range st.Binds {
		line("- bind: %s", format.Bind(bd.Expr))
	}
	line("- effect: %s", st.EffectValue())
}

// redacted is the observation as the model is shown it: its body and its
// structured content redacted as a trace redacts a result, before they
// are cut to size or sampled.
func redacted(r *redact.Redactor, obs *tool.Observation) *tool.Observation {
	out := &tool.Observation{Status: obs.Status, Body: redact.Text(r, "", obs.Body), Structured: obs.Structured}
	if obs.Structured != nil {
		if s, err := redact.JSON(r, obs.Structured); err == nil {
			out.Structured = s
		}
	}
	return out
}

// writeSummary writes the bounded observation summary: status, the start
// of the body, and sampled JSON leaves.
func writeSummary(b *strings.Builder, obs *tool.Observation) {
	fmt.Fprintf(b, "status: %d\n", obs.Status)
	body := obs.Body
	if n := utf8.RuneCountInString(body); n > maxBody {
		body = string([]rune(body)[:maxBody]) + fmt.Sprintf("… [cut: %d of %d characters shown]", maxBody, n)
	}
	fmt.Fprintf(b, "body (%d bytes):\n%s\n", len(obs.Body), body)
	root, err := obs.JSON()
	if err != nil {
		b.WriteString("The body is not JSON.\n")
		return
	}
	leaves := sample(root)
	fmt.Fprintf(b, "JSON leaves (%d sampled):\n", len(leaves))
	for _, l := range leaves {
		fmt.Fprintf(b, "%s\n", l)
	}
}

// sample lists up to maxLeaves leaves of a JSON document depth first, as
// `json.<path> = <value>`, taking the first few elements of each array and
// noting its length. Keys a path cannot spell are left out.
func sample(root any) []string {
	var out []string
	var walk func(path string, v any)
	walk = func(path string, v any) {
		if len(out) >= maxLeaves {
			return
		}
		switch v := v.(type) {
		case *jsondata.Object:
			if len(v.Members) == 0 {
				out = append(out, path+" = {}")
			}
			for _, m := range v.Members {
				if addressable(m.Key) {
					walk(path+"."+m.Key, m.Value)
				}
			}
		case []any:
			if len(v) > sampleItems {
				out = append(out, fmt.Sprintf("%s is an array of %d elements; the first %d:", path, len(v), sampleItems))
			}
			if len(v) == 0 {
				out = append(out, path+" = []")
			}
			for i, e := range v[:min(len(v), sampleItems)] {
				walk(path+"."+strconv.Itoa(i), e)
			}
		default:
			out = append(out, path+" = "+words.Clip(jsondata.String(v), maxLeafValue))
		}
	}
	walk("json", root)
	return out[:min(len(out), maxLeaves)]
}

// addressable reports whether a key can be a json.<path> segment.
func addressable(key string) bool {
	for _, c := range key {
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			return false
		}
	}
	return key != ""
}
