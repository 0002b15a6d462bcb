package serve

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"mime"
	"net/url"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/reelier/reelier/lang/agentskill"
	"github.com/reelier/reelier/lang/ast"
	"github.com/reelier/reelier/lang/grammar"
)

// This file offers the working directory's skills through the MCP Skills
// extension: skills/list and skills/get describe each skill (its
// frontmatter and a manifest of its files with their SHA-256 digests),
// every file is a skill:// resource read with resources/read, and
// resources/directory/read lists a folder of a skill.
//
// What is served, and under which URI:
//
//   - A folder holding a SKILL.md (the Agent Skills layout, with or without
//     Reelier steps) is the skill skill://<folder>/SKILL.md, <folder> being
//     its path inside the working directory; its last segment must equal
//     the frontmatter name. Every regular file below the folder is one of
//     its files, nested skills' files included.
//   - A <file>.skill.md is a skill of one file, skill://<dir>/<name>/SKILL.md,
//     <dir> being the folder the file is in and <name> its frontmatter name.
//     Nothing may exist at <dir>/<name>, so that the skill's folder is its
//     own.
//
// Left out: a skill whose frontmatter does not parse (a grammar error in
// it, or YAML that does not read it), whose name is not a valid Agent
// Skills name or does not match its folder, a SKILL.md at the top of the
// working directory (its skill would be the whole directory), a skill
// over the extension's limits, a skill that would claim a URI another
// skill already serves with other content (folder skills come first),
// and, in every folder, symbolic links, names that start with a dot and
// the folders the other tools skip (.git, node_modules).

// SkillsExtension is the identifier of the MCP Skills extension.
const SkillsExtension = "io.modelcontextprotocol/skills"

// The extension's methods, and the scheme of the resources it serves.
const (
	methodListSkills    = "skills/list"
	methodGetSkill      = "skills/get"
	methodReadDirectory = "resources/directory/read"
	skillScheme         = "skill://"
)

// The limits the extension sets for one skill, and the page size of
// skills/list.
const (
	maxSkillFiles    = 512
	maxSkillBytes    = 16 << 20
	defaultSkillPage = 50
)

// skillMIME is the type of a SKILL.md; directoryMIME marks a folder.
const (
	skillMIME     = "text/markdown"
	directoryMIME = "inode/directory"
)

// SkillEntry describes one skill: the URI of its SKILL.md, its
// frontmatter as JSON and every file it holds.
type SkillEntry struct {
	URI         string         `json:"uri"`
	Frontmatter ast.OrderedMap `json:"frontmatter"`
	Resources   []SkillFile    `json:"resources"`
}

// SkillFile is one file of a skill, with the SHA-256 digest
// ("sha256:<64 lower-case hex digits>") and length of its bytes.
type SkillFile struct {
	URI    string `json:"uri"`
	Digest string `json:"digest"`
	Size   int    `json:"size"`
}

// ListSkillsParams are the parameters of skills/list.
type ListSkillsParams struct {
	mcp.ParamsBase
	Cursor string `json:"cursor,omitempty"`
}

// ListSkillsResult is one page of skills/list.
type ListSkillsResult struct {
	mcp.ResultBase
	mcp.Cacheable
	ResultType string       `json:"resultType"`
	Skills     []SkillEntry `json:"skills"`
	NextCursor string       `json:"nextCursor,omitempty"`
}

// GetSkillParams are the parameters of skills/get.
type GetSkillParams struct {
	mcp.ParamsBase
	URI string `json:"uri"`
}

// GetSkillResult is the answer of skills/get.
type GetSkillResult struct {
	mcp.ResultBase
	mcp.Cacheable
	ResultType string     `json:"resultType"`
	Skill      SkillEntry `json:"skill"`
}

// ReadDirectoryParams are the parameters of resources/directory/read.
type ReadDirectoryParams struct {
	mcp.ParamsBase
	URI    string `json:"uri"`
	Cursor string `json:"cursor,omitempty"`
}

// ReadDirectoryResult lists the direct children of a folder of a skill.
type ReadDirectoryResult struct {
	mcp.ResultBase
	ResultType string          `json:"resultType"`
	Resources  []*mcp.Resource `json:"resources"`
	NextCursor string          `json:"nextCursor,omitempty"`
}

// complete is the resultType of every answer: none asks for more input.
const complete = "complete"

