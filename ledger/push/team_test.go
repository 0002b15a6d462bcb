package push_test

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/reelier/reelier/ledger/push"
	"github.com/reelier/reelier/ledger/server"
	"github.com/reelier/reelier/testkit/ledgertest"
)

// TestRevokedAndReadKeys pushes with a push key, revokes it while the
// ledger keeps running, and pushes again: the 401 names the revocation,
// the push stops and keeps its cursor, and nothing is lost. A read key
// is refused with a 403 that says it cannot push; a new push key then
// sends exactly the records the refused pushes kept. Both stores.
func TestRevokedAndReadKeys(t *testing.T) {
	for _, sk := range storeKinds {
		t.Run(sk.name, func(t *testing.T) {
			ctx := context.Background()
			store := sk.open(t)
			w := newWire(t, store, 0)
			key := func(name string, scope server.Scope) string {
				k, hash := server.NewKey()
				must(t, store.AddKey(ctx, server.Key{Name: name, Scope: scope, CreatedAt: ledgertest.Base}, hash))
				return k
			}
			ciKey, readKey := key("ci", server.ScopePush), key("viewer", server.ScopeRead)
			d := newWorkdir(t, "weekly")
			d.appendLines(t, good(0), good(1))
			pushWith := func(k string) (push.Result, error) {
				c := w.client()
				c.Config.Key = k
				return push.Push(ctx, d.options(c))
			}
			if res, err := pushWith(ciKey); err != nil || res.Pushed != 2 || res.Stopped != nil {
				t.Fatalf("first push: %+v, %v", res, err)
			}
			d.appendLines(t, good(2), good(3))

			revokedAt := time.Date(2026, 7, 20, 9, 0, 0, 0, time.UTC)
			if _, err := store.RevokeKey(ctx, "ci", revokedAt); err != nil {
				t.Fatal(err)
			}
			res, err := pushWith(ciKey)
			if err != nil || res.Stopped == nil || res.Pushed != 0 || res.CursorAfter != 2 {
				t.Fatalf("push with the revoked key: %+v, %v; want stopped at cursor 2", res, err)
			}
			want := `record 2: the ledger refused the API key (401): API key "ci" was revoked at 2026-07-20T09:00:00.000Z: ask the ledger's admin for a new key ('reelier ledger key create NAME'); check REELIER_CLOUD_KEY`
			if res.Stopped.Error() != want {
				t.Errorf("revoked key:\n got %s\nwant %s", res.Stopped, want)
			}

			res, err = pushWith(readKey)
			if err != nil || res.Stopped == nil || res.Pushed != 0 || res.CursorAfter != 2 {
				t.Fatalf("push with the read key: %+v, %v; want stopped at cursor 2", res, err)
			}
			want = `record 2: the ledger refused to let this key push (403): API key "viewer" has scope "read": it can list and view receipts but cannot push; pushing needs a key created with '--scope push'; set REELIER_CLOUD_KEY to a key with scope push`
			if res.Stopped.Error() != want {
				t.Errorf("read key:\n got %s\nwant %s", res.Stopped, want)
			}
			if n := w.storedRuns("weekly"); n != 2 {
				t.Errorf("%d runs stored after the refused pushes, want 2", n)
			}

			res, err = pushWith(key("ci-2", server.ScopePush))
			if err != nil || res.Stopped != nil || res.Pushed != 2 || res.CursorBefore != 2 || res.CursorAfter != 4 {
				t.Errorf("push with a new key: %+v, %v; want records 2 and 3 sent", res, err)
			}
			if n := w.storedRuns("weekly"); n != 4 {
				t.Errorf("%d runs stored, want all 4: a refused push must lose nothing", n)
			}
		})
	}
}

