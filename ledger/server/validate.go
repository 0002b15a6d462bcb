package server

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/url"
	"strconv"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/reelier/reelier/lang/agentskill"
	"github.com/reelier/reelier/replay/runlog"
)

// maxNameBytes bounds a skill name.
const maxNameBytes = 256 // 64 characters of at most 4 bytes

// fieldErrors maps a JSON path to what is wrong there; the first problem
// found at a path wins.
type fieldErrors map[string]string

func (fe fieldErrors) add(path, format string, args ...any) {
	if _, ok := fe[path]; !ok {
		fe[path] = fmt.Sprintf(format, args...)
	}
}

// runUpload is a run upload that passed validation.
type runUpload struct {
	skill  string
	record []byte
	// bundle is the record's Sigstore bundle as sent, nil when none.
	bundle []byte
	rec    runlog.Record
	// totals are derived from the steps, whatever the record's own say.
	totals                runlog.Totals
	startedAt, finishedAt time.Time
}

// parseRunUpload checks a run upload's body: a JSON object with a string
// skillName and a record shaped like a run record (format §4). It returns
// the field errors when there are any; a body that is not a JSON object is
// reported under "body".
func parseRunUpload(body []byte) (*runUpload, fieldErrors) {
	fe := fieldErrors{}
	var env map[string]json.RawMessage
	if err := json.Unmarshal(body, &env); err != nil || env == nil {
		fe.add("body", "must be a JSON object {\"skillName\": string, \"record\": object}: %s", jsonProblem(err))
		return nil, fe
	}
	up := &runUpload{}
	checkName(fe, "skillName", env["skillName"], &up.skill)
	raw, ok := env["record"]
	if !ok {
		fe.add("record", "is required")
		return nil, fe
	}
	v := decodeValue(raw)
	rec, isObj := v.(map[string]any)
	if !isObj {
		fe.add("record", "must be an object, got %s", kind(v))
		return nil, fe
	}
	w := walker{fe: fe}
	w.record(rec, up)
	if len(fe) > 0 {
		return nil, fe
	}
	up.record = bytes.TrimSpace(raw)
	if b, ok := env["bundle"]; ok && !bytes.Equal(bytes.TrimSpace(b), []byte("null")) {
		if _, isObj := decodeValue(b).(map[string]any); !isObj {
			fe.add("bundle", "must be a Sigstore bundle (a JSON object), got %s", kind(decodeValue(b)))
			return nil, fe
		}
		up.bundle = bytes.TrimSpace(b)
	}
	if err := json.Unmarshal(raw, &up.rec); err != nil {
		fe.add("record", "%v", err)
		return nil, fe
	}
	up.totals = runlog.CountSteps(up.rec.Steps)
	w.consistent(rec, up)
	if len(fe) > 0 {
		return nil, fe
	}
	return up, nil
}

// skillUploadBody is a skill upload that passed validation.
type skillUploadBody struct {
	name, skillMd string
}

// parseSkillUpload checks a skill upload's body: {name, skillMd}, both
// strings, the name non-empty and printable.
func parseSkillUpload(body []byte) (*skillUploadBody, fieldErrors) {
	fe := fieldErrors{}
	var env map[string]json.RawMessage
	if err := json.Unmarshal(body, &env); err != nil || env == nil {
		fe.add("body", "must be a JSON object {\"name\": string, \"skillMd\": string}: %s", jsonProblem(err))
		return nil, fe
	}
	up := &skillUploadBody{}
	checkName(fe, "name", env["name"], &up.name)
	if raw, ok := env["skillMd"]; !ok {
		fe.add("skillMd", "is required")
	} else if err := json.Unmarshal(raw, &up.skillMd); err != nil {
		fe.add("skillMd", "must be a string, got %s", kind(decodeValue(raw)))
	} else if up.skillMd == "" {
		fe.add("skillMd", "must not be empty")
	}
	if len(fe) > 0 {
		return nil, fe
	}
	return up, nil
}

// checkName reads a skill name at path into dst.
func checkName(fe fieldErrors, path string, raw json.RawMessage, dst *string) {
	if raw == nil {
		fe.add(path, "is required")
		return
	}
	if err := json.Unmarshal(raw, dst); err != nil {
		fe.add(path, "must be a string, got %s", kind(decodeValue(raw)))
		return
	}
	if msg := nameProblem(*dst); msg != "" {
		fe.add(path, "%s", msg)
	}
}