// skillsCacheable is what every answer says about caching: the files can
// change at any moment, and the folder may hold what is not for sharing.
var skillsCacheable = mcp.Cacheable{TTLMs: 0, CacheScope: "private"}

// serverCapabilities declares what the SDK would (logging, and tools as
// it infers them from the tools added) plus the Skills extension with
// directory reads, and resources without change notifications (the server
// does not watch the folder). No prompts and no completions: the server
// has none, and refuseUndeclared answers their methods accordingly.
func serverCapabilities() *mcp.ServerCapabilities {
	caps := &mcp.ServerCapabilities{
		Logging:   &mcp.LoggingCapabilities{},
		Resources: &mcp.ResourceCapabilities{},
		Tools:     &mcp.ToolCapabilities{ListChanged: true},
	}
	caps.AddExtension(SkillsExtension, map[string]any{"directoryRead": true})
	return caps
}

// addSkillsExtension registers the extension's methods and the skill://
// resource template.
func (s *Server) addSkillsExtension() error {
	s.mcp.AddResourceTemplate(&mcp.ResourceTemplate{
		URITemplate: skillScheme + "{+path}",
		Name:        "skill-files",
		Title:       "Skill files",
		Description: "The files of the skills in the working directory (skills/list names them): skill://<skill path>/SKILL.md and the files beside it.",
	}, s.readSkillResource)
	return errors.Join(
		mcp.AddReceivingCustomMethod(s.mcp, methodListSkills, s.listSkills),
		mcp.AddReceivingCustomMethod(s.mcp, methodGetSkill, s.getSkill),
		mcp.AddReceivingCustomMethod(s.mcp, methodReadDirectory, s.readDirectory),
	)
}

// invalidParams is the error the extension answers a request with when it
// names nothing the server serves.
func invalidParams(format string, args ...any) error {
	return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf(format, args...)}
}

func internalError(err error) error {
	return &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: err.Error()}
}

func (s *Server) listSkills(_ context.Context, _ *mcp.ServerSession, p *ListSkillsParams) (*ListSkillsResult, error) {
	var after string
	if p != nil && p.Cursor != "" {
		b, err := base64.RawURLEncoding.DecodeString(p.Cursor)
		if err != nil || !strings.HasPrefix(string(b), skillScheme) {
			return nil, invalidParams("cursor %q is not one skills/list gave", p.Cursor)
		}
		after = string(b)
	}
	idx, err := s.indexSkills()
	if err != nil {
		return nil, internalError(err)
	}
	page := s.skillsPage
	if page <= 0 {
		page = defaultSkillPage
	}
	res := &ListSkillsResult{Cacheable: skillsCacheable, ResultType: complete, Skills: []SkillEntry{}}
	for _, sk := range idx.skills {
		if sk.uri <= after {
			continue
		}
		if len(res.Skills) == page {
			last := res.Skills[len(res.Skills)-1].URI
			res.NextCursor = base64.RawURLEncoding.EncodeToString([]byte(last))
			break
		}
		e, err := s.skillEntry(sk)
		if err != nil {
			// A file went away since the walk: the skill is no longer
			// whole, so this listing leaves it out.
			continue
		}
		res.Skills = append(res.Skills, e)
	}
	return res, nil
}

func (s *Server) getSkill(_ context.Context, _ *mcp.ServerSession, p *GetSkillParams) (*GetSkillResult, error) {
	if p == nil || p.URI == "" {
		return nil, invalidParams("skills/get needs uri, the URI of a skill's SKILL.md")
	}
	uri, err := canonicalSkillURI(p.URI)
	if err != nil {
		return nil, invalidParams("no skill is served at %s: %v", p.URI, err)
	}
	idx, err := s.indexSkills()
	if err != nil {
		return nil, internalError(err)
	}
	sk := idx.byURI[uri]
	if sk == nil {
		return nil, invalidParams("no skill is served at %s; skills/list names the skills this server serves", p.URI)
	}
	e, err := s.skillEntry(sk)
	if err != nil {
		return nil, internalError(err)
	}
	return &GetSkillResult{Cacheable: skillsCacheable, ResultType: complete, Skill: e}, nil
}

