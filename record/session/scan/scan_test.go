package scan

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reelier/reelier/record/session"
	"github.com/reelier/reelier/testkit/testutil"
)

// session lines for the generated sessions.
func toolUse(id, name string) string {
	return fmt.Sprintf(`{"type":"assistant","message":{"content":[{"type":"tool_use","id":%q,"name":%q,"input":{"q":"x"}}]},"timestamp":"2026-07-1%sT10:00:00.000Z"}`+"\n", id, name, id[len(id)-1:])
}

func toolResult(id string) string {
	return fmt.Sprintf(`{"type":"user","message":{"content":[{"tool_use_id":%q,"type":"tool_result","content":"{\"ok\":true}"}]}}`+"\n", id)
}

// sessionWith is a transcript whose calls use the given tools, each with
// its result.
func sessionWith(cwd string, tools ...string) string {
	var b strings.Builder
	fmt.Fprintf(&b, `{"type":"user","message":{"content":"go"},"cwd":%q,"sessionId":"%s-0000"}`+"\n", cwd, filepath.Base(cwd))
	for i, t := range tools {
		id := fmt.Sprintf("t%d", i+1)
		b.WriteString(toolUse(id, t) + toolResult(id))
	}
	return b.String()
}

func fixture(t *testing.T, name string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(testutil.Root(), "testdata", "sessions", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func write(t *testing.T, path, data string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

func symlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
}

// history builds a history directory with every kind of session and
// every kind of bad file.
func history(t *testing.T) string {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "-home-ann-my-app", "2f8e5c1a.jsonl"), fixture(t, "mixed.jsonl"))
	write(t, filepath.Join(dir, "-home-ann-other-app", "9a1b2c3d.jsonl"), fixture(t, "none.jsonl"))
	write(t, filepath.Join(dir, "-tmp-live", "f4985088.jsonl"), fixture(t, "claude-file.jsonl"))
	write(t, filepath.Join(dir, "-home-ann-reports", "r1.jsonl"), sessionWith("/home/ann/reports", "mcp__acme__get_report", "mcp__acme__frobnicate_report", "mcp__acme__frobnicate_report"))
	write(t, filepath.Join(dir, "-home-ann-reports", "nested", "deeper", "r2.jsonl"), sessionWith("/home/ann/reports", "mcp__acme__list_reports", "mcp__acme__frobnicate_report", "mcp__acme__zap"))
	write(t, filepath.Join(dir, "-home-ann-reads", "r3.jsonl"), sessionWith("/home/ann/reads", "mcp__crm__get_contact", "http.get"))
	write(t, filepath.Join(dir, "-home-ann-reads", "notes.txt"), "not a transcript")
	write(t, filepath.Join(dir, "binary.jsonl"), "\x7fELF\x02\x01\x01\x00\x00\x00garbage")
	write(t, filepath.Join(dir, "locked.jsonl"), sessionWith("/x", "http.get"))
	symlink(t, "..", filepath.Join(dir, "-home-ann-my-app", "up"))                              // a directory loop
	symlink(t, "b.jsonl", filepath.Join(dir, "a.jsonl"))                                        // a ↔ b
	symlink(t, "a.jsonl", filepath.Join(dir, "b.jsonl"))                                        //
	symlink(t, "nowhere.jsonl", filepath.Join(dir, "dangling.jsonl"))                           // broken
	symlink(t, filepath.Join("-home-ann-reads", "r3.jsonl"), filepath.Join(dir, "again.jsonl")) // a file twice
	return dir
}

// unreadable makes opening the named file fail, as it would for a file
// the user may not read (root can read anything, so chmod cannot).
func unreadable(t *testing.T, name string) {
	t.Cleanup(func() { openFile = os.Open })
	openFile = func(path string) (*os.File, error) {
		if filepath.Base(path) == name {
			return nil, &fs.PathError{Op: "open", Path: path, Err: fs.ErrPermission}
		}
		return os.Open(path)
	}
}

