package diff

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/pmezard/go-difflib/difflib"
	"github.com/reelier/reelier/internal/words"
	"github.com/reelier/reelier/tool"
	"github.com/reelier/reelier/tool/jsondata"
	"github.com/reelier/reelier/trace"
)

// replayObserved is the meta "observed" of a replay trace
// (replaytrace.Observed; not imported, so that this package does not
// depend on the writer).
const replayObserved = "replay"

// statusMeta is the `_meta` key a replay trace keeps a status other than
// 200 or 500 under (replaytrace.StatusMeta).
const statusMeta = "reelier/status"

// tcall is one call of a trace with its result.
type tcall struct {
	pos  int // 1-based, in call order
	tool string
	args json.RawMessage
	res  *trace.Result // nil when the trace has none
	note string        // the last note before the call
}

// Traces compares two traces call by call. nameA and nameB name them in
// the report (their file names); prof, when not nil, is the skill both
// are a run of.
func Traces(a, b *trace.Trace, nameA, nameB string, prof *Profile) *Report {
	ca, cb := callsOf(a), callsOf(b)
	r := &Report{Kind: "traces", A: describeTrace(nameA, a, len(ca)), B: describeTrace(nameB, b, len(cb)), nameA: nameA, nameB: nameB, Steps: []*Step{}}
	if a.Meta != nil && b.Meta != nil && a.Meta.Name != b.Meta.Name {
		r.Notes = append(r.Notes, fmt.Sprintf("the traces have different names (%q, %q)", a.Meta.Name, b.Meta.Name))
	}
	pa, pb := prof.assign(ca), prof.assign(cb)
	echoes := &bindings{}
	m := difflib.NewMatcherWithJunk(tools(ca), tools(cb), false, nil)
	for _, op := range m.GetOpCodes() {
		switch op.Tag {
		case 'e':
			for k := range op.I2 - op.I1 {
				i, j := op.I1+k, op.J1+k
				sp := pb[j]
				if sp == nil {
					sp = pa[i]
				}
				st := stepOf(cb[j], sp)
				st.Changes, st.Ignored = compareCalls(ca[i], cb[j], sp, echoes)
				echoes.learn(ca[i], cb[j], sp)
				st.settle()
				r.Steps = append(r.Steps, st)
			}
		default: // 'r', 'd', 'i': calls on one side only
			for i := op.I1; i < op.I2; i++ {
				st := stepOf(ca[i], pa[i])
				st.Only = "a"
				st.settle()
				r.Steps = append(r.Steps, st)
			}
			for j := op.J1; j < op.J2; j++ {
				st := stepOf(cb[j], pb[j])
				st.Only = "b"
				st.settle()
				r.Steps = append(r.Steps, st)
			}
		}
	}
	return r
}

// describeTrace says what a trace is: `out.jsonl (replay of "demo", 3 calls)`.
func describeTrace(name string, t *trace.Trace, calls int) string {
	how, skill := "recording", ""
	if t.Meta != nil {
		skill = t.Meta.Name
		switch t.Meta.Observed {
		case replayObserved:
			how = "replay"
		case "stream", "file":
			how = "from a session"
		}
	}
	return fmt.Sprintf("%s (%s %q, %s)", name, how, skill, words.Count(calls, "call"))
}

// callsOf lists a trace's calls in file order, each with its result and
// the note that came last before it.
func callsOf(t *trace.Trace) []*tcall {
	var out []*tcall
	byI := map[int]*tcall{}
	note := ""
	for _, rec := range t.Records {
		switch rec := rec.(type) {
		case *trace.Note:
			note = strings.TrimSpace(rec.Text)
		case *trace.Call:
			c := &tcall{pos: len(out) + 1, tool: rec.Tool, args: rec.Args, note: note}
			note = ""
			out = append(out, c)
			byI[rec.I] = c
		case *trace.Result:
			if c := byI[rec.I]; c != nil {
				c.res = rec
			}
		}
	}
	return out
}

func tools(calls []*tcall) []string {
	out := make([]string, len(calls))
	for i, c := range calls {
		out[i] = c.tool
	}
	return out
}

// assign maps each call to the skill step it replays, if any: calls are
// matched in order to the next step of the same tool.
func (p *Profile) assign(calls []*tcall) []*StepProfile {
	out := make([]*StepProfile, len(calls))
	if p == nil {
		return out
	}
	next := 0
	for i, c := range calls {
		for k := next; k < len(p.Steps); k++ {
			if p.Steps[k].Tool == c.tool {
				out[i] = p.Steps[k]
				next = k + 1
				break
			}
		}
	}
	return out
}

// stepOf starts the report's step for a call.
func stepOf(c *tcall, sp *StepProfile) *Step {
	st := &Step{N: c.pos, Tool: c.tool, Title: oneLine(c.note)}
	if sp != nil {
		st.N = sp.N
		if sp.Title != "" {
			st.Title = sp.Title
		}
	}
	return st
}

// oneLine cuts a note to a title.
func oneLine(s string) string {
	if i := strings.IndexAny(s, "\r\n"); i >= 0 {
		s = s[:i]
	}
	return cut(strings.TrimSpace(s))
}

// learn notes the values the step's type-only binds took in each call's
// result.
func (bs *bindings) learn(a, b *tcall, sp *StepProfile) {
	if sp == nil {
		return
	}
	for name, segs := range sp.BindsTypeOnly {
		va, okA := a.bound(segs)
		vb, okB := b.bound(segs)
		bs.set(name, va, vb, okA, okB)
	}
}

