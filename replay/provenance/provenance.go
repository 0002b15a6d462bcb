// Package provenance says where a run ran, for the run record's
// provenance field (SPEC.md §14): in CI the provider, repository,
// commit, ref and the address of the run's page, taken from the
// provider's standard variables; on a developer's machine the word
// "local" and nothing else — no host name, user name or path, nothing a
// user might not want to send to a shared ledger.
//
// Every value comes from the environment, which a CI configuration (and
// so a pull request) can set, so each is checked before it is kept: a
// value that is too long, holds a control or bidi character or invalid
// UTF-8, or does not have its field's shape (a commit is hexadecimal, a
// run URL is http or https with a host and no credentials) is left out.
// A value is never trimmed into something else.
package provenance

import (
	"net/url"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/reelier/reelier/replay/runlog"
)

// The provider names.
const (
	GitHubActions = "github-actions"
	GitLabCI      = "gitlab-ci"
	// CI is a CI that sets CI=true but is not recognised.
	CI = "ci"
	// Local is any run outside CI.
	Local = "local"
)

// Length caps, in bytes.
const (
	maxRepository = 256
	maxRef        = 256
	maxURL        = 2048
)

// FromEnv reads the provenance of a run from the environment through
// getenv (os.Getenv in production).
func FromEnv(getenv func(string) string) *runlog.Provenance {
	switch {
	case getenv("GITHUB_ACTIONS") == "true":
		p := &runlog.Provenance{Provider: GitHubActions,
			Repository: repository(getenv("GITHUB_REPOSITORY")),
			Commit:     commit(getenv("GITHUB_SHA")),
			Ref:        ref(getenv("GITHUB_REF")),
		}
		if p.Repository != "" && runID(getenv("GITHUB_RUN_ID")) {
			p.RunURL = runURL(strings.TrimRight(getenv("GITHUB_SERVER_URL"), "/") + "/" + p.Repository + "/actions/runs/" + getenv("GITHUB_RUN_ID"))
		}
		return p
	case getenv("GITLAB_CI") == "true":
		p := &runlog.Provenance{Provider: GitLabCI,
			Repository: repository(getenv("CI_PROJECT_PATH")),
			Commit:     commit(getenv("CI_COMMIT_SHA")),
			RunURL:     runURL(first(getenv("CI_JOB_URL"), getenv("CI_PIPELINE_URL"))),
		}
		switch {
		case getenv("CI_COMMIT_TAG") != "":
			p.Ref = ref("refs/tags/" + getenv("CI_COMMIT_TAG"))
		case getenv("CI_COMMIT_BRANCH") != "":
			p.Ref = ref("refs/heads/" + getenv("CI_COMMIT_BRANCH"))
		default:
			p.Ref = ref(getenv("CI_COMMIT_REF_NAME"))
		}
		return p
	case truthy(getenv("CI")):
		return &runlog.Provenance{Provider: CI}
	}
	return &runlog.Provenance{Provider: Local}
}

// truthy is how CI systems set CI: "true", "1", "yes" (any case).
func truthy(v string) bool {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "true", "1", "yes":
		return true
	}
	return false
}

func first(vs ...string) string {
	for _, v := range vs {
		if v != "" {
			return v
		}
	}
	return ""
}

// inert reports whether s is at most max bytes of valid UTF-8 with no
// control character, bidi control or other invisible formatting
// character, and no white space.
func inert(s string, max int) bool {
	if s == "" || len(s) > max || !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		if unicode.IsControl(r) || unicode.Is(unicode.Cf, r) || unicode.IsSpace(r) {
			return false
		}
	}
	return true
}

// repository keeps an owner/name path (GitLab nests groups: a/b/c).
func repository(s string) string {
	if !inert(s, maxRepository) || !strings.Contains(s, "/") || strings.HasPrefix(s, "/") || strings.HasSuffix(s, "/") {
		return ""
	}
	for _, r := range s {
		if !(r == '/' || r == '-' || r == '_' || r == '.' || r < utf8.RuneSelf && (unicode.IsLetter(r) || unicode.IsDigit(r))) {
			return ""
		}
	}
	return s
}

// commit keeps a hexadecimal commit id: 40 (SHA-1) or 64 (SHA-256)
// digits, lower-cased.
func commit(s string) string {
	if len(s) != 40 && len(s) != 64 {
		return ""
	}
	for _, r := range s {
		if !strings.ContainsRune("0123456789abcdefABCDEF", r) {
			return ""
		}
	}
	return strings.ToLower(s)
}

// ref keeps a git ref: printable, no white space, none of the characters
// git forbids in a ref name.
func ref(s string) string {
	if !inert(s, maxRef) || strings.ContainsAny(s, "~^:?*[\\") || strings.Contains(s, "..") {
		return ""
	}
	return s
}

// runID keeps a CI run number.
func runID(s string) bool {
	if s == "" || len(s) > 20 {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// runURL keeps an absolute http or https URL with a host and no user
// information, in its parsed and re-encoded form.
func runURL(s string) string {
	if !inert(s, maxURL) {
		return ""
	}
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil || u.Opaque != "" {
		return ""
	}
	if out := u.String(); len(out) <= maxURL {
		return out
	}
	return ""
}