// readSkillResource answers resources/read for a skill:// URI: the bytes
// of a file the skills list, as text when they are UTF-8, else as a blob.
func (s *Server) readSkillResource(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	given := req.Params.URI
	uri, err := canonicalSkillURI(given)
	if err != nil {
		return nil, mcp.ResourceNotFoundError(given)
	}
	idx, err := s.indexSkills()
	if err != nil {
		return nil, internalError(err)
	}
	f, ok := idx.files[uri]
	if !ok {
		return nil, mcp.ResourceNotFoundError(given)
	}
	data, err := s.work.root.ReadFile(filepath.FromSlash(f.rel))
	if err != nil {
		return nil, internalError(fmt.Errorf("%s: %w", f.rel, err))
	}
	c := &mcp.ResourceContents{URI: uri, MIMEType: f.mime}
	if utf8.Valid(data) {
		c.Text = string(data)
	} else {
		c.Blob = data
	}
	return &mcp.ReadResourceResult{Cacheable: skillsCacheable, Contents: []*mcp.ResourceContents{c}}, nil
}

// readDirectory answers resources/directory/read for a folder of a skill:
// its files and folders, one level deep, in one page.
func (s *Server) readDirectory(_ context.Context, _ *mcp.ServerSession, p *ReadDirectoryParams) (*ReadDirectoryResult, error) {
	if p == nil || p.URI == "" {
		return nil, invalidParams("resources/directory/read needs uri, the URI of a folder of a skill")
	}
	if p.Cursor != "" {
		return nil, invalidParams("cursor %q is not one this server gave: folder listings come in one page", p.Cursor)
	}
	uri, err := canonicalSkillURI(p.URI)
	if err != nil {
		return nil, invalidParams("no folder is served at %s: %v", p.URI, err)
	}
	idx, err := s.indexSkills()
	if err != nil {
		return nil, internalError(err)
	}
	if _, ok := idx.files[uri]; ok {
		return nil, invalidParams("%s is a file, not a directory resource; read it with resources/read", p.URI)
	}
	if !idx.dirs[uri] {
		return nil, invalidParams("no folder of a skill is served at %s", p.URI)
	}
	prefix := uri + "/"
	seen := map[string]bool{}
	res := &ReadDirectoryResult{ResultType: complete, Resources: []*mcp.Resource{}}
	add := func(child string, r *mcp.Resource) {
		if !seen[child] {
			seen[child] = true
			res.Resources = append(res.Resources, r)
		}
	}
	for u, f := range idx.files {
		if rest, ok := strings.CutPrefix(u, prefix); ok && !strings.Contains(rest, "/") {
			add(u, &mcp.Resource{URI: u, Name: unescapeSegment(rest), MIMEType: f.mime, Size: f.size})
		}
	}
	for u := range idx.dirs {
		if rest, ok := strings.CutPrefix(u, prefix); ok && !strings.Contains(rest, "/") {
			add(u, &mcp.Resource{URI: u, Name: unescapeSegment(rest), MIMEType: directoryMIME})
		}
	}
	slices.SortFunc(res.Resources, func(a, b *mcp.Resource) int { return strings.Compare(a.URI, b.URI) })
	return res, nil
}

// servedSkill is a skill the extension serves, as the walk found it.
type servedSkill struct {
	// uri is the URI of its SKILL.md.
	uri string
	// file is the skill file (SKILL.md or x.skill.md), relative to the
	// working directory with "/" separators, and src its bytes as read.
	file string
	src  []byte
	// frontmatter is the frontmatter as JSON-ready data.
	frontmatter ast.OrderedMap
	// files are every file of the skill, its SKILL.md first; dirs are the
	// URIs of its folders, its own included.
	files []*servedFile
	dirs  []string
}

// servedFile is one file of a skill.
type servedFile struct {
	uri  string
	rel  string // relative to the working directory, "/" separators
	size int64  // as the walk saw it
	mime string
}

// skillIndex is every skill the extension serves, looked up by URI.
type skillIndex struct {
	// skills are sorted by URI.
	skills []*servedSkill
	byURI  map[string]*servedSkill
	// files holds every file URI of every skill, dirs every folder URI.
	files map[string]*servedFile
	dirs  map[string]bool
}