// TestReadKeyUploadingSkill: a read key's first push is refused at the
// skill upload, with the 403's reason, and sends no record.
func TestReadKeyUploadingSkill(t *testing.T) {
	ctx := context.Background()
	store := storeKinds[0].open(t)
	w := newWire(t, store, 0)
	k, hash := server.NewKey()
	must(t, store.AddKey(ctx, server.Key{Name: "viewer", Scope: server.ScopeRead, CreatedAt: ledgertest.Base}, hash))
	d := newWorkdir(t, "weekly")
	d.appendLines(t, good(0))
	c := w.client()
	c.Config.Key = k
	res, err := push.Push(ctx, d.options(c))
	if err != nil || res.Upload != push.UploadFailed || res.Stopped == nil || len(w.sentNow()) != 0 {
		t.Fatalf("%+v, %v, sent %v", res, err, w.sentNow())
	}
	if got := res.Stopped.Error(); !strings.HasPrefix(got, `uploading skill "weekly": the ledger refused to let this key push (403): API key "viewer" has scope "read"`) {
		t.Errorf("message: %s", got)
	}
}

// TestSkillReuploadedWhenChanged: push uploads the skill file the first
// time, not again while its content is unchanged, and again as soon as
// it changes (as a heal rewrites it); the ledger then holds the current
// file and both versions. An old state file without a content hash
// uploads once more. Both stores.
func TestSkillReuploadedWhenChanged(t *testing.T) {
	for _, sk := range storeKinds {
		t.Run(sk.name, func(t *testing.T) {
			ctx := context.Background()
			store := sk.open(t)
			w := newWire(t, store, 0)
			d := newWorkdir(t, "weekly")
			d.appendLines(t, good(0))
			var events []push.Event
			opts := d.options(w.client())
			opts.Report = func(e push.Event) {
				if e.Kind == push.SkillUploaded {
					events = append(events, e)
				}
			}
			run := func(md string) push.Result {
				t.Helper()
				events = nil
				opts.SkillMd = []byte(md)
				res, err := push.Push(ctx, opts)
				if err != nil || res.Stopped != nil {
					t.Fatalf("push: %+v, %v", res, err)
				}
				return res
			}
			v1 := "---\nname: weekly\n---\n### Step 1 — List\n- assert: json.items.length > 0\n"
			v2 := "---\nname: weekly\n---\n### Step 1 — List\n- assert: json.data.items.length > 0\n"
			if res := run(v1); res.Upload != push.Uploaded || len(events) != 1 || events[0].Why != push.FirstUpload || events[0].Version != 1 {
				t.Errorf("first push: %+v, events %+v", res, events)
			}
			if res := run(v1); res.Upload != push.AlreadyUploaded || len(events) != 0 {
				t.Errorf("unchanged: %+v, events %+v", res, events)
			}
			if res := run(v2); res.Upload != push.Uploaded || len(events) != 1 || events[0].Why != push.ContentChanged || events[0].Version != 2 {
				t.Errorf("after a heal: %+v, events %+v", res, events)
			}
			vs, err := store.SkillVersions(ctx, "weekly")
			if err != nil || len(vs) != 2 || vs[0].SkillMd != v1 || vs[1].SkillMd != v2 {
				t.Errorf("versions on the ledger: %+v, %v", vs, err)
			}
			// A state file written before content hashes: uploaded once more,
			// as the same version.
			st := d.readState(t)
			st["weekly"].SkillSHA256 = ""
			writeState(t, d, st)
			if res := run(v2); res.Upload != push.Uploaded || len(events) != 1 || events[0].Why != push.ContentChanged || events[0].Version != 2 {
				t.Errorf("old state file: %+v, events %+v", res, events)
			}
			if vs, _ := store.SkillVersions(ctx, "weekly"); len(vs) != 2 {
				t.Errorf("re-uploading the same content made %d versions, want 2", len(vs))
			}
		})
	}
}

// writeState replaces the workdir's state file.
func writeState(t *testing.T, d *workdir, st push.State) {
	t.Helper()
	must(t, os.WriteFile(d.state, []byte(mustJSON(st)), 0o644))
}
