package integrations_test

import (
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/reelier/reelier/"

// goList returns each package of the module with its project imports
// outside its tests, as go list reports them.
func goList(t *testing.T) map[string][]string {
	t.Helper()
	cmd := exec.Command("go", "list", "-f", "{{.ImportPath}} {{join .Imports \" \"}}", "./...")
	cmd.Dir = ".."
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	pkgs := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		var deps []string
		for _, d := range f[1:] {
			if p, ok := strings.CutPrefix(d, module); ok {
				deps = append(deps, p)
			}
		}
		pkgs[strings.TrimPrefix(f[0], module)] = deps
	}
	return pkgs
}

var ticked = regexp.MustCompile("`([^`]+)`")

// docTable returns the rows of the Markdown table that follows heading in
// docs/architecture.md, each as its cells.
func docTable(t *testing.T, heading string) [][]string {
	t.Helper()
	doc, err := os.ReadFile("../docs/architecture.md")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(doc), "\n"+heading+"\n")
	if !ok {
		t.Fatalf("docs/architecture.md has no %q", heading)
	}
	var rows [][]string
	started := false
	for _, line := range strings.Split(rest, "\n") {
		if !strings.HasPrefix(line, "|") {
			if started {
				break
			}
			continue
		}
		started = true
		cells := strings.Split(strings.Trim(strings.TrimSpace(line), "|"), " | ")
		if len(cells) < 2 || strings.HasPrefix(cells[0], " ---") || strings.HasPrefix(cells[0], "---") {
			continue
		}
		for i := range cells {
			cells[i] = strings.TrimSpace(cells[i])
		}
		rows = append(rows, cells)
	}
	return rows[1:] // the header
}

// ownerOf returns the row name that covers pkg: the package itself, or the
// longest "prefix/…" above it.
func ownerOf(names []string, pkg string) string {
	best := ""
	for _, n := range names {
		if n == pkg {
			return n
		}
		if p, ok := strings.CutSuffix(n, "/…"); ok && strings.HasPrefix(pkg, p+"/") && len(n) > len(best) {
			best = n
		}
	}
	return best
}

// TestArchitectureTable: docs/architecture.md's package table names every
// package of the module, and its imports column is exactly what go list
// says each imports (outside its tests), so the picture cannot drift from
// the code again.
func TestArchitectureTable(t *testing.T) {
	pkgs := goList(t)
	rows := docTable(t, "## Packages and their imports")
	doc := map[string][]string{}
	var names []string
	for _, r := range rows {
		if len(r) != 3 {
			t.Errorf("row %q: want 3 cells", r)
			continue
		}
		m := ticked.FindStringSubmatch(r[0])
		if m == nil {
			t.Errorf("row %q names no package", r[0])
			continue
		}
		var deps []string
		for _, d := range ticked.FindAllStringSubmatch(r[2], -1) {
			deps = append(deps, d[1])
		}
		doc[m[1]] = deps
		names = append(names, m[1])
	}
	want := map[string][]string{}
	for pkg, deps := range pkgs {
		owner := ownerOf(names, pkg)
		if owner == "" {
			t.Errorf("package %s has no row in docs/architecture.md", pkg)
			continue
		}
		want[owner] = append(want[owner], deps...)
	}
	for _, name := range names {
		got := slices.Sorted(slices.Values(doc[name]))
		w := slices.Compact(slices.Sorted(slices.Values(want[name])))
		if _, ok := want[name]; !ok {
			t.Errorf("docs/architecture.md has a row for %s, which is not a package of the module", name)
			continue
		}
		if !slices.Equal(got, w) {
			t.Errorf("%s: the table says it imports %v; go list says %v", name, got, w)
		}
	}
}

// TestImportsPointDown: every import goes to a package on the same floor
// of docs/architecture.md's Floors table or below it; an import that runs
// back up is named.
func TestImportsPointDown(t *testing.T) {
	pkgs := goList(t)
	floor := map[string]int{}
	var names []string
	for i, r := range docTable(t, "## Floors") {
		for _, m := range ticked.FindAllStringSubmatch(r[1], -1) {
			if _, dup := floor[m[1]]; dup {
				t.Errorf("%s stands on two floors", m[1])
			}
			floor[m[1]] = i + 1
			names = append(names, m[1])
		}
	}
	of := func(pkg string) int {
		if o := ownerOf(names, pkg); o != "" {
			return floor[o]
		}
		return 0
	}
	up := 0
	for _, pkg := range slices.Sorted(func(yield func(string) bool) {
		for p := range pkgs {
			if !yield(p) {
				return
			}
		}
	}) {
		f := of(pkg)
		if f == 0 {
			t.Errorf("package %s stands on no floor", pkg)
			continue
		}
		for _, d := range pkgs[pkg] {
			if of(d) > f {
				up++
				t.Errorf("%s (floor %d) imports %s (floor %d): an import that runs back up", pkg, f, d, of(d))
			}
		}
	}
	t.Logf("%d packages, %d imports that run back up", len(pkgs), up)
}
