package serve

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The Skills extension as a client sees it on the wire. The result types
// are the test's own, so a field the server names wrongly or leaves out
// shows up here.

type wireFile struct {
	URI    string `json:"uri"`
	Digest string `json:"digest"`
	Size   int    `json:"size"`
}

type wireSkill struct {
	URI         string         `json:"uri"`
	Frontmatter map[string]any `json:"frontmatter"`
	Resources   []wireFile     `json:"resources"`
}

type wireList struct {
	mcp.ResultBase
	ResultType string      `json:"resultType"`
	TTLMs      *int        `json:"ttlMs"`
	CacheScope string      `json:"cacheScope"`
	Skills     []wireSkill `json:"skills"`
	NextCursor string      `json:"nextCursor"`
}

type wireGet struct {
	mcp.ResultBase
	ResultType string    `json:"resultType"`
	TTLMs      *int      `json:"ttlMs"`
	CacheScope string    `json:"cacheScope"`
	Skill      wireSkill `json:"skill"`
}

type wireDir struct {
	mcp.ResultBase
	ResultType string          `json:"resultType"`
	Resources  []*mcp.Resource `json:"resources"`
}

// skillsClient connects a go-sdk client that knows the extension's
// methods over tr.
func skillsClient(t *testing.T, tr mcp.Transport) *mcp.ClientSession {
	t.Helper()
	c := mcp.NewClient(&mcp.Implementation{Name: "skills-test", Version: "1.0.0"}, nil)
	if err := errors.Join(
		mcp.AddSendingCustomMethod[*ListSkillsParams, *wireList](c, methodListSkills),
		mcp.AddSendingCustomMethod[*GetSkillParams, *wireGet](c, methodGetSkill),
		mcp.AddSendingCustomMethod[*ReadDirectoryParams, *wireDir](c, methodReadDirectory),
	); err != nil {
		t.Fatal(err)
	}
	cs, err := c.Connect(t.Context(), tr, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// skillsServer starts a server on dir over in-memory transports, with a
// skills/list page of page skills (0: the default), and returns a client
// session on it.
func skillsServer(t *testing.T, dir string, page int) *mcp.ClientSession {
	t.Helper()
	srv, err := New(Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	srv.skillsPage = page
	ct, st := mcp.NewInMemoryTransports()
	ss, err := srv.mcp.Connect(t.Context(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	return skillsClient(t, ct)
}

func listSkills(t *testing.T, cs *mcp.ClientSession, cursor string) *wireList {
	t.Helper()
	res, err := mcp.CallCustomMethod[*ListSkillsParams, *wireList](t.Context(), cs, methodListSkills, &ListSkillsParams{Cursor: cursor})
	if err != nil {
		t.Fatalf("skills/list (cursor %q): %v", cursor, err)
	}
	return res
}

// allSkills pages through skills/list.
func allSkills(t *testing.T, cs *mcp.ClientSession) []wireSkill {
	t.Helper()
	var out []wireSkill
	cursor := ""
	for range 100 {
		page := listSkills(t, cs, cursor)
		out = append(out, page.Skills...)
		if cursor = page.NextCursor; cursor == "" {
			return out
		}
	}
	t.Fatal("skills/list never stopped giving a cursor")
	return nil
}

// wantCode checks that err is a JSON-RPC error with the code, and
// returns its message.
func wantCode(t *testing.T, err error, code int64) string {
	t.Helper()
	var we *jsonrpc.Error
	if !errors.As(err, &we) {
		t.Fatalf("want a JSON-RPC error %d, got %v", code, err)
	}
	if we.Code != code {
		t.Errorf("error code %d (%s), want %d", we.Code, we.Message, code)
	}
	return we.Message
}

// digestOf is the digest the extension gives the bytes of the file at p.
func digestOf(t *testing.T, p string) (string, int) {
	t.Helper()
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(data)
	return "sha256:" + hex.EncodeToString(sum[:]), len(data)
}

// readResource reads a resource and returns its bytes and media type.
func readResource(t *testing.T, cs *mcp.ClientSession, uri string) ([]byte, string) {
	t.Helper()
	res, err := cs.ReadResource(t.Context(), &mcp.ReadResourceParams{URI: uri})
	if err != nil {
		t.Fatalf("resources/read %s: %v", uri, err)
	}
	if len(res.Contents) != 1 {
		t.Fatalf("resources/read %s: %d contents, want 1", uri, len(res.Contents))
	}
	c := res.Contents[0]
	if c.URI != uri {
		t.Errorf("resources/read %s: the contents say %s", uri, c.URI)
	}
	if c.Blob != nil {
		return c.Blob, c.MIMEType
	}
	return []byte(c.Text), c.MIMEType
}

// pdfSkill is a folder skill with Reelier steps, a reference and an asset.
const pdfSkill = `---
name: pdf-tools
description: "Fill a PDF form: read references/FORMS.md first"
license: Apache-2.0
---

Read [the form guide](references/FORMS.md) before step 1.

## Steps

### Step 1 — Fetch the blank form
- intent: Fetch the form to fill
- action: http.get {"url": "https://forms.example.com/blank.pdf"}
- assert: status == 200
- effect: read
`

// noteSkill is an ordinary Agent Skill: no Reelier steps, a metadata map.
const noteSkill = `---
name: note-taking
description: Take meeting notes in the team's format
license: MIT
allowed-tools: Read Write
metadata:
  author: ops
  version: "1.0"
  reviewed: 2024-05-01
---

# Note taking

Write the notes under three headings: decisions, actions, open questions.
`

// skillsWorkDir is a working directory with a single-file skill, a folder
// skill with supporting files (and a hidden file and a link out that must
// not be served), an ordinary Agent Skill and a SKILL.md linked from
// outside. It returns the directory and the outside one.
func skillsWorkDir(t *testing.T) (string, string) {
	t.Helper()
	dir, outside := t.TempDir(), t.TempDir()
	writeFiles(t, dir, map[string]string{
		"bookings.skill.md":                    bookingsSkill,
		"skills/pdf-tools/SKILL.md":            pdfSkill,
		"skills/pdf-tools/references/FORMS.md": "# Forms\n\nBox 1 is the name.\n",
		"skills/pdf-tools/assets/logo.bin":     "\x89PNG\r\n\x1a\n\x00\xff\xfe",
		"skills/pdf-tools/.env":                "TOKEN=do-not-serve\n",
		"docs/note-taking/SKILL.md":            noteSkill,
	})
	writeFiles(t, outside, map[string]string{
		"secret.txt": "outside the working directory\n",
		"SKILL.md":   "---\nname: evil\ndescription: A skill from outside\n---\n\nRead /etc/passwd.\n",
	})
	for link, target := range map[string]string{
		"skills/pdf-tools/leak.txt": filepath.Join(outside, "secret.txt"),
		"skills/evil/SKILL.md":      filepath.Join(outside, "SKILL.md"),
	} {
		p := filepath.Join(dir, filepath.FromSlash(link))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(target, p); err != nil {
			t.Skipf("symbolic links: %v", err)
		}
	}
	return dir, outside
}

// TestSkillsExtension drives the extension with a real client: the
// declaration, the listing with frontmatter and digests, skills/get, the
// files through resources/read, folders, and every refusal.
func TestSkillsExtension(t *testing.T) {
	dir, _ := skillsWorkDir(t)
	cs := skillsServer(t, dir, 0)

	caps := cs.InitializeResult().Capabilities
	if got := caps.Extensions[SkillsExtension]; !reflect.DeepEqual(got, map[string]any{"directoryRead": true}) {
		t.Errorf("capabilities.extensions[%q] = %#v, want {directoryRead: true}", SkillsExtension, got)
	}
	if caps.Resources == nil {
		t.Error("the resources capability is not declared; the extension needs it")
	}
	if caps.Tools == nil || caps.Logging == nil {
		t.Errorf("the other capabilities changed: %+v", caps)
	}

	list := listSkills(t, cs, "")
	if list.ResultType != "complete" || list.TTLMs == nil || list.CacheScope != "private" || list.NextCursor != "" {
		t.Errorf("skills/list: resultType %q, ttlMs %v, cacheScope %q, nextCursor %q", list.ResultType, list.TTLMs, list.CacheScope, list.NextCursor)
	}

	// Each skill: its frontmatter as the file has it, and its files as
	// URIs with the path of the bytes they must hold.
	type file struct{ uri, path string }
	want := []struct {
		uri         string
		frontmatter map[string]any
		files       []file
	}{
		{
			uri:         "skill://bookings/SKILL.md",
			frontmatter: map[string]any{"name": "bookings", "description": "List this week's bookings and read the first"},
			files:       []file{{"skill://bookings/SKILL.md", "bookings.skill.md"}},
		},
		{
			uri: "skill://docs/note-taking/SKILL.md",
			frontmatter: map[string]any{
				"name": "note-taking", "description": "Take meeting notes in the team's format", "license": "MIT",
				"allowed-tools": "Read Write", "metadata": map[string]any{"author": "ops", "version": "1.0", "reviewed": "2024-05-01"},
			},
			files: []file{{"skill://docs/note-taking/SKILL.md", "docs/note-taking/SKILL.md"}},
		},
		{
			uri:         "skill://skills/pdf-tools/SKILL.md",
			frontmatter: map[string]any{"name": "pdf-tools", "description": "Fill a PDF form: read references/FORMS.md first", "license": "Apache-2.0"},
			files: []file{
				{"skill://skills/pdf-tools/SKILL.md", "skills/pdf-tools/SKILL.md"},
				{"skill://skills/pdf-tools/assets/logo.bin", "skills/pdf-tools/assets/logo.bin"},
				{"skill://skills/pdf-tools/references/FORMS.md", "skills/pdf-tools/references/FORMS.md"},
			},
		},
	}
	if len(list.Skills) != len(want) {
		t.Fatalf("skills/list gave %d skills, want %d: %+v", len(list.Skills), len(want), list.Skills)
	}
	for i, w := range want {
		got := list.Skills[i]
		if got.URI != w.uri {
			t.Errorf("skill %d is %s, want %s", i, got.URI, w.uri)
			continue
		}
		if !reflect.DeepEqual(got.Frontmatter, w.frontmatter) {
			t.Errorf("%s: frontmatter %#v, want %#v", w.uri, got.Frontmatter, w.frontmatter)
		}
		var wantFiles []wireFile
		for _, f := range w.files {
			digest, size := digestOf(t, filepath.Join(dir, filepath.FromSlash(f.path)))
			wantFiles = append(wantFiles, wireFile{URI: f.uri, Digest: digest, Size: size})
		}
		if !reflect.DeepEqual(got.Resources, wantFiles) {
			t.Errorf("%s: resources\n%+v\nwant\n%+v", w.uri, got.Resources, wantFiles)
		}
		// What a host does before it uses a file: read it and check it
		// against the entry.
		for _, f := range got.Resources {
			data, mimeType := readResource(t, cs, f.URI)
			sum := sha256.Sum256(data)
			if d := "sha256:" + hex.EncodeToString(sum[:]); d != f.Digest || len(data) != f.Size {
				t.Errorf("resources/read %s: %s (%d bytes), the entry says %s (%d bytes)", f.URI, d, len(data), f.Digest, f.Size)
			}
			if strings.HasSuffix(f.URI, "/SKILL.md") && mimeType != "text/markdown" {
				t.Errorf("resources/read %s: mimeType %q, want text/markdown", f.URI, mimeType)
			}
		}

		get, err := mcp.CallCustomMethod[*GetSkillParams, *wireGet](t.Context(), cs, methodGetSkill, &GetSkillParams{URI: w.uri})
		if err != nil {
			t.Errorf("skills/get %s: %v", w.uri, err)
			continue
		}
		if get.ResultType != "complete" || get.TTLMs == nil || get.CacheScope != "private" || !reflect.DeepEqual(get.Skill, got) {
			t.Errorf("skills/get %s: %+v, want the listed entry %+v", w.uri, get, got)
		}
	}

	// Names that are not skills, or lead out, are invalid params.
	for _, uri := range []string{
		"skill://nope/SKILL.md",
		"skill://skills/pdf-tools/references/FORMS.md",
		"skill://skills/evil/SKILL.md",
		"skill://../bookings/SKILL.md",
		"skill://skills/%2e%2e/bookings/SKILL.md",
		"skill://skills/pdf-tools/SKILL.md?x=1",
		"file:///etc/passwd",
		"",
	} {
		_, err := mcp.CallCustomMethod[*GetSkillParams, *wireGet](t.Context(), cs, methodGetSkill, &GetSkillParams{URI: uri})
		msg := wantCode(t, err, jsonrpc.CodeInvalidParams)
		if uri != "" && !strings.Contains(msg, uri) {
			t.Errorf("skills/get %q: the message %q does not name the URI", uri, msg)
		}
	}
	for _, uri := range []string{
		"skill://skills/pdf-tools/leak.txt",
		"skill://skills/pdf-tools/.env",
		"skill://skills/evil/SKILL.md",
		"skill://skills/pdf-tools/%2E%2E/%2E%2E/bookings.skill.md",
		"skill://skills/pdf-tools/..%2F..%2Fbookings.skill.md",
		"skill://../secret.txt",
		"skill://skills/pdf-tools",
		"skill://bookings.skill.md",
	} {
		res, err := cs.ReadResource(t.Context(), &mcp.ReadResourceParams{URI: uri})
		if err == nil {
			t.Errorf("resources/read %s was served: %+v", uri, res.Contents)
			continue
		}
		wantCode(t, err, jsonrpc.CodeInvalidParams)
	}

	// Folders of a skill, one level at a time.
	dirs := []struct {
		uri  string
		want []string // "<name> <mimeType>"
	}{
		{"skill://skills/pdf-tools", []string{"SKILL.md text/markdown", "assets inode/directory", "references inode/directory"}},
		{"skill://skills/pdf-tools/references", []string{"FORMS.md text/markdown"}},
		{"skill://bookings", []string{"SKILL.md text/markdown"}},
	}
	for _, d := range dirs {
		res, err := mcp.CallCustomMethod[*ReadDirectoryParams, *wireDir](t.Context(), cs, methodReadDirectory, &ReadDirectoryParams{URI: d.uri})
		if err != nil {
			t.Errorf("resources/directory/read %s: %v", d.uri, err)
			continue
		}
		var got []string
		for _, r := range res.Resources {
			got = append(got, r.Name+" "+r.MIMEType)
			if r.URI != d.uri+"/"+r.Name {
				t.Errorf("resources/directory/read %s: child %s is not named %s", d.uri, r.URI, r.Name)
			}
		}
		if res.ResultType != "complete" || !reflect.DeepEqual(got, d.want) {
			t.Errorf("resources/directory/read %s: %q (resultType %q), want %q", d.uri, got, res.ResultType, d.want)
		}
	}
	for _, uri := range []string{"skill://skills/pdf-tools/SKILL.md", "skill://skills", "skill://skills/pdf-tools/.git", "skill://../x"} {
		_, err := mcp.CallCustomMethod[*ReadDirectoryParams, *wireDir](t.Context(), cs, methodReadDirectory, &ReadDirectoryParams{URI: uri})
		wantCode(t, err, jsonrpc.CodeInvalidParams)
	}
}

// TestSkillsListPages: a listing in pages of two gives every skill once,
// each page's cursor leading to the next; a made-up cursor is refused.
func TestSkillsListPages(t *testing.T) {
	dir, _ := skillsWorkDir(t)
	cs := skillsServer(t, dir, 2)
	first := listSkills(t, cs, "")
	if len(first.Skills) != 2 || first.NextCursor == "" {
		t.Fatalf("first page: %d skills, cursor %q; want 2 and a cursor", len(first.Skills), first.NextCursor)
	}
	second := listSkills(t, cs, first.NextCursor)
	if len(second.Skills) != 1 || second.NextCursor != "" {
		t.Fatalf("second page: %d skills, cursor %q; want 1 and none", len(second.Skills), second.NextCursor)
	}
	var got []string
	for _, s := range append(first.Skills, second.Skills...) {
		got = append(got, s.URI)
	}
	want := []string{"skill://bookings/SKILL.md", "skill://docs/note-taking/SKILL.md", "skill://skills/pdf-tools/SKILL.md"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("pages gave %q, want %q", got, want)
	}
	_, err := mcp.CallCustomMethod[*ListSkillsParams, *wireList](t.Context(), cs, methodListSkills, &ListSkillsParams{Cursor: "not-a-cursor!"})
	wantCode(t, err, jsonrpc.CodeInvalidParams)
}

// TestSkillsServed: which files the extension serves as skills, under
// which URIs and with which files.
func TestSkillsServed(t *testing.T) {
	skill := func(name, desc string) string {
		return fmt.Sprintf("---\nname: %s\ndescription: %s\n---\n\nDo the thing.\n", name, desc)
	}
	manyFiles := func(n int) map[string]string {
		files := map[string]string{"big/SKILL.md": skill("big", "A skill with many files")}
		for i := range n {
			files[fmt.Sprintf("big/refs/%03d.md", i)] = "x\n"
		}
		return files
	}
	tests := []struct {
		name  string
		files map[string]string
		// links are symbolic links to files or folders outside.
		links map[string]string
		// want maps each served skill's URI to its files' URIs, SKILL.md
		// first, and each file URI to the path it is read from.
		want map[string][]string
		from map[string]string
	}{
		{
			name:  "a folder skill whose folder is not its name",
			files: map[string]string{"skills/foo/SKILL.md": skill("bar", "Mismatched")},
		},
		{
			name:  "no description",
			files: map[string]string{"x.skill.md": "---\nname: x\n---\n\nBody.\n"},
		},
		{
			name:  "a name Agent Skills refuse",
			files: map[string]string{"Bad_Name.skill.md": skill("Bad_Name", "Upper case and an underscore")},
		},
		{
			name:  "a SKILL.md at the top of the working directory",
			files: map[string]string{"SKILL.md": skill("top", "The whole directory")},
		},
		{
			name:  "a value YAML cannot read",
			files: map[string]string{"skills/colon/SKILL.md": skill("colon", "Use it: now")},
		},
		{
			name:  "a key written twice",
			files: map[string]string{"twice.skill.md": "---\nname: twice\ndescription: One\ndescription: Two\n---\n\nBody.\n"},
		},
		{
			name:  "a single-file skill whose folder is taken",
			files: map[string]string{"flows/bookings.skill.md": bookingsSkill, "flows/bookings/notes.txt": "mine\n"},
		},
		{
			name:  "a folder skill before a single file with its path",
			files: map[string]string{"pdf.skill.md": skill("pdf", "The single file"), "pdf/SKILL.md": skill("pdf", "The folder")},
			want:  map[string][]string{"skill://pdf/SKILL.md": {"skill://pdf/SKILL.md"}},
			from:  map[string]string{"skill://pdf/SKILL.md": "pdf/SKILL.md"},
		},
		{
			name:  "two single files with one name: the first serves",
			files: map[string]string{"a.skill.md": skill("same", "First"), "b.skill.md": skill("same", "Second")},
			want:  map[string][]string{"skill://same/SKILL.md": {"skill://same/SKILL.md"}},
			from:  map[string]string{"skill://same/SKILL.md": "a.skill.md"},
		},
		{
			name:  "a Reelier skill whose steps do not parse is still an Agent Skill",
			files: map[string]string{"flows/broken.skill.md": brokenSkill},
			want:  map[string][]string{"skill://flows/broken/SKILL.md": {"skill://flows/broken/SKILL.md"}},
			from:  map[string]string{"skill://flows/broken/SKILL.md": "flows/broken.skill.md"},
		},
		{
			name: "nested skills: the outer one lists the inner one's files",
			files: map[string]string{
				"outer/SKILL.md": skill("outer", "Outer"), "outer/inner/SKILL.md": skill("inner", "Inner"), "outer/inner/ref.md": "r\n",
			},
			want: map[string][]string{
				"skill://outer/SKILL.md":       {"skill://outer/SKILL.md", "skill://outer/inner/SKILL.md", "skill://outer/inner/ref.md"},
				"skill://outer/inner/SKILL.md": {"skill://outer/inner/SKILL.md", "skill://outer/inner/ref.md"},
			},
			from: map[string]string{"skill://outer/inner/SKILL.md": "outer/inner/SKILL.md", "skill://outer/inner/ref.md": "outer/inner/ref.md"},
		},
		{
			name: "hidden files and skipped folders are not part of a skill",
			files: map[string]string{
				"s/SKILL.md": skill("s", "Plain"), "s/.secret": "k\n", "s/.git/config": "c\n", "s/node_modules/x.js": "x\n",
			},
			want: map[string][]string{"skill://s/SKILL.md": {"skill://s/SKILL.md"}},
		},
		{
			name:  "a folder name that needs encoding",
			files: map[string]string{"my skills/tool/SKILL.md": skill("tool", "Spaces in the folder")},
			want:  map[string][]string{"skill://my%20skills/tool/SKILL.md": {"skill://my%20skills/tool/SKILL.md"}},
			from:  map[string]string{"skill://my%20skills/tool/SKILL.md": "my skills/tool/SKILL.md"},
		},
		{
			name:  "CRLF line ends and a byte-order mark",
			files: map[string]string{"crlf.skill.md": "\ufeff---\r\nname: crlf\r\ndescription: Windows line ends\r\n---\r\n\r\nBody.\r\n"},
			want:  map[string][]string{"skill://crlf/SKILL.md": {"skill://crlf/SKILL.md"}},
			from:  map[string]string{"skill://crlf/SKILL.md": "crlf.skill.md"},
		},
		{
			name:  "a SKILL.md linked from outside",
			files: map[string]string{"skills/evil/.keep": ""},
			links: map[string]string{"skills/evil/SKILL.md": "SKILL.md"},
		},
		{
			name:  "a skill folder linked from outside",
			links: map[string]string{"skills/evil": "."},
		},
		{
			name:  "at the file limit",
			files: manyFiles(maxSkillFiles - 1),
			want:  map[string][]string{"skill://big/SKILL.md": nil},
		},
		{
			name:  "over the file limit",
			files: manyFiles(maxSkillFiles),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir, outside := t.TempDir(), t.TempDir()
			writeFiles(t, dir, tt.files)
			writeFiles(t, outside, map[string]string{"SKILL.md": skill("evil", "From outside")})
			for link, target := range tt.links {
				p := filepath.Join(dir, filepath.FromSlash(link))
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.Symlink(filepath.Join(outside, target), p); err != nil {
					t.Skipf("symbolic links: %v", err)
				}
			}
			cs := skillsServer(t, dir, 0)
			got := map[string][]string{}
			for _, s := range allSkills(t, cs) {
				var uris []string
				for _, f := range s.Resources {
					uris = append(uris, f.URI)
					if p, ok := tt.from[f.URI]; ok {
						if digest, _ := digestOf(t, filepath.Join(dir, filepath.FromSlash(p))); f.Digest != digest {
							t.Errorf("%s: the digest is not that of %s", f.URI, p)
						}
					}
				}
				if s.Resources[0].URI != s.URI {
					t.Errorf("%s: the first file is %s, not the SKILL.md", s.URI, s.Resources[0].URI)
				}
				got[s.URI] = uris
			}
			if len(got) != len(tt.want) {
				t.Fatalf("served %q, want %q", keys(got), keys(tt.want))
			}
			for uri, files := range tt.want {
				switch {
				case got[uri] == nil:
					t.Errorf("%s is not served; served %q", uri, keys(got))
				case files == nil:
					// Only the count matters: the limit.
					if len(got[uri]) != maxSkillFiles {
						t.Errorf("%s: %d files, want %d", uri, len(got[uri]), maxSkillFiles)
					}
				case !reflect.DeepEqual(got[uri], files):
					t.Errorf("%s: files %q, want %q", uri, got[uri], files)
				}
			}
			for uri, p := range tt.from {
				data, _ := readResource(t, cs, uri)
				want, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(p)))
				if err != nil {
					t.Fatal(err)
				}
				if string(data) != string(want) {
					t.Errorf("resources/read %s: %q, want the bytes of %s", uri, data, p)
				}
			}
		})
	}
}

func keys(m map[string][]string) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// TestSkillsExtensionHTTP: the extension over the streamable HTTP handler.
func TestSkillsExtensionHTTP(t *testing.T) {
	dir, _ := skillsWorkDir(t)
	srv, err := New(Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	ts := httptest.NewServer(srv.Handler(""))
	t.Cleanup(ts.Close)
	cs := skillsClient(t, &mcp.StreamableClientTransport{Endpoint: ts.URL + Path, MaxRetries: -1})

	if _, ok := cs.InitializeResult().Capabilities.Extensions[SkillsExtension]; !ok {
		t.Errorf("the extension is not declared over HTTP")
	}
	list := listSkills(t, cs, "")
	if len(list.Skills) != 3 || list.Skills[2].URI != "skill://skills/pdf-tools/SKILL.md" {
		t.Fatalf("skills/list over HTTP: %+v", list.Skills)
	}
	forms := list.Skills[2].Resources[2]
	data, _ := readResource(t, cs, forms.URI)
	if digest, size := digestOf(t, filepath.Join(dir, "skills", "pdf-tools", "references", "FORMS.md")); forms.Digest != digest || len(data) != size {
		t.Errorf("FORMS.md over HTTP: %d bytes, entry %+v", len(data), forms)
	}
	_, err = mcp.CallCustomMethod[*GetSkillParams, *wireGet](t.Context(), cs, methodGetSkill, &GetSkillParams{URI: "skill://nope/SKILL.md"})
	wantCode(t, err, jsonrpc.CodeInvalidParams)
	_, err = cs.ReadResource(t.Context(), &mcp.ReadResourceParams{URI: "skill://skills/pdf-tools/leak.txt"})
	wantCode(t, err, jsonrpc.CodeInvalidParams)
}
