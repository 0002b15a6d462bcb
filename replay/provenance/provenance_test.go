package provenance

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/reelier/reelier/replay/runlog"
)

func env(kv map[string]string) func(string) string {
	return func(k string) string { return kv[k] }
}

const sha = "0123456789abcdef0123456789abcdef01234567"

func github(over map[string]string) map[string]string {
	m := map[string]string{
		"GITHUB_ACTIONS": "true", "CI": "true", "GITHUB_REPOSITORY": "acme/shop", "GITHUB_SHA": sha,
		"GITHUB_REF": "refs/heads/main", "GITHUB_SERVER_URL": "https://github.com", "GITHUB_RUN_ID": "4242",
		// Never recorded, whatever they hold.
		"HOSTNAME": "laptop.acme.internal", "USER": "alice", "HOME": "/home/alice", "PWD": "/home/alice/src",
	}
	for k, v := range over {
		m[k] = v
	}
	return m
}

func TestFromEnv(t *testing.T) {
	ghWant := runlog.Provenance{Provider: GitHubActions, Repository: "acme/shop", Commit: sha, Ref: "refs/heads/main",
		RunURL: "https://github.com/acme/shop/actions/runs/4242"}
	with := func(f func(p *runlog.Provenance)) runlog.Provenance { p := ghWant; f(&p); return p }
	tests := []struct {
		name string
		env  map[string]string
		want runlog.Provenance
	}{
		{"local: the provider and nothing else", map[string]string{"HOSTNAME": "laptop", "USER": "alice", "HOME": "/home/alice", "GITHUB_SHA": sha},
			runlog.Provenance{Provider: Local}},
		{"CI=false is local", map[string]string{"CI": "false"}, runlog.Provenance{Provider: Local}},
		{"an unknown CI", map[string]string{"CI": "true", "GITHUB_REPOSITORY": "acme/shop"}, runlog.Provenance{Provider: CI}},
		{"CI=1", map[string]string{"CI": "1"}, runlog.Provenance{Provider: CI}},
		{"GitHub Actions", github(nil), ghWant},
		{"GitHub Enterprise server with a trailing slash", github(map[string]string{"GITHUB_SERVER_URL": "https://git.acme.example/"}),
			with(func(p *runlog.Provenance) { p.RunURL = "https://git.acme.example/acme/shop/actions/runs/4242" })},
		{"upper-case commit is lower-cased", github(map[string]string{"GITHUB_SHA": strings.ToUpper(sha)}), ghWant},
		{"a SHA-256 commit", github(map[string]string{"GITHUB_SHA": sha + "0123456789abcdef01234567"}),
			with(func(p *runlog.Provenance) { p.Commit = sha + "0123456789abcdef01234567" })},
		// Hostile values: each is left out, never stored half-cleaned.
		{"ANSI escape in the ref", github(map[string]string{"GITHUB_REF": "refs/heads/\x1b[31mmain"}),
			with(func(p *runlog.Provenance) { p.Ref = "" })},
		{"newline in the repository drops it and the run URL", github(map[string]string{"GITHUB_REPOSITORY": "acme/shop\n::error::pwned"}),
			with(func(p *runlog.Provenance) { p.Repository, p.RunURL = "", "" })},
		{"HTML in the repository", github(map[string]string{"GITHUB_REPOSITORY": "acme/<script>alert(1)</script>"}),
			with(func(p *runlog.Provenance) { p.Repository, p.RunURL = "", "" })},
		{"bidi override in the ref", github(map[string]string{"GITHUB_REF": "refs/heads/\u202emain"}),
			with(func(p *runlog.Provenance) { p.Ref = "" })},
		{"invalid UTF-8 in the ref", github(map[string]string{"GITHUB_REF": "refs/heads/\xff"}),
			with(func(p *runlog.Provenance) { p.Ref = "" })},
		{"a ref too long", github(map[string]string{"GITHUB_REF": "refs/heads/" + strings.Repeat("a", 300)}),
			with(func(p *runlog.Provenance) { p.Ref = "" })},
		{"a ref git would refuse", github(map[string]string{"GITHUB_REF": "refs/heads/a..b"}),
			with(func(p *runlog.Provenance) { p.Ref = "" })},
		{"a commit that is not hex", github(map[string]string{"GITHUB_SHA": "$(rm -rf ~)" + strings.Repeat("0", 30)}),
			with(func(p *runlog.Provenance) { p.Commit = "" })},
		{"a short commit", github(map[string]string{"GITHUB_SHA": "abc123"}), with(func(p *runlog.Provenance) { p.Commit = "" })},
		{"javascript: server URL", github(map[string]string{"GITHUB_SERVER_URL": "javascript:alert(1)//"}),
			with(func(p *runlog.Provenance) { p.RunURL = "" })},
		{"server URL with credentials", github(map[string]string{"GITHUB_SERVER_URL": "https://user:token@github.com"}),
			with(func(p *runlog.Provenance) { p.RunURL = "" })},
		{"a run id that is not a number", github(map[string]string{"GITHUB_RUN_ID": "1/../../evil"}),
			with(func(p *runlog.Provenance) { p.RunURL = "" })},
		{"GitLab CI on a branch", map[string]string{"GITLAB_CI": "true", "CI": "true", "CI_PROJECT_PATH": "group/sub/shop", "CI_COMMIT_SHA": sha,
			"CI_COMMIT_BRANCH": "main", "CI_COMMIT_REF_NAME": "main", "CI_JOB_URL": "https://gitlab.com/group/sub/shop/-/jobs/7", "CI_PIPELINE_URL": "https://gitlab.com/group/sub/shop/-/pipelines/3"},
			runlog.Provenance{Provider: GitLabCI, Repository: "group/sub/shop", Commit: sha, Ref: "refs/heads/main", RunURL: "https://gitlab.com/group/sub/shop/-/jobs/7"}},
		{"GitLab CI on a tag, pipeline URL only", map[string]string{"GITLAB_CI": "true", "CI_PROJECT_PATH": "g/shop", "CI_COMMIT_SHA": sha,
			"CI_COMMIT_TAG": "v1.2.0", "CI_PIPELINE_URL": "https://gitlab.example/g/shop/-/pipelines/3"},
			runlog.Provenance{Provider: GitLabCI, Repository: "g/shop", Commit: sha, Ref: "refs/tags/v1.2.0", RunURL: "https://gitlab.example/g/shop/-/pipelines/3"}},
		{"GitLab CI, hostile job URL", map[string]string{"GITLAB_CI": "true", "CI_PROJECT_PATH": "g/shop", "CI_JOB_URL": "data:text/html,<script>"},
			runlog.Provenance{Provider: GitLabCI, Repository: "g/shop"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := FromEnv(env(tt.env))
			if diff := cmp.Diff(tt.want, *got); diff != "" {
				t.Errorf("provenance (-want +got):\n%s", diff)
			}
		})
	}
}

// FuzzFromEnv: whatever the variables hold, every field kept is inert
// text and a run URL is http(s).
func FuzzFromEnv(f *testing.F) {
	f.Add("acme/shop", sha, "refs/heads/main", "https://github.com", "1")
	f.Add("a/b\x1b", "zz", "\u202e", "javascript:x", "-1")
	f.Fuzz(func(t *testing.T, repo, commit, ref, server, id string) {
		p := FromEnv(env(github(map[string]string{"GITHUB_REPOSITORY": repo, "GITHUB_SHA": commit, "GITHUB_REF": ref, "GITHUB_SERVER_URL": server, "GITHUB_RUN_ID": id})))
		for _, v := range []string{p.Repository, p.Commit, p.Ref, p.RunURL} {
			if v != "" && !inert(v, maxURL) {
				t.Fatalf("kept %q", v)
			}
		}
		if p.RunURL != "" && !strings.HasPrefix(p.RunURL, "http://") && !strings.HasPrefix(p.RunURL, "https://") {
			t.Fatalf("run URL %q", p.RunURL)
		}
	})
}
