package compile

import (
	"bytes"
	"fmt"

	"github.com/reelier/reelier/lang/ast"
	"github.com/reelier/reelier/tool"
	"github.com/reelier/reelier/trace"
)

// result judges one recorded result: whether the call succeeded, and the
// tool result to read when it may be read.
func (c *compiler) result(st *step, rec *trace.Result) (*tool.ToolResult, bool) {
	st.ok = rec.OK
	if d := rec.Policy; d != nil && d.Action != "allow" && d.Asked != "accept" {
		// The proxy's policy answered the call; the server never saw it.
		st.ok = false
		rule := "its default"
		if d.Rule != "" {
			rule = fmt.Sprintf("rule %q", d.Rule)
		}
		c.q.add(st.n, KindFailedResult, "%s: the recording proxy's policy answered this call (%s, by %s) and nothing reached the server, so the step has no asserts — delete the step if the agent's call was not part of the workflow.", ref(st), d.Action, rule)
		return nil, false
	}
	if !rec.OK {
		c.q.add(st.n, KindFailedResult, "%s: the call failed while recording (ok: false), so the step has no asserts and its result was not searched for values — is the failure expected, and what would success look like?", ref(st))
		return nil, false
	}
	if bytes.Contains(rec.Body, []byte(`"__truncated"`)) {
		if tr, ok := rec.Truncated(); ok {
			c.q.add(st.n, KindTruncatedBody, "%s: the recorded result was cut to a preview (originally %d characters), so it was not searched for values later steps use — check whether a later literal should come from it.", ref(st), tr.OriginalLength)
			return nil, false
		}
	}
	if len(rec.Body) > c.opts.MaxMinedBody {
		c.q.add(st.n, KindUnminedBody, "%s: the recorded result is %d bytes, more than the %s the compiler searches, so it was not searched for values later steps use.", ref(st), len(rec.Body), byteSize(c.opts.MaxMinedBody))
		return nil, false
	}
	res, err := parseToolResult(rec.Body)
	if err != nil {
		c.q.add(st.n, KindUnminedBody, "%s: the recorded result is not an MCP tool result (no content list), so it was not searched for values later steps use — what does this tool return at replay?", ref(st))
		return nil, false
	}
	if res.IsError {
		st.ok = false
		c.q.add(st.n, KindFailedResult, "%s: the call returned an error result (isError: true) while recording, so the step has no asserts and its result was not searched for values — is the failure expected, and what would success look like?", ref(st))
		return nil, false
	}
	return res, true
}

// stepQuestions asks what each step's own record leaves open: narration,
// a missing result, the effect class and the shape of the arguments.
func (c *compiler) stepQuestions() {
	for _, st := range c.steps {
		if len(st.notes) == 0 {
			c.q.add(st.n, KindUnnarrated, "%s: no note narrates this call, so its title and intent are placeholders — say what the step is for.", ref(st))
		}
		if st.resultLine == 0 {
			c.q.add(st.n, KindMissingResult, "%s: the trace has no result for this call (the recording may have stopped mid-call), so the step has no asserts and replay will report it unchecked — what would success look like?", ref(st))
		}
		ann := c.annotations(st.tool)
		st.class = c.stepClass(st)
		switch {
		case st.class.Unclassified:
			declared := "the server declared no annotation"
			if h := hints(ann); h != "" {
				declared = "the server's annotations (" + h + ") do not say it is read-only or safe to repeat"
			}
			c.q.add(st.n, KindUnclassifiedEffect, "%s: nothing in the tool name says what it does (no verb the compiler knows, or one such as run that could do anything) and %s, so the step is destructive to be safe (replay refuses it without --yes) — lower the effect if the call is safe to repeat.", ref(st), declared)
		case st.class.Conflict != "":
			c.q.add(st.n, KindEffectConflict, "%s: %s — check which is right.", ref(st), st.class.Conflict)
		}
		c.argumentQuestion(st)
		if st.argsKind != "" {
			c.q.add(st.n, KindArgsNotObject, "%s: the recorded arguments (trace line %d) are %s, not an object; MCP tools take named arguments, so replay may be refused.", ref(st), st.at.Line, st.argsKind)
		}
	}
}

// byteSize renders a size limit: "8 MiB", or "1000 bytes".
func byteSize(n int) string {
	if n%(1<<20) == 0 {
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprintf("%d bytes", n)
}

// annotations returns the hints the server declared for tool, or nil.
func (c *compiler) annotations(tool string) *trace.Annotations {
	if a, ok := c.meta.ToolAnnotations[tool]; ok {
		return &a
	}
	return nil
}

// classify classifies a tool once per compile; traces call the same
// tools over and over.
func (c *compiler) classify(tool string, ann *trace.Annotations) *Classification {
	cl := c.classes[tool]
	if cl == nil {
		found := classify(tool, ann)
		cl = &found
		c.classes[tool] = cl
	}
	return cl
}

// describeValue names the JSON type of v with an article.
func describeValue(v ast.Value) string {
	switch v.(type) {
	case *ast.Array:
		return "an array"
	case *ast.String:
		return "a string"
	case *ast.Number:
		return "a number"
	case *ast.Bool:
		return "a boolean"
	case *ast.Null:
		return "null"
	}
	return "an object"
}