// indexSkills walks the working directory for skills (the walk
// reelier_find_skill and reelier_lint use) and keeps those the extension
// can serve. It is built afresh for every request, so an answer is never
// staler than the files.
func (s *Server) indexSkills() (*skillIndex, error) {
	paths, err := skillFiles(s.work.dir)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", s.work.dir, err)
	}
	// Folder skills claim their URIs before single-file ones.
	var folders, singles []*servedSkill
	for _, p := range paths {
		sk := s.extensionSkill(p)
		switch {
		case sk == nil:
		case path.Base(sk.file) == "SKILL.md":
			folders = append(folders, sk)
		default:
			singles = append(singles, sk)
		}
	}
	idx := &skillIndex{byURI: map[string]*servedSkill{}, files: map[string]*servedFile{}, dirs: map[string]bool{}}
	for _, sk := range append(folders, singles...) {
		if idx.conflicts(sk) {
			continue
		}
		idx.skills = append(idx.skills, sk)
		idx.byURI[sk.uri] = sk
		for _, f := range sk.files {
			idx.files[f.uri] = f
		}
		for _, d := range sk.dirs {
			idx.dirs[d] = true
		}
	}
	slices.SortFunc(idx.skills, func(a, b *servedSkill) int { return strings.Compare(a.uri, b.uri) })
	return idx, nil
}

// conflicts reports whether sk would serve a URI the index already serves
// with other content, or a file URI that is a folder there (or the
// reverse).
func (idx *skillIndex) conflicts(sk *servedSkill) bool {
	if idx.byURI[sk.uri] != nil {
		return true
	}
	for _, f := range sk.files {
		if have, ok := idx.files[f.uri]; ok && have.rel != f.rel || idx.dirs[f.uri] {
			return true
		}
	}
	for _, d := range sk.dirs {
		if _, ok := idx.files[d]; ok {
			return true
		}
	}
	return false
}

// extensionSkill reads the skill file at the absolute path p and returns the
// skill it serves, or nil when the extension cannot serve it.
func (s *Server) extensionSkill(p string) *servedSkill {
	rel, ok := s.work.contains(p)
	if !ok {
		return nil
	}
	if info, err := s.work.root.Lstat(rel); err != nil || !info.Mode().IsRegular() {
		return nil
	}
	src, err := s.work.root.ReadFile(rel)
	if err != nil {
		return nil
	}
	file := filepath.ToSlash(rel)
	sk, diags := grammar.Parse(file, src)
	if !frontmatterSound(sk, diags) {
		return nil
	}
	fm, ok := frontmatterJSON(sk)
	if !ok {
		return nil
	}
	name, _ := fm.Get("name").(string)
	desc, _ := fm.Get("description").(string)
	if len(agentskill.NameProblems(name)) > 0 || strings.TrimSpace(desc) == "" {
		return nil
	}
	served := &servedSkill{file: file, src: src, frontmatter: fm}
	dir := path.Dir(file)
	var skillPath string
	if path.Base(file) == "SKILL.md" {
		if dir == "." || path.Base(dir) != name {
			return nil
		}
		skillPath = dir
		if !s.folderFiles(served, skillPath) {
			return nil
		}
	} else {
		skillPath = path.Join(dir, name)
		if _, err := s.work.root.Lstat(filepath.FromSlash(skillPath)); !errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		served.files = []*servedFile{{rel: file, size: int64(len(src)), mime: skillMIME}}
		served.dirs = []string{skillScheme + escapePath(skillPath)}
	}
	served.uri = skillScheme + escapePath(skillPath) + "/SKILL.md"
	served.files[0].uri = served.uri
	return served
}

// folderFiles lists the files and folders of the folder skill at dir (a
// path inside the working directory) into sk, its SKILL.md first, and
// reports whether the skill stays within the extension's limits. The walk
// goes through the working directory's os.Root and never follows a link.
func (s *Server) folderFiles(sk *servedSkill, dir string) bool {
	var total int64
	skill := &servedFile{rel: sk.file, size: int64(len(sk.src)), mime: skillMIME}
	sk.files = []*servedFile{skill}
	err := fs.WalkDir(s.work.root.FS(), dir, func(p string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			return err
		case p != dir && (strings.HasPrefix(d.Name(), ".") || skipDir(d.Name())):
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		case d.IsDir():
			sk.dirs = append(sk.dirs, skillScheme+escapePath(p))
			return nil
		case !d.Type().IsRegular() || p == sk.file:
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		total += info.Size()
		sk.files = append(sk.files, &servedFile{uri: skillScheme + escapePath(p), rel: p, size: info.Size(), mime: fileMIME(p)})
		if len(sk.files) > maxSkillFiles || total+skill.size > maxSkillBytes {
			return errTooBig
		}
		return nil
	})
	return err == nil
}

