package ghworkflow

import (
	"encoding/json"
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/google/shlex"
	"github.com/reelier/reelier/internal/termtext"
)

// maxPackageJSON bounds the package.json Suggest reads.
const maxPackageJSON = 1 << 20

// Suggest is the hint for a server command that names the local path
// lp: when lp lies in an npm package (node_modules/<package>/… in the
// path; its version from that package's package.json, when it is here), the
// published package to start instead, `npx -y name@version` followed by
// the command's words after the path; otherwise the general advice.
func Suggest(command, lp string) string {
	name, version := npmPackage(lp)
	if name == "" {
		return "start the server with a published package (npx -y <package>@<version>) or a path relative to the repository"
	}
	spec := name
	if version != "" {
		spec += "@" + version
	}
	repl := "npx -y " + spec
	if words, err := shlex.Split(command); err == nil {
		for i, w := range words {
			if w == lp {
				if rest := words[i+1:]; len(rest) > 0 {
					repl += " " + strings.Join(rest, " ")
				}
				break
			}
		}
	}
	return "the path is inside the npm package " + termtext.Line(spec) + ": record the server as `" + termtext.Line(repl) + "` (the published package, which the runner downloads) instead"
}

// npmPackage finds the npm package a local path lies in: the package a
// node_modules segment of the path names, with the version its
// package.json says when that file is on this machine and names the same
// package.
func npmPackage(lp string) (name, version string) {
	p := path.Clean(filepath.ToSlash(lp))
	i := strings.LastIndex(p, "/node_modules/")
	if i < 0 {
		return "", ""
	}
	root := p[:i+len("/node_modules/")]
	parts := strings.Split(p[len(root):], "/")
	switch {
	case len(parts) >= 2 && strings.HasPrefix(parts[0], "@") && validPackageWord(parts[0][1:]) && validPackageWord(parts[1]):
		name = parts[0] + "/" + parts[1]
	case len(parts) >= 1 && validPackageWord(parts[0]):
		name = parts[0]
	default:
		return "", ""
	}
	if n, v, ok := readPackageJSON(filepath.FromSlash(root + name + "/package.json")); ok && n == name {
		version = v
	}
	return name, version
}

// readPackageJSON reads a package.json's name and version; ok only when
// the file is there and names a package npm could publish.
func readPackageJSON(p string) (name, version string, ok bool) {
	f, err := os.Open(p)
	if err != nil {
		return "", "", false
	}
	defer f.Close()
	var pkg struct{ Name, Version string }
	if err := json.NewDecoder(io.LimitReader(f, maxPackageJSON)).Decode(&pkg); err != nil {
		return "", "", false
	}
	n := pkg.Name
	if scope, rest, scoped := strings.Cut(n, "/"); scoped {
		if !strings.HasPrefix(scope, "@") || !validPackageWord(scope[1:]) || !validPackageWord(rest) {
			return "", "", false
		}
	} else if !validPackageWord(n) {
		return "", "", false
	}
	if !validVersion(pkg.Version) {
		pkg.Version = ""
	}
	return n, pkg.Version, true
}

// validPackageWord is npm's rule for a package name or scope, kept
// strict: lower-case letters, digits and - . _ ~, not starting with . or _.
func validPackageWord(s string) bool {
	if s == "" || len(s) > 214 || s[0] == '.' || s[0] == '_' {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || strings.ContainsRune("-._~", r)) {
			return false
		}
	}
	return true
}

// validVersion accepts a plain semantic version (digits, dots, and a
// pre-release or build suffix of letters, digits, . - +).
func validVersion(s string) bool {
	if s == "" || len(s) > 64 || s[0] < '0' || s[0] > '9' {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune(".-+", r)) {
			return false
		}
	}
	return true
}
