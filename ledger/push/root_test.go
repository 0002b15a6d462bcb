package push_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/reelier/reelier/ledger/push"
)

// TestPushInRoot: with Options.Root, the history, the state, its lock and
// a corrupt state set aside are names in the root and reached through it.
// A folder that a symbolic link leads out of the root is refused before
// anything is sent, and nothing outside is read, created or changed.
func TestPushInRoot(t *testing.T) {
	tests := []struct {
		name     string
		link     string // a folder of the root made a link to the outside directory
		runs     string // where the history is moved to, if not .reelier/runs
		state    string // the state file's content before the push; "" for none
		dryRun   bool
		wantErr  string
		wantRuns int // what the ledger holds afterwards
	}{
		{name: "inside", wantRuns: 2},
		{name: "inside, dry run", dryRun: true},
		{name: "corrupt state set aside inside", state: "not json", wantRuns: 2},
		{name: "runs linked outside", link: ".reelier/runs", wantErr: "escapes"},
		{name: "runs linked outside, dry run", link: ".reelier/runs", dryRun: true, wantErr: "escapes"},
		{name: "state folder linked outside", runs: "history/weekly.jsonl", link: ".reelier", wantErr: "escapes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := newWire(t, storeKinds[0].open(t), 0)
			d := newWorkdir(t, "weekly")
			d.appendLines(t, good(0), good(1))
			if tt.state != "" {
				must(t, os.WriteFile(d.state, []byte(tt.state), 0o644))
			}
			runs := filepath.Join(".reelier", "runs", "weekly.jsonl")
			if tt.runs != "" {
				runs = filepath.FromSlash(tt.runs)
				must(t, os.MkdirAll(filepath.Dir(filepath.Join(d.dir, runs)), 0o755))
				must(t, os.Rename(d.runs, filepath.Join(d.dir, runs)))
			}
			outside := t.TempDir()
			if tt.link != "" {
				// The outside holds a copy of what the link replaces, so a
				// push that followed it would find something to work on.
				src := filepath.Join(d.dir, filepath.FromSlash(tt.link))
				must(t, os.CopyFS(outside, os.DirFS(src)))
				must(t, os.RemoveAll(src))
				must(t, os.Symlink(outside, src))
			}
			before := listDir(t, outside)
			root, err := os.OpenRoot(d.dir)
			must(t, err)
			defer root.Close()
			opts := d.options(w.client())
			opts.Root = root
			opts.RunsFile = runs
			opts.StatePath = filepath.FromSlash(push.DefaultStatePath)
			var events []push.Event
			opts.Report = func(e push.Event) { events = append(events, e) }
			if tt.dryRun {
				_, err = push.DryRun(opts)
			} else {
				_, err = push.Push(context.Background(), opts)
			}
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want one containing %q", err, tt.wantErr)
				}
			} else if err != nil {
				t.Fatal(err)
			}
			if got := w.storedRuns("weekly"); got != tt.wantRuns || tt.wantRuns == 0 && w.connections() != 0 {
				t.Errorf("the ledger holds %d runs after %d connection(s), want %d", got, w.connections(), tt.wantRuns)
			}
			if after := listDir(t, outside); !slices.Equal(after, before) {
				t.Errorf("the outside changed: %v, was %v", after, before)
			}
			if tt.state != "" {
				want := filepath.FromSlash(push.DefaultStatePath) + ".corrupt-1784383200000"
				if len(events) == 0 || events[0].Kind != push.StateSetAside || events[0].Path != want {
					t.Fatalf("events %+v, want the state set aside to %s", events, want)
				}
				if b, err := root.ReadFile(want); err != nil || string(b) != tt.state {
					t.Errorf("set aside: %q, %v", b, err)
				}
			}
			if tt.wantRuns > 0 {
				if st := d.readState(t); st["weekly"] == nil || st["weekly"].Pushed != 2 {
					t.Errorf("state %s, want the cursor at 2", mustJSON(st))
				}
			}
		})
	}
}

// listDir lists every file below dir with its content, for comparison.
func listDir(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(p string, e os.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		out = append(out, p+"="+string(b))
		return err
	})
	must(t, err)
	return out
}
