package record

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/reelier/reelier/internal/termtext"
	"github.com/reelier/reelier/mcpx"
	"github.com/reelier/reelier/policy"
	"github.com/reelier/reelier/trace"
)

// The seatbelt: with Options.Policy set, every tools/call the agent makes
// for a downstream tool is put to the policy before it is forwarded. An
// allowed call goes on (its decision kept on its result record); a denied
// one is answered with an isError result carrying the rule's message and
// never reaches the server; a dry-run is answered as rehearsed and not
// sent; ask asks the agent's user through an elicitation when the agent
// declared the capability (and is on a revision with server-initiated
// requests), and is a deny otherwise or when the user declines. The fast
// path decides too, and leaves every call the policy does not allow to
// this one (fast.go).

// decisionKey carries a call's decision from forward to callDownstream.
type decisionKey struct{}

func decisionFrom(ctx context.Context) *trace.PolicyDecision {
	d, _ := ctx.Value(decisionKey{}).(*trace.PolicyDecision)
	return d
}

func traceDecision(d policy.Decision) *trace.PolicyDecision {
	return &trace.PolicyDecision{Digest: d.Digest, Rule: d.Rule, Action: string(d.Action)}
}

// gate puts a call to the policy. It returns the decision to keep and,
// when the call is not to be forwarded, the result to answer with (the
// call and that result recorded already).
func (p *Proxy) gate(ctx context.Context, route *mcpx.Route, req *mcp.CallToolRequest) (*trace.PolicyDecision, *mcp.CallToolResult) {
	args := req.Params.Arguments
	if len(args) == 0 {
		args = json.RawMessage("{}")
	}
	d := p.opts.Policy.Decide(route.PolicyCall(args, ""))
	td := traceDecision(d)
	var res *mcp.CallToolResult
	switch d.Action {
	case policy.Allow:
		return td, nil
	case policy.Ask:
		td.Asked = p.askUser(ctx, req.Session, route.Exposed, d)
		if td.Asked == "accept" {
			return td, nil
		}
		res = errorResult(refusal(route.Exposed, d, "the user was asked and did not accept ("+td.Asked+")"))
	case policy.DryRun:
		res = textResult(fmt.Sprintf("reelier: dry run: %s was not sent to its server (policy rule %q)%s", route.Exposed, d.Rule, withMessage(d.Message)))
	default:
		res = errorResult(refusal(route.Exposed, d, ""))
	}
	p.warnf("policy: %s %s (rule %q)", termtext.Line(string(d.Action)), termtext.Line(route.Exposed), termtext.Line(d.Rule))
	rc := p.recordCall(route.Exposed, args, toolUseID(req.Params.Meta))
	p.recordResult(rc, route.Exposed, res, nil, 0, false, trace.ResultExtras{Policy: td})
	return td, res
}

func refusal(tool string, d policy.Decision, why string) string {
	rule := "the policy's default"
	if d.Rule != "" {
		rule = fmt.Sprintf("policy rule %q", d.Rule)
	}
	s := fmt.Sprintf("reelier: %s refused by %s", tool, rule)
	if why != "" {
		s += ": " + why
	}
	return s + withMessage(d.Message)
}

func withMessage(m string) string {
	if m == "" {
		return ""
	}
	return ": " + m
}

// askUser asks the agent's user whether the call may go, and returns the
// answer: "accept", "decline", "cancel", or why no one could be asked
// ("unsupported", "error").
func (p *Proxy) askUser(ctx context.Context, ss *mcp.ServerSession, tool string, d policy.Decision) string {
	if ss == nil || roundTrips(ss) {
		return "unsupported"
	}
	ip := ss.InitializeParams()
	if ip == nil || ip.Capabilities == nil || ip.Capabilities.Elicitation == nil {
		return "unsupported"
	}
	msg := fmt.Sprintf("Reelier's policy (rule %q) asks before %s runs.%s Allow it?", d.Rule, tool, withMessage(d.Message))
	res, err := ss.Elicit(ctx, &mcp.ElicitParams{Mode: "form", Message: msg,
		RequestedSchema: map[string]any{"type": "object", "properties": map[string]any{}}})
	if err != nil {
		p.warnf("policy: asking about %s failed: %v", termtext.Line(tool), err)
		return "error"
	}
	switch res.Action {
	case "accept", "decline", "cancel":
		return res.Action
	}
	return "decline"
}