// NameRule is the rule a skill name must follow, as the 400 states it:
// the Agent Skills name rules (SPEC §2, lang/agentskill). A name is a
// path segment of the ledger's pages and API (/skills/NAME), so a name
// such as "..", "a/b" or "<b>" could not be reached or would be markup.
const NameRule = "a skill name follows the Agent Skills name rules: 1 to 64 lower-case letters, digits and hyphens, not starting or ending with a hyphen, no two hyphens in a row, no reserved word (anthropic, claude)"

// nameProblem says what is wrong with a skill name, or "".
func nameProblem(name string) string {
	switch {
	case name == "":
		return "must not be empty; " + NameRule
	case len(name) > maxNameBytes:
		return fmt.Sprintf("must be at most %d bytes, got %d; %s", maxNameBytes, len(name), NameRule)
	case !utf8.ValidString(name):
		return "must be valid UTF-8; " + NameRule
	}
	if problems := agentskill.NameProblems(name); len(problems) > 0 {
		return fmt.Sprintf("%q breaks the rule (%s); %s", name, problems[0], NameRule)
	}
	return ""
}

// decodeValue decodes JSON keeping numbers exact; nil on error.
func decodeValue(raw json.RawMessage) any {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) != nil {
		return nil
	}
	return v
}

// kind names a decoded JSON value's type for messages.
func kind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return "a string"
	case json.Number:
		return "a number"
	case bool:
		return "a boolean"
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("%T", v)
}

// jsonProblem renders a JSON decoding error for the body message.
func jsonProblem(err error) string {
	if err == nil {
		return "got null"
	}
	if se, ok := err.(*json.SyntaxError); ok {
		return fmt.Sprintf("malformed JSON at byte %d: %v", se.Offset, se)
	}
	if te, ok := err.(*json.UnmarshalTypeError); ok {
		return "got " + te.Value
	}
	return err.Error()
}

// walker checks a decoded run record and collects field errors.
type walker struct{ fe fieldErrors }

func (w walker) record(rec map[string]any, up *runUpload) {
	if s, ok := w.str(rec, "record.skill", "skill", true); ok && up.skill != "" && s != up.skill {
		w.fe.add("record.skill", "is %q but skillName is %q; a record must be pushed under its own skill", s, up.skill)
	}
	up.startedAt = w.timestamp(rec, "record.startedAt", "startedAt")
	up.finishedAt = w.timestamp(rec, "record.finishedAt", "finishedAt")
	if _, ok := rec["passed"].(bool); !ok {
		w.typeErr("record.passed", rec, "passed", "a boolean")
	}
	steps, ok := rec["steps"].([]any)
	if !ok {
		w.typeErr("record.steps", rec, "steps", "an array")
	}
	for i, s := range steps {
		w.step(fmt.Sprintf("record.steps[%d]", i), s)
	}
	if p, present := rec["provenance"]; present && p != nil {
		w.provenance(p)
	}
	if d, present := rec["toolDrift"]; present && d != nil {
		w.toolDrift(d)
	}
	if sv, present := rec["servers"]; present && sv != nil {
		w.servers(sv)
	}
	totals, ok := rec["totals"].(map[string]any)
	if !ok {
		w.typeErr("record.totals", rec, "totals", "an object")
		return
	}
	current := totals["unchecked"] != nil || totals["skipped"] != nil
	for _, f := range []string{"steps", "passed", "unchecked", "skipped", "failed", "ms", "llmInputTokens", "llmOutputTokens"} {
		required := current || f == "steps" || f == "passed" || f == "failed"
		w.count(totals, "record.totals."+f, f, 0, -1, required)
	}
}

var outcomes = map[string]bool{"passed": true, "failed": true, "unchecked": true, "skipped": true, "interrupted": true}

