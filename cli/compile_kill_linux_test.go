//go:build linux

package cli

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/reelier/reelier/internal/atomicfile"
	"github.com/reelier/reelier/lang/grammar"
	"github.com/reelier/reelier/testkit/testutil"
)

// bigTrace is a trace of n calls, each result naming the previous one's
// id, so the compiled skill has n steps (about 300 bytes each).
func bigTrace(n int) []byte {
	var b bytes.Buffer
	b.WriteString(`{"t":"meta","seq":0,"name":"big","startedAt":"2026-07-18T14:02:00.000Z","wrapped":["srv"]}` + "\n")
	seq := 1
	for i := range n {
		args := fmt.Sprintf(`{"page":%d}`, i)
		if i > 0 {
			args = fmt.Sprintf(`{"id":"obj_%06d","page":%d}`, i-1, i)
		}
		fmt.Fprintf(&b, `{"t":"call","seq":%d,"i":%d,"ts":"2026-07-18T14:02:01.000Z","tool":"get_object","args":%s}`+"\n", seq, i, args)
		seq++
		text := fmt.Sprintf(`{"id":"obj_%06d","status":"open","total":%d,"note":"generated result body for call %d"}`, i, 1000+i, i)
		fmt.Fprintf(&b, `{"t":"result","seq":%d,"i":%d,"ok":true,"ms":12,"body":{"content":[{"type":"text","text":%q}]}}`+"\n", seq, i, text)
		seq++
	}
	return b.Bytes()
}

// dirEvents watches a folder with inotify and returns the names of the
// entries events of mask happen to, in order, one read at a time.
type dirEvents struct {
	fd  int
	buf []byte
}

func watchDir(t *testing.T, dir string, mask uint32) *dirEvents {
	t.Helper()
	fd, err := syscall.InotifyInit1(syscall.IN_CLOEXEC)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Close(fd) })
	if _, err := syscall.InotifyAddWatch(fd, dir, mask); err != nil {
		t.Fatal(err)
	}
	return &dirEvents{fd: fd, buf: make([]byte, 64<<10)}
}

// event is one inotify event: its mask and the entry's name.
type event struct {
	mask uint32
	name string
}

// next blocks until events arrive and returns them.
func (w *dirEvents) next(t *testing.T) []event {
	t.Helper()
	n, err := syscall.Read(w.fd, w.buf)
	if err != nil {
		t.Fatal(err)
	}
	var out []event
	for off := 0; off+syscall.SizeofInotifyEvent <= n; {
		mask := binary.NativeEndian.Uint32(w.buf[off+4:])
		size := int(binary.NativeEndian.Uint32(w.buf[off+12:]))
		name := w.buf[off+syscall.SizeofInotifyEvent : off+syscall.SizeofInotifyEvent+size]
		out = append(out, event{mask: mask, name: string(bytes.TrimRight(name, "\x00"))})
		off += syscall.SizeofInotifyEvent + size
	}
	return out
}

// TestCompileKilledMidWrite kills `reelier compile -o` (the built binary)
// with SIGKILL while it writes a multi-megabyte skill: inotify reports
// the temporary file's creation and writes, and the kill lands after the
// k-th write to it (k from 1 to 4), before the rename. Each killed run
// leaves its temporary file; the next run's write removes it (its process
// is gone), so there is never more than one, and the last, uninterrupted
// run leaves none and a whole skill. The target is never torn: a killed
// run never renamed anything.
func TestCompileKilledMidWrite(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := testutil.ReelierBinary(t)
	work := t.TempDir()
	tracePath := filepath.Join(work, "big.jsonl")
	if err := os.WriteFile(tracePath, bigTrace(3000), 0o644); err != nil {
		t.Fatal(err)
	}
	outDir := filepath.Join(work, "out")
	if err := os.Mkdir(outDir, 0o755); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(outDir, "big.skill.md")
	events := watchDir(t, outDir, syscall.IN_CREATE|syscall.IN_MODIFY|syscall.IN_MOVED_FROM)
	temps := func() []string {
		left, _ := filepath.Glob(filepath.Join(outDir, atomicfile.TempPattern(out)))
		return left
	}

	const kills = 12
	left, finished, largest := 0, 0, int64(0)
	for i := range kills {
		cmd := exec.Command(bin, "compile", tracePath, "-o", out, "--force")
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		// When the child ends on its own, a file made here wakes the
		// watch, so the loop below never waits for an event that cannot
		// come.
		exited := make(chan error, 1)
		sentinel := fmt.Sprintf("exited-%d", i)
		go func() {
			err := cmd.Wait()
			os.WriteFile(filepath.Join(outDir, sentinel), nil, 0o644)
			exited <- err
		}()
		tmp := atomicfile.TempPattern(out)
		tmp = tmp[:len(tmp)-1] + strconv.Itoa(cmd.Process.Pid) + "-"
		writes, killed := 0, false
	watch:
		for {
			for _, e := range events.next(t) {
				switch {
				case e.name == sentinel:
					break watch
				case !strings.HasPrefix(e.name, tmp):
				case e.mask&syscall.IN_MOVED_FROM != 0:
					break watch // renamed before the kill could land
				case e.mask&syscall.IN_MODIFY != 0:
					if writes++; writes == i%4+1 {
						cmd.Process.Kill()
						killed = true
						break watch
					}
				}
			}
		}
		err := <-exited
		os.Remove(filepath.Join(outDir, sentinel))
		if !killed {
			if err != nil {
				t.Fatalf("run %d ended before its kill: %v\n%s", i, err, stderr.String())
			}
			finished++
		}
		switch now := temps(); {
		case len(now) > 1:
			t.Fatalf("after run %d, %d temporary files: an earlier killed run's was not removed: %v", i, len(now), now)
		case len(now) == 1:
			left++
			if info, err := os.Stat(now[0]); err == nil {
				largest = max(largest, info.Size())
			}
		}
		if _, err := os.Stat(out); err == nil && finished == 0 {
			t.Fatalf("run %d was killed before its rename, yet %s exists", i, out)
		}
	}
	if left == 0 {
		t.Fatal("no kill landed between the temporary file's writes and its rename")
	}

	// The next write, uninterrupted, removes the last leftover.
	if b, err := exec.Command(bin, "compile", tracePath, "-o", out, "--force").CombinedOutput(); err != nil {
		t.Fatalf("compile: %v\n%s", err, b)
	}
	if now := temps(); len(now) > 0 {
		t.Errorf("the uninterrupted compile left %v", now)
	}
	src, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if skill, diags := grammar.Parse(out, src); diags.HasErrors() || len(skill.Steps) != 3000 {
		t.Errorf("the compiled skill does not parse whole (%d bytes): %v", len(src), diags)
	}
	t.Logf("%d runs killed mid-write, %d finished first; %d kills left a temporary file (largest %d bytes), each removed by the next run; the final %d-byte skill is whole",
		kills-finished, finished, left, largest, len(src))
}