// errTooBig stops the walk of a skill over the extension's limits.
var errTooBig = errors.New("the skill is over the limits of the Skills extension")

// skillEntry builds the entry of a served skill, reading and hashing
// every file; the SKILL.md is hashed as it was read and parsed.
func (s *Server) skillEntry(sk *servedSkill) (SkillEntry, error) {
	e := SkillEntry{URI: sk.uri, Frontmatter: sk.frontmatter, Resources: make([]SkillFile, 0, len(sk.files))}
	for i, f := range sk.files {
		data := sk.src
		if i > 0 {
			var err error
			if data, err = s.work.root.ReadFile(filepath.FromSlash(f.rel)); err != nil {
				return SkillEntry{}, fmt.Errorf("%s: %w", f.rel, err)
			}
		}
		sum := sha256.Sum256(data)
		e.Resources = append(e.Resources, SkillFile{URI: f.uri, Digest: "sha256:" + hex.EncodeToString(sum[:]), Size: len(data)})
	}
	return e, nil
}

// frontmatterSound reports whether the skill has a frontmatter block the
// grammar found no error in.
func frontmatterSound(sk *ast.Skill, diags ast.Diagnostics) bool {
	if sk == nil || sk.Frontmatter == nil {
		return false
	}
	end := sk.Frontmatter.Range.End
	for _, d := range diags {
		st := d.Range.Start
		if d.Severity == ast.SeverityError && (st.Line < end.Line || st.Line == end.Line && st.Column < end.Column) {
			return false
		}
	}
	return true
}

// frontmatterJSON is the skill's frontmatter as JSON-ready data, as the
// grammar read it (ast.Frontmatter.Data: YAML's types, keys in file
// order). ok is false when a host reading the YAML would not read the same
// thing: a line the grammar read the original, flat way.
func frontmatterJSON(sk *ast.Skill) (fm ast.OrderedMap, ok bool) {
	for _, e := range sk.Frontmatter.Entries {
		if e.Flat {
			return nil, false
		}
	}
	return sk.Frontmatter.Data(), true
}

// fileMIME is the media type of a supporting file, by its extension;
// "" when it has none the system knows.
func fileMIME(p string) string {
	switch ext := strings.ToLower(path.Ext(p)); ext {
	case ".md", ".markdown":
		return skillMIME
	case "":
		return ""
	default:
		return mime.TypeByExtension(ext)
	}
}

// canonicalSkillURI checks a skill:// URI a client sent and writes it the
// way the index does (each segment percent-encoded the same way). A
// segment that is empty, "." or "..", in any encoding, is refused, as are
// a query and a fragment: such a URI names nothing the server serves.
func canonicalSkillURI(uri string) (string, error) {
	rest, ok := strings.CutPrefix(uri, skillScheme)
	if !ok {
		return "", fmt.Errorf("not a %s URI", strings.TrimSuffix(skillScheme, "//"))
	}
	if strings.ContainsAny(rest, "?#") {
		return "", errors.New("a skill URI has no query or fragment")
	}
	segs := strings.Split(rest, "/")
	for i, seg := range segs {
		dec, err := url.PathUnescape(seg)
		if err != nil {
			return "", err
		}
		if dec == "" || dec == "." || dec == ".." || strings.ContainsAny(dec, "/\\\x00") {
			return "", fmt.Errorf("segment %q is not a file or folder name", seg)
		}
		segs[i] = escapeSegment(dec)
	}
	return skillScheme + strings.Join(segs, "/"), nil
}

// escapePath percent-encodes each segment of a "/"-separated path.
func escapePath(p string) string {
	segs := strings.Split(p, "/")
	for i, s := range segs {
		segs[i] = escapeSegment(s)
	}
	return strings.Join(segs, "/")
}

// escapeSegment percent-encodes every byte of s but the unreserved
// characters of RFC 3986 (letters, digits, "-", ".", "_", "~"), so a
// segment is valid in the authority as well as in the path.
func escapeSegment(s string) string {
	var b strings.Builder
	for i := range len(s) {
		c := s[i]
		if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '.' || c == '_' || c == '~' {
			b.WriteByte(c)
		} else {
			fmt.Fprintf(&b, "%%%02X", c)
		}
	}
	return b.String()
}

// unescapeSegment decodes a segment the index encoded.
func unescapeSegment(s string) string {
	dec, err := url.PathUnescape(s)
	if err != nil {
		return s
	}
	return dec
}