func (w walker) step(path string, v any) {
	st, ok := v.(map[string]any)
	if !ok {
		w.fe.add(path, "must be an object, got %s", kind(v))
		return
	}
	w.count(st, path+".n", "n", 1, -1, true)
	w.str(st, path+".title", "title", false)
	w.count(st, path+".level", "level", 0, 2, true)
	w.count(st, path+".ms", "ms", 0, -1, true)
	if o, ok := w.str(st, path+".outcome", "outcome", true); ok && !outcomes[o] {
		w.fe.add(path+".outcome", `must be one of "passed", "failed", "unchecked", "skipped", "interrupted"; got %q`, o)
	}
	if f, present := st["failures"]; present && f != nil {
		list, ok := f.([]any)
		if !ok {
			w.fe.add(path+".failures", "must be an array of strings, got %s", kind(f))
		}
		for i, m := range list {
			if _, ok := m.(string); !ok {
				w.fe.add(fmt.Sprintf("%s.failures[%d]", path, i), "must be a string, got %s", kind(m))
			}
		}
	}
	if llm, present := st["llm"]; present {
		if m, ok := llm.(map[string]any); ok {
			w.count(m, path+".llm.inputTokens", "inputTokens", 0, -1, true)
			w.count(m, path+".llm.outputTokens", "outputTokens", 0, -1, true)
			if models, present := m["models"]; present {
				w.llmModels(path+".llm.models", models)
			}
		} else {
			w.fe.add(path+".llm", "must be an object, got %s", kind(llm))
		}
	}
	w.count(st, path+".escalationAttempted", "escalationAttempted", 0, 2, false)
	if why, present := st["why"]; present {
		if m, ok := why.(map[string]any); ok {
			w.str(m, path+".why.trigger", "trigger", false)
			w.str(m, path+".why.change", "change", false)
			w.strings(m, path+".why.before", "before")
			w.strings(m, path+".why.after", "after")
		} else {
			w.fe.add(path+".why", "must be an object, got %s", kind(why))
		}
	}
}

// maxLLMModels bounds the models one step's usage names: a heal asks
// at most two (Level 1 and Level 2).
const maxLLMModels = 8

// llmModels checks a step's usage by model: [{"model", "inputTokens",
// "outputTokens", "costMicroUsd"?}], the cost a whole number of
// micro-dollars when it is there (absent: price unknown).
func (w walker) llmModels(path string, v any) {
	list, ok := v.([]any)
	if !ok {
		w.fe.add(path, "must be an array, got %s", kind(v))
		return
	}
	if len(list) > maxLLMModels {
		w.fe.add(path, "must list at most %d models, got %d", maxLLMModels, len(list))
		return
	}
	for i, e := range list {
		p := fmt.Sprintf("%s[%d]", path, i)
		m, ok := e.(map[string]any)
		if !ok {
			w.fe.add(p, "must be an object, got %s", kind(e))
			continue
		}
		if s, ok := w.str(m, p+".model", "model", true); ok {
			if msg := provenanceProblem(s, maxServerBytes); msg != "" {
				w.fe.add(p+".model", "%s", msg)
			}
		}
		w.count(m, p+".inputTokens", "inputTokens", 0, -1, true)
		w.count(m, p+".outputTokens", "outputTokens", 0, -1, true)
		w.count(m, p+".costMicroUsd", "costMicroUsd", 0, -1, false)
	}
}

// toolDrift checks what the drift check before step 1 found: an object
// {"ignored": boolean, "tools": [{"server"?, "tool", "changes": [string]}]}.
// A record that keeps drift that was not ignored, and whose steps were
// all skipped, is a run the drift stopped: its verdict is failed.
func (w walker) toolDrift(v any) {
	m, ok := v.(map[string]any)
	if !ok {
		w.fe.add("record.toolDrift", "must be an object, got %s", kind(v))
		return
	}
	if _, ok := m["ignored"].(bool); !ok {
		w.typeErr("record.toolDrift.ignored", m, "ignored", "a boolean")
	}
	tools, ok := m["tools"].([]any)
	if !ok {
		w.typeErr("record.toolDrift.tools", m, "tools", "an array")
	}
	for i, t := range tools {
		path := fmt.Sprintf("record.toolDrift.tools[%d]", i)
		tm, ok := t.(map[string]any)
		if !ok {
			w.fe.add(path, "must be an object, got %s", kind(t))
			continue
		}
		w.str(tm, path+".server", "server", false)
		w.str(tm, path+".tool", "tool", true)
		w.strings(tm, path+".changes", "changes")
	}
}

