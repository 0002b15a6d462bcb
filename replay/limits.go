package replay

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/reelier/reelier/lang/ast"
	"github.com/reelier/reelier/replay/runlog"
	"github.com/reelier/reelier/tool"
)

// DefaultTimeout bounds a tool call when neither the run nor the skill
// sets a limit and the tool has no limit of its own (http.* has 15 s).
const DefaultTimeout = 30 * time.Second

// Limits bound a run's calls and retry read steps whose checks did not
// hold. Zero fields mean "not set".
type Limits struct {
	// Timeout bounds each tool call.
	Timeout time.Duration
	// Retry is how many more times a read step whose checks did not hold
	// is executed; RetryInterval is the wait before each.
	Retry         int
	RetryInterval time.Duration
	// RetrySteps, when not nil, names the only steps that are retried (a
	// skill's reelier-retry-steps); nil retries every read step.
	RetrySteps map[int]bool
	// From names where Timeout came from, for the message of a call that
	// ran out of time ("--timeout", "metadata reelier-timeout").
	From string
}

// Or fills the fields l leaves zero from other.
func (l Limits) Or(other Limits) Limits {
	if l.Timeout == 0 {
		l.Timeout, l.From = other.Timeout, other.From
	}
	if l.Retry == 0 {
		l.Retry = other.Retry
	}
	if l.RetryInterval == 0 {
		l.RetryInterval = other.RetryInterval
	}
	if l.RetrySteps == nil {
		l.RetrySteps = other.RetrySteps
	}
	return l
}

// source says where a limit came from.
func (l Limits) source(limit time.Duration) string {
	if l.Timeout > 0 && l.From != "" {
		return "the limit set by " + l.From
	}
	if limit == DefaultTimeout {
		return "the default limit; raise it with --timeout"
	}
	return "the tool's own limit; raise it with --timeout"
}

// The metadata keys a skill sets its own limits with (SPEC.md §2.1).
const (
	MetaTimeout       = ast.MetadataPrefix + "timeout"
	MetaRetry         = ast.MetadataPrefix + "retry"
	MetaRetryInterval = ast.MetadataPrefix + "retry-interval"
	MetaRetrySteps    = ast.MetadataPrefix + "retry-steps"
)

// maxRetry bounds retries, so a typo cannot keep a run polling for hours.
const maxRetry = 100

// SkillLimits reads the limits a skill sets under its frontmatter's
// metadata. A value that does not read is an error naming its line; the
// limits that did read are returned with it.
func SkillLimits(skill *ast.Skill) (Limits, error) {
	var l Limits
	if skill == nil || skill.Frontmatter == nil {
		return l, nil
	}
	var errs []error
	bad := func(e *ast.FrontmatterEntry, want string) {
		errs = append(errs, fmt.Errorf("%d:%d: metadata %s is %q; want %s", e.ValueRange.Start.Line, e.ValueRange.Start.Column, e.Key, e.Value, want))
	}
	if e := skill.Frontmatter.Metadata(MetaTimeout); e != nil {
		if d, err := time.ParseDuration(e.Value); err != nil || d <= 0 {
			bad(e, "a positive duration such as 45s or 2m")
		} else {
			l.Timeout, l.From = d, "metadata "+MetaTimeout
		}
	}
	if e := skill.Frontmatter.Metadata(MetaRetry); e != nil {
		if n, err := strconv.Atoi(e.Value); err != nil || n < 0 || n > maxRetry {
			bad(e, fmt.Sprintf("a whole number from 0 to %d", maxRetry))
		} else {
			l.Retry = n
		}
	}
	if e := skill.Frontmatter.Metadata(MetaRetryInterval); e != nil {
		if d, err := time.ParseDuration(e.Value); err != nil || d < 0 {
			bad(e, "a duration such as 500ms or 5s")
		} else {
			l.RetryInterval = d
		}
	}
	if e := skill.Frontmatter.Metadata(MetaRetrySteps); e != nil {
		l.RetrySteps = map[int]bool{}
		for _, f := range strings.FieldsFunc(e.Value, func(r rune) bool { return r == ',' || r == ' ' }) {
			n, err := strconv.Atoi(f)
			if err != nil || n < 1 || n > len(skill.Steps) {
				bad(e, fmt.Sprintf("step numbers from 1 to %d, separated by commas", len(skill.Steps)))
				l.RetrySteps = nil
				break
			}
			l.RetrySteps[n] = true
		}
	}
	if len(errs) > 0 {
		return l, joinErrors(errs)
	}
	return l, nil
}

type limitErrors []error

func (e limitErrors) Error() string {
	s := e[0].Error()
	for _, err := range e[1:] {
		s += "\n" + err.Error()
	}
	return s
}

func joinErrors(errs []error) error { return limitErrors(errs) }

// digest identifies an observation without keeping it: the SHA-256 of
// its canonical bytes — the status in decimal, a newline, the body, and
// when it has structured content a newline and that content — and the size
// of its body plus its structured content. Headers are left out: a Date or
// request-id header would make every answer different.
func digest(o *tool.Observation) runlog.Digest {
	h := sha256.New()
	var head [24]byte
	h.Write(append(strconv.AppendInt(head[:0], int64(o.Status), 10), '\n'))
	io.WriteString(h, o.Body)
	if o.Structured != nil {
		h.Write([]byte{'\n'})
		h.Write(o.Structured)
	}
	return runlog.Digest{SHA256: hex.EncodeToString(h.Sum(nil)), Size: int64(len(o.Body) + len(o.Structured)), Status: o.Status}
}
