package session

import (
	"strings"

	"github.com/reelier/reelier/compile"
	"github.com/reelier/reelier/lang/ast"
)

// Compile turns the session's replayable calls into a skill: Trace, then
// the compiler exactly as `reelier compile` runs it, then one paragraph
// added to the skill's preamble that says how the calls were observed, so
// a reader of the skill knows whether it was observed or reconstructed.
func (s *Session) Compile(topts TraceOptions, copts compile.Options) (*compile.Output, error) {
	tr, err := s.Trace(topts)
	if err != nil {
		return nil, err
	}
	out, err := compile.Compile(tr, copts)
	if err != nil {
		return nil, err
	}
	addProvenance(out.Skill, topts.Observed)
	return out, nil
}

// Provenance is the paragraph a compiled skill's preamble carries for a
// trace observed the given way ("" for a recording made by the proxy,
// which needs no caveat).
func Provenance(observed string) string {
	const kept = " Only the calls that replay deterministically were kept; nothing else the session did is in this skill."
	switch observed {
	case ObservedFile:
		return "Observed: file. These calls were reconstructed by `reelier from-session` from a session transcript on disk — a file the agent's own session could have written — so they are the agent's report of what it did, not an observation of it." + kept
	case ObservedStream:
		return "Observed: stream. These calls were read by `reelier from-session` from the agent harness's own output while the session ran, a channel the session cannot write to." + kept
	}
	return ""
}

// addProvenance puts the provenance paragraph at the end of the preamble,
// before its "## Steps" heading when it has one.
func addProvenance(skill *ast.Skill, observed string) {
	para := Provenance(observed)
	if para == "" {
		return
	}
	text := skill.Preamble.Text
	at := strings.LastIndex(text, "## Steps")
	if at < 0 || at > 0 && text[at-1] != '\n' {
		if !strings.HasSuffix(text, "\n") {
			text += "\n"
		}
		skill.Preamble.Text = text + "\n" + para + "\n"
		return
	}
	skill.Preamble.Text = text[:at] + para + "\n\n" + text[at:]
}