// maxServers and maxServerBytes bound what a record says of the servers
// it ran against: how many, and how long each name, program or host is.
const (
	maxServers     = 64
	maxServerBytes = 256
)

// servers checks which MCP servers a run says it ran against: an array of
// {"name", "command"?, "host"?, "mock"?}, each text one line within
// maxServerBytes.
func (w walker) servers(v any) {
	list, ok := v.([]any)
	if !ok {
		w.fe.add("record.servers", "must be an array, got %s", kind(v))
		return
	}
	if len(list) > maxServers {
		w.fe.add("record.servers", "must list at most %d servers, got %d", maxServers, len(list))
		return
	}
	for i, e := range list {
		path := fmt.Sprintf("record.servers[%d]", i)
		m, ok := e.(map[string]any)
		if !ok {
			w.fe.add(path, "must be an object, got %s", kind(e))
			continue
		}
		for _, key := range []string{"name", "command", "host"} {
			if s, ok := w.str(m, path+"."+key, key, key == "name"); ok {
				if msg := provenanceProblem(s, maxServerBytes); msg != "" {
					w.fe.add(path+"."+key, "%s", msg)
				}
			}
		}
		if mk, present := m["mock"]; present {
			if _, ok := mk.(bool); !ok {
				w.fe.add(path+".mock", "must be a boolean, got %s", kind(mk))
			}
		}
	}
}

// provenanceCaps are the longest value, in bytes, each provenance field
// may have; a longer one is refused, never cut. They are generous for
// real values (nested GitLab groups, long branch names, a SHA-256 commit)
// and bound what a page has to show.
var provenanceCaps = []struct {
	key      string
	max      int
	required bool
}{
	{"provider", 64, true},
	{"repository", 512, false},
	{"commit", 100, false},
	{"ref", 1024, false},
	{"runUrl", 2048, false},
}

// provenance checks where a run says it ran: plain one-line text within
// each field's cap, no control characters, and a runUrl that is an
// absolute http(s) URL without credentials. Bidi controls and markup are
// accepted as text: the pages render them inert.
func (w walker) provenance(v any) {
	m, ok := v.(map[string]any)
	if !ok {
		w.fe.add("record.provenance", "must be an object, got %s", kind(v))
		return
	}
	for _, c := range provenanceCaps {
		path := "record.provenance." + c.key
		s, ok := w.str(m, path, c.key, c.required)
		if !ok {
			continue
		}
		if msg := provenanceProblem(s, c.max); msg != "" {
			w.fe.add(path, "%s", msg)
			continue
		}
		if c.key == "runUrl" {
			if msg := runURLProblem(s); msg != "" {
				w.fe.add(path, "%s", msg)
			}
		}
	}
}

// provenanceProblem says what is wrong with a provenance value, or "".
func provenanceProblem(s string, max int) string {
	if len(s) > max {
		return fmt.Sprintf("must be at most %d bytes, got %d", max, len(s))
	}
	for _, r := range s {
		if unicode.IsControl(r) || r == '\u2028' || r == '\u2029' {
			return fmt.Sprintf("must be one line of text without control characters, found %q", r)
		}
	}
	return ""
}

// runURLProblem says what is wrong with a run URL, or "": it must be an
// absolute http:// or https:// URL with a host and no user or password.
func runURLProblem(s string) string {
	u, err := url.Parse(s)
	switch {
	case s == "":
		return ""
	case err != nil:
		return fmt.Sprintf("must be an http:// or https:// URL: %v", err)
	case u.Scheme == "":
		return "must be an absolute http:// or https:// URL; it has no scheme"
	case u.Scheme != "http" && u.Scheme != "https":
		return fmt.Sprintf("must be an http:// or https:// URL, got a %q URL", u.Scheme)
	case u.Host == "":
		return "must be an absolute http:// or https:// URL with a host"
	case u.User != nil:
		return "must not carry a user name or password"
	}
	return ""
}

// strings reads an optional array-of-strings field.
func (w walker) strings(m map[string]any, path, key string) {
	v, present := m[key]
	if !present || v == nil {
		return
	}
	list, ok := v.([]any)
	if !ok {
		w.fe.add(path, "must be an array of strings, got %s", kind(v))
		return
	}
	for i, e := range list {
		if _, ok := e.(string); !ok {
			w.fe.add(fmt.Sprintf("%s[%d]", path, i), "must be a string, got %s", kind(e))
		}
	}
}