// bound is the value at a json path of the call's result.
func (c *tcall) bound(segs []string) (any, bool) {
	if c.res == nil {
		return nil, false
	}
	v, ok := viewOf(c.res)
	if !ok || !v.hasDoc {
		return nil, false
	}
	return lookup(v.doc, segs)
}

// compareCalls compares two calls of the same tool: their arguments, then
// their results as the skill sees them.
func compareCalls(a, b *tcall, sp *StepProfile, echoes *bindings) (changes, ignored []Change) {
	changes, ignored = compareJSON("args", a.args, b.args, sp.argsTypeOnly(), echoes)
	switch {
	case a.res == nil && b.res == nil:
	case a.res == nil || b.res == nil:
		c := Change{Path: "result", From: "a result", To: "a result", Kind: Removed, Note: "the call has no result record"}
		if a.res == nil {
			c.Kind = Added
		}
		changes = append(changes, c)
	default:
		ch, ig := compareResults(a.res, b.res, sp, echoes)
		changes, ignored = append(changes, ch...), append(ignored, ig...)
	}
	return changes, ignored
}

// compareJSON compares two raw JSON values under root; text that does not
// parse is compared as it is.
func compareJSON(root string, a, b json.RawMessage, typeOnly func(string) bool, echoes *bindings) (changes, ignored []Change) {
	va, ea := jsondata.Parse(string(a))
	vb, eb := jsondata.Parse(string(b))
	if ea != nil || eb != nil {
		if string(a) != string(b) {
			return []Change{{Path: root, From: cut(string(a)), To: cut(string(b)), Kind: Changed}}, nil
		}
		return nil, nil
	}
	return values(root, va, vb, typeOnly, echoes)
}

// view is a result as the skill sees it.
type view struct {
	status int
	doc    any
	hasDoc bool
	body   string
}

// viewOf reads a result body as replay observes it (tool.ToolResult);
// ok is false for a body that is not an MCP tool result.
func viewOf(res *trace.Result) (view, bool) {
	tr, err := tool.ParseValidToolResult(res.Body)
	if err != nil {
		return view{}, false
	}
	obs := tr.Observation()
	v := view{status: obs.Status, body: obs.Body}
	if raw, ok := jsondata.RawAt(res.Body, []string{"_meta", statusMeta}); ok {
		if n, err := strconv.Atoi(string(raw)); err == nil {
			v.status = n
		}
	}
	if doc, err := obs.JSON(); err == nil {
		v.doc, v.hasDoc = doc, true
	}
	return v, true
}

// compareResults compares two results: the status, then the json document
// both bodies hold, or else the body text. A result that is not an MCP
// tool result is compared as raw JSON under `result`.
func compareResults(a, b *trace.Result, sp *StepProfile, echoes *bindings) (changes, ignored []Change) {
	ta, cutA := a.Truncated()
	tb, cutB := b.Truncated()
	if cutA || cutB {
		if cutA && cutB && ta == tb {
			return nil, nil
		}
		c := Change{Path: "result", From: "a result", To: "a result", Kind: Changed, Note: "not compared"}
		if cutA {
			c.From = fmt.Sprintf("a preview of %d bytes", ta.OriginalLength)
		}
		if cutB {
			c.To = fmt.Sprintf("a preview of %d bytes", tb.OriginalLength)
		}
		c.Note = "a size-capped trace kept only a preview, so the result was not compared"
		return []Change{c}, nil
	}
	va, oka := viewOf(a)
	vb, okb := viewOf(b)
	if !oka || !okb {
		return compareJSON("result", a.Body, b.Body, nil, echoes)
	}
	if va.status != vb.status {
		changes = append(changes, Change{Path: "status", From: strconv.Itoa(va.status), To: strconv.Itoa(vb.status), Kind: Changed})
	}
	switch {
	case va.hasDoc && vb.hasDoc:
		ch, ig := shaped("json", va.doc, vb.doc, sp.obsTypeOnly(), sp.misfit(), echoes)
		changes, ignored = append(changes, ch...), append(ignored, ig...)
	case va.hasDoc != vb.hasDoc:
		c := Change{Path: "body", From: "a JSON document", To: strconv.Quote(cut(firstLine(vb.body))), Kind: Type, Note: "JSON → text"}
		if vb.hasDoc {
			c.From, c.To, c.Note = strconv.Quote(cut(firstLine(va.body))), "a JSON document", "text → JSON"
		}
		changes = append(changes, c)
	default:
		if c, ok := compareText(va.body, vb.body); ok {
			changes = append(changes, c)
		}
	}
	return changes, ignored
}

// compareText compares two bodies that are not JSON: the first line that
// differs, or the line counts when one body only adds lines, with the
// line diff of the two (Lines).
func compareText(a, b string) (Change, bool) {
	if a == b {
		return Change{}, false
	}
	la, lb := strings.Split(a, "\n"), strings.Split(b, "\n")
	var lines []string // one line against one says all in From and To
	if len(la) > 1 || len(lb) > 1 {
		lines = lineDiff(la, lb)
	}
	for i := range min(len(la), len(lb)) {
		if la[i] != lb[i] {
			path := "body"
			if len(la) > 1 || len(lb) > 1 {
				path = fmt.Sprintf("body line %d", i+1)
			}
			return Change{Path: path, From: strconv.Quote(cut(la[i])), To: strconv.Quote(cut(lb[i])), Kind: Changed, Lines: lines}, true
		}
	}
	return Change{Path: "body", From: words.Count(len(la), "line"), To: words.Count(len(lb), "line"), Kind: Changed, Lines: lines}, true
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i] + " …"
	}
	return s
}
