//go:build unix

package atomicfile

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// childEnv makes the test binary a writer that TestKillBetweenWriteAndRename
// kills.
const childEnv = "ATOMICFILE_TEST_CHILD"

func TestMain(m *testing.M) {
	if path := os.Getenv(childEnv); path != "" {
		os.Exit(writeUntilKilled(path))
	}
	os.Exit(m.Run())
}

// versions are the two complete contents the child alternates between;
// they differ in size so a torn mix of them cannot pass for either.
var versions = [2][]byte{
	bytes.Repeat([]byte("version A, a whole line of it\n"), 20000),
	bytes.Repeat([]byte("version B, longer lines than version A\n"), 25000),
}

// writeUntilKilled alternates the two versions. Every third write it kills
// itself with SIGKILL between writing the temporary file and renaming it:
// the crash the rename exists for.
func writeUntilKilled(path string) int {
	n := 0
	beforeRename = func(string) error {
		n++
		if n%3 == 0 {
			syscall.Kill(os.Getpid(), syscall.SIGKILL)
		}
		return nil
	}
	for i := 0; ; i++ {
		if err := Write(path, versions[i%2], 0o644); err != nil {
			fmt.Println("error:", err)
			return 2
		}
		fmt.Println(i)
	}
}

// TestKillBetweenWriteAndRename kills writers many times, both from inside
// (between the temporary file's write and the rename) and from outside at
// whatever moment the parent gets to it: the target always holds exactly
// one complete version, and a killed writer's temporary file is removed by
// the next write of the target (the parent's, here), never by the test.
func TestKillBetweenWriteAndRename(t *testing.T) {
	path := filepath.Join(t.TempDir(), "big.skill.md")
	if err := os.WriteFile(path, versions[0], 0o644); err != nil {
		t.Fatal(err)
	}
	selfKilled := 0
	for i := range 40 {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), childEnv+"="+path)
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		lines := bufio.NewScanner(out)
		for range i % 3 {
			if !lines.Scan() {
				break
			}
			if strings.HasPrefix(lines.Text(), "error:") {
				t.Fatal(lines.Text())
			}
		}
		cmd.Process.Kill()
		if err := cmd.Wait(); err != nil && !strings.Contains(err.Error(), "killed") {
			t.Fatalf("child: %v", err)
		}
		got, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, versions[0]) && !bytes.Equal(got, versions[1]) {
			t.Fatalf("after kill %d the file is torn (%d bytes)", i, len(got))
		}
		tmps, _ := filepath.Glob(filepath.Join(filepath.Dir(path), TempPattern(path)))
		switch {
		case len(tmps) > 1:
			t.Fatalf("after kill %d, %d temporary files: a killed writer's leftover outlived the next write", i, len(tmps))
		case len(tmps) == 1:
			selfKilled++
			// The next write, here the parent's, removes the leftover of
			// the killed writer (its process is gone) and replaces the
			// target with a complete version.
			if err := Write(path, versions[0], 0o644); err != nil {
				t.Fatal(err)
			}
			if left, _ := filepath.Glob(filepath.Join(filepath.Dir(path), TempPattern(path))); len(left) > 0 {
				t.Fatalf("the next write left %v", left)
			}
		}
	}
	if selfKilled == 0 {
		t.Error("no kill landed between a write and its rename")
	}
	t.Logf("%d of 40 kills left a temporary file; the next write removed each", selfKilled)
}