// consistent checks what the types alone cannot: passed agrees with the
// steps, a step's failures and level agree with its outcome, and a current
// record's totals agree with its step outcomes.
func (w walker) consistent(rec map[string]any, up *runUpload) {
	switch v := up.rec.Verdict; {
	case v == "":
		// A record from before verdicts: passed meant "no step failed".
		if failed := up.totals.Failed > 0; up.rec.Passed == failed {
			w.fe.add("record.passed", "is %v but %d step(s) failed; passed must be true exactly when no step failed", up.rec.Passed, up.totals.Failed)
		}
	case v == VerdictFailed && verdictOf(&up.rec, up.totals) == VerdictConfig:
		// Written before the config verdict existed: stored as config.
	case v != verdictOf(&up.rec, up.totals):
		w.fe.add("record.verdict", "is %q but the steps say %q", v, verdictOf(&up.rec, up.totals))
	case up.rec.Passed != (v == VerdictPassed):
		w.fe.add("record.passed", "is %v but the verdict is %q; passed must be true exactly when the verdict is passed", up.rec.Passed, v)
	}
	for i, s := range up.rec.Steps {
		path := fmt.Sprintf("record.steps[%d]", i)
		ok := s.Outcome == runlog.Passed || s.Outcome == runlog.Unchecked
		if ok && len(s.Failures) > 0 {
			w.fe.add(path+".failures", "a %s step cannot have failures", s.Outcome)
		}
		if s.Level > 0 && !ok {
			w.fe.add(path+".level", "level %d means healed, but the outcome is %q", s.Level, s.Outcome)
		}
	}
	totals := rec["totals"].(map[string]any)
	if totals["unchecked"] == nil && totals["skipped"] == nil {
		return // legacy totals: never trusted, derived from the steps
	}
	t := up.rec.Totals
	for _, c := range []struct {
		name         string
		got, counted int
	}{
		{"steps", t.Steps, up.totals.Steps},
		{"passed", t.Passed, up.totals.Passed},
		{"unchecked", t.Unchecked, up.totals.Unchecked},
		{"skipped", t.Skipped, up.totals.Skipped},
		{"failed", t.Failed, up.totals.Failed},
	} {
		if c.got != c.counted {
			w.fe.add("record.totals."+c.name, "is %d but the step outcomes count %d", c.got, c.counted)
		}
	}
}

// str reads a string field.
func (w walker) str(m map[string]any, path, key string, required bool) (string, bool) {
	v, present := m[key]
	if !present {
		if required {
			w.fe.add(path, "is required")
		}
		return "", false
	}
	s, ok := v.(string)
	if !ok {
		w.fe.add(path, "must be a string, got %s", kind(v))
	}
	return s, ok
}

// count reads a whole-number field within [lo, hi] (hi < 0: no bound).
func (w walker) count(m map[string]any, path, key string, lo, hi int64, required bool) {
	v, present := m[key]
	if !present {
		if required {
			w.fe.add(path, "is required")
		}
		return
	}
	num, ok := v.(json.Number)
	if !ok {
		w.fe.add(path, "must be a whole number, got %s", kind(v))
		return
	}
	n, err := strconv.ParseInt(string(num), 10, 64)
	switch {
	case err != nil:
		w.fe.add(path, "must be a whole number, got %s", num)
	case n < lo || hi >= 0 && n > hi:
		if hi >= 0 {
			w.fe.add(path, "must be between %d and %d, got %d", lo, hi, n)
		} else {
			w.fe.add(path, "must be at least %d, got %d", lo, n)
		}
	}
}

// timestamp reads an ISO-8601 timestamp field.
func (w walker) timestamp(m map[string]any, path, key string) time.Time {
	s, ok := w.str(m, path, key, true)
	if !ok {
		return time.Time{}
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		w.fe.add(path, "must be an ISO-8601 timestamp like 2026-07-18T14:00:00.000Z, got %q", s)
	}
	return t.UTC()
}

// typeErr reports a missing or mistyped field.
func (w walker) typeErr(path string, m map[string]any, key, want string) {
	if v, present := m[key]; present {
		w.fe.add(path, "must be %s, got %s", want, kind(v))
	} else {
		w.fe.add(path, "is required")
	}
}