// TestScan pins the summary, the stats and the listing of a history that
// holds every kind of session and every kind of bad file.
func TestScan(t *testing.T) {
	dir := history(t)
	unreadable(t, "locked.jsonl")
	var progress []Progress
	res, err := Scan(dir, Options{Workers: 3, Progress: func(p Progress) { progress = append(progress, p) }})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	res.WriteSummary(&b)
	b.WriteString("\n")
	res.WriteListing(&b)
	testutil.Golden(t).Assert(t, "history", bytes.ReplaceAll(b.Bytes(), []byte(dir), []byte("HISTORY")))
	files := len(progress)
	if files == 0 || progress[files-1].FilesDone != files || progress[files-1].BytesDone != progress[files-1].Bytes {
		t.Errorf("progress does not end at the total: %+v", progress)
	}
	for i, p := range progress {
		if p.FilesDone != i+1 || (i > 0 && p.BytesDone < progress[i-1].BytesDone) {
			t.Errorf("progress call %d goes back or skips: %+v", i, progress)
			break
		}
	}
}

// TestScanAgreesWithFromSession: each listed session is exactly what
// session.Read with Keep (from-session) finds replayable, and each one
// left out has nothing replayable.
func TestScanAgreesWithFromSession(t *testing.T) {
	dir := history(t)
	res, err := Scan(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	listed := map[string]int{}
	for _, e := range res.Replayable {
		listed[e.Path] = e.Calls
	}
	filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.Type()&fs.ModeSymlink != 0 || !strings.HasSuffix(path, ".jsonl") || strings.Contains(path, "binary") {
			return nil
		}
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		s, _ := session.Read(f, session.Options{Keep: true})
		if listed[path] != len(s.Calls) {
			t.Errorf("%s: scan lists %d calls, from-session would compile %d", path, listed[path], len(s.Calls))
		}
		return nil
	})
}

func TestScanErrors(t *testing.T) {
	if _, err := Scan(filepath.Join(t.TempDir(), "missing"), Options{}); err == nil {
		t.Error("a missing directory scanned")
	}
	file := filepath.Join(t.TempDir(), "f.jsonl")
	write(t, file, "{}")
	if _, err := Scan(file, Options{}); err == nil {
		t.Error("a file scanned as a directory")
	}
	res, err := Scan(t.TempDir(), Options{})
	if err != nil || res.Sessions != 0 || res.Replayable != nil {
		t.Errorf("an empty history: %+v, %v", res, err)
	}
}

func TestParseSelection(t *testing.T) {
	tests := []struct {
		in   string
		want string
		err  string
	}{
		{"", "[]", ""},
		{"  \n", "[]", ""},
		{"all", "[0 1 2 3]", ""},
		{"ALL\n", "[0 1 2 3]", ""},
		{"1,3", "[0 2]", ""},
		{" 3 , 1 ,3,", "[0 2]", ""},
		{"2-4", "[1 2 3]", ""},
		{"1,2-3", "[0 1 2]", ""},
		{"5", "", "5 is not in the list (1–4)"},
		{"0", "", "0 is not in the list (1–4)"},
		{"x", "", `"x" is not a number, a range such as 2-4, or "all"`},
		{"3-2", "", `"3-2" runs backwards; write the smaller number first`},
		{"1-", "", `"1-" is not a number, a range such as 2-4, or "all"`},
	}
	for _, tt := range tests {
		got, err := ParseSelection(tt.in, 4)
		switch {
		case tt.err != "":
			if err == nil || err.Error() != tt.err {
				t.Errorf("ParseSelection(%q) error %v, want %q", tt.in, err, tt.err)
			}
		case err != nil:
			t.Errorf("ParseSelection(%q): %v", tt.in, err)
		case fmt.Sprint(append([]int{}, got...)) != tt.want:
			t.Errorf("ParseSelection(%q) = %v, want %s", tt.in, got, tt.want)
		}
	}
}
