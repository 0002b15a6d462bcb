package ledgertest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/reelier/reelier/ledger/server"
	"github.com/reelier/reelier/ledger/wire"
	"github.com/reelier/reelier/replay/runlog"
)

// StoredRun turns a record built by Record into the Run a server would
// store.
func StoredRun(skill string, i int, outcomes ...runlog.Outcome) server.Run {
	rec := Record(skill, i, outcomes...)
	var r runlog.Record
	if err := json.Unmarshal(rec, &r); err != nil {
		panic(err)
	}
	t := runlog.CountSteps(r.Steps)
	start, _ := time.Parse(time.RFC3339Nano, r.StartedAt)
	end, _ := time.Parse(time.RFC3339Nano, r.FinishedAt)
	return server.Run{
		ID: fmt.Sprintf("run_%s_%d", skill, i), Skill: skill, IdempotencyKey: wire.IdempotencyKey(skill, rec),
		Record: rec, StartedAt: start, FinishedAt: end, Verdict: server.VerdictOf(t), Totals: t,
		ReceivedAt: Base.Add(time.Hour + time.Duration(i)*time.Second),
	}
}

// StoreSuite is the behaviour every ledger.Store must have. open returns a
// fresh, empty store; the suite closes it.
func StoreSuite(t *testing.T, open func(t *testing.T) server.Store) {
	fresh := func(t *testing.T) (server.Store, context.Context) {
		s := open(t)
		t.Cleanup(func() { s.Close() })
		return s, context.Background()
	}
	t.Run("keys", func(t *testing.T) {
		s, ctx := fresh(t)
		if has, err := s.HasKeys(ctx); err != nil || has {
			t.Fatalf("empty store: HasKeys = %v, %v", has, err)
		}
		key, hash := server.NewKey()
		must(t, s.AddKey(ctx, server.Key{Name: "ci", Scope: server.ScopePush, CreatedAt: Base}, hash))
		if has, err := s.HasKeys(ctx); err != nil || !has {
			t.Fatalf("after AddKey: HasKeys = %v, %v", has, err)
		}
		if k, err := s.KeyByHash(ctx, server.HashKey(key)); err != nil || k.Name != "ci" || k.Scope != server.ScopePush || !k.CreatedAt.Equal(Base) || k.Revoked() {
			t.Errorf("KeyByHash(right key) = %+v, %v", k, err)
		}
		if _, err := s.KeyByHash(ctx, server.HashKey(key+"x")); !errors.Is(err, server.ErrNotFound) {
			t.Errorf("KeyByHash(wrong key) err = %v, want ErrNotFound", err)
		}
		_, hash2 := server.NewKey()
		if err := s.AddKey(ctx, server.Key{Name: "ci", Scope: server.ScopeRead, CreatedAt: Base}, hash2); !errors.Is(err, server.ErrKeyExists) {
			t.Errorf("AddKey(same name) err = %v, want ErrKeyExists", err)
		}
	})
	t.Run("scopes and revocation", func(t *testing.T) {
		s, ctx := fresh(t)
		pushKey, pushHash := server.NewKey()
		readKey, readHash := server.NewKey()
		must(t, s.AddKey(ctx, server.Key{Name: "ci", Scope: server.ScopePush, CreatedAt: Base}, pushHash))
		must(t, s.AddKey(ctx, server.Key{Name: "alice-reads", Scope: server.ScopeRead, CreatedAt: Base.Add(time.Minute)}, readHash))
		if k, err := s.KeyByHash(ctx, server.HashKey(readKey)); err != nil || k.Scope != server.ScopeRead {
			t.Errorf("read key = %+v, %v", k, err)
		}
		at := Base.Add(time.Hour)
		k, err := s.RevokeKey(ctx, "ci", at)
		if err != nil || !k.RevokedAt.Equal(at) || k.Name != "ci" {
			t.Fatalf("RevokeKey = %+v, %v", k, err)
		}
		if k, err := s.KeyByHash(ctx, server.HashKey(pushKey)); err != nil || !k.Revoked() || !k.RevokedAt.Equal(at) {
			t.Errorf("revoked key read back = %+v, %v; want revoked at %v", k, err, at)
		}
		if k, err := s.RevokeKey(ctx, "ci", at.Add(time.Hour)); !errors.Is(err, server.ErrKeyRevoked) || !k.RevokedAt.Equal(at) {
			t.Errorf("second RevokeKey = %+v, %v; want ErrKeyRevoked keeping %v", k, err, at)
		}
		if _, err := s.RevokeKey(ctx, "nobody", at); !errors.Is(err, server.ErrNotFound) {
			t.Errorf("RevokeKey(unknown) err = %v, want ErrNotFound", err)
		}
		_, hash3 := server.NewKey()
		if err := s.AddKey(ctx, server.Key{Name: "ci", Scope: server.ScopePush, CreatedAt: at}, hash3); !errors.Is(err, server.ErrKeyExists) {
			t.Errorf("AddKey(name of a revoked key) err = %v, want ErrKeyExists", err)
		}
		keys, err := s.Keys(ctx)
		must(t, err)
		if len(keys) != 2 || keys[0].Name != "alice-reads" || keys[0].Revoked() || keys[0].Scope != server.ScopeRead ||
			keys[1].Name != "ci" || !keys[1].Revoked() || keys[1].Scope != server.ScopePush {
			t.Errorf("Keys = %+v", keys)
		}
		must(t, func() error { _, err := s.RevokeKey(ctx, "alice-reads", at); return err }())
		if has, err := s.HasKeys(ctx); err != nil || !has {
			t.Errorf("every key revoked: HasKeys = %v, %v; want true (never open again)", has, err)
		}
	})
	t.Run("skill versions", func(t *testing.T) {
		s, ctx := fresh(t)
		if _, err := s.SkillVersions(ctx, "v"); !errors.Is(err, server.ErrUnknownSkill) {
			t.Errorf("SkillVersions(unknown) err = %v", err)
		}
		for i, up := range []struct {
			md   string
			want int
		}{{"v1", 1}, {"v1", 1}, {"v2", 2}, {"v2", 2}, {"v1", 3}} {
			v, err := s.PutSkill(ctx, server.Skill{Name: "v", SkillMd: up.md, UploadedAt: Base.Add(time.Duration(i) * time.Minute)})
			if err != nil || v != up.want {
				t.Errorf("upload %d (%s) = version %d, %v; want %d", i, up.md, v, err, up.want)
			}
		}
		vs, err := s.SkillVersions(ctx, "v")
		must(t, err)
		var got []string
		for _, v := range vs {
			got = append(got, fmt.Sprintf("%d:%s@%d", v.Version, v.SkillMd, v.UploadedAt.Sub(Base)/time.Minute))
		}
		if want := []string{"1:v1@0", "2:v2@2", "3:v1@4"}; !slices.Equal(got, want) {
			t.Errorf("versions = %q, want %q", got, want)
		}
		if k, err := s.Skill(ctx, "v"); err != nil || k.Uploads != 5 {
			t.Errorf("summary after 5 uploads = %+v, %v", k, err)
		}
	})
	t.Run("concurrent skill versions", func(t *testing.T) {
		s, ctx := fresh(t)
		var wg sync.WaitGroup
		errs := make([]error, 6)
		for w := range 6 {
			wg.Go(func() {
				_, errs[w] = s.PutSkill(ctx, server.Skill{Name: "cv", SkillMd: fmt.Sprintf("content %d", w), UploadedAt: Base})
			})
		}
		wg.Wait()
		for _, err := range errs {
			must(t, err)
		}
		vs, err := s.SkillVersions(ctx, "cv")
		must(t, err)
		if len(vs) != 6 || vs[5].Version != 6 {
			t.Errorf("6 concurrent distinct uploads gave %d versions", len(vs))
		}
	})
	t.Run("skills", func(t *testing.T) {
		s, ctx := fresh(t)
		putSkill(t, s, server.Skill{Name: "b-skill", SkillMd: "v1", UploadedAt: Base})
		putSkill(t, s, server.Skill{Name: "b-skill", SkillMd: "v2", UploadedAt: Base.Add(time.Minute)})
		putSkill(t, s, server.Skill{Name: "B-upper", SkillMd: "x", UploadedAt: Base})
		putSkill(t, s, server.Skill{Name: "a-skill", SkillMd: "x", UploadedAt: Base})
		sums, err := s.Skills(ctx)
		must(t, err)
		var names []string
		for _, k := range sums {
			names = append(names, k.Name)
		}
		if want := []string{"B-upper", "a-skill", "b-skill"}; !slices.Equal(names, want) {
			t.Errorf("Skills order = %q, want %q (byte order)", names, want)
		}
		k, err := s.Skill(ctx, "b-skill")
		must(t, err)
		if k.Uploads != 2 || !k.UploadedAt.Equal(Base.Add(time.Minute)) || k.Runs != 0 || k.Latest != nil {
			t.Errorf("re-uploaded skill summary = %+v", k)
		}
		if _, err := s.Skill(ctx, "nope"); !errors.Is(err, server.ErrUnknownSkill) {
			t.Errorf("Skill(unknown) err = %v", err)
		}
	})
	t.Run("runs", func(t *testing.T) {
		s, ctx := fresh(t)
		if _, _, err := s.AddRun(ctx, StoredRun("ghost", 0, runlog.Passed)); !errors.Is(err, server.ErrUnknownSkill) {
			t.Fatalf("AddRun(unknown skill) err = %v, want ErrUnknownSkill", err)
		}
		putSkill(t, s, server.Skill{Name: "weekly", SkillMd: "x", UploadedAt: Base})
		want := StoredRun("weekly", 0, runlog.Passed, runlog.Failed, runlog.Skipped)
		id, dup, err := s.AddRun(ctx, want)
		if err != nil || dup || id != want.ID {
			t.Fatalf("AddRun = %q, %v, %v", id, dup, err)
		}
		got, err := s.Run(ctx, id)
		must(t, err)
		want.Seq = got.Seq
		if string(got.Record) != string(want.Record) || got.Totals != want.Totals || got.Verdict != server.VerdictFailed ||
			!got.StartedAt.Equal(want.StartedAt) || !got.FinishedAt.Equal(want.FinishedAt) || !got.ReceivedAt.Equal(want.ReceivedAt) ||
			got.IdempotencyKey != want.IdempotencyKey || got.Skill != "weekly" {
			t.Errorf("Run round trip:\n got %+v\nwant %+v", got, want)
		}
		if _, err := s.Run(ctx, "run_missing"); !errors.Is(err, server.ErrNotFound) {
			t.Errorf("Run(missing) err = %v", err)
		}
		again := StoredRun("weekly", 0, runlog.Passed, runlog.Failed, runlog.Skipped)
		again.ID = "run_other"
		if id2, dup, err := s.AddRun(ctx, again); err != nil || !dup || id2 != id {
			t.Errorf("duplicate AddRun = %q, %v, %v; want %q, true", id2, dup, err, id)
		}
		for i, name := range []string{"run_nokey_1", "run_nokey_2"} {
			r := StoredRun("weekly", 1, runlog.Passed)
			r.ID, r.IdempotencyKey = name, ""
			if _, dup, err := s.AddRun(ctx, r); err != nil || dup {
				t.Errorf("AddRun without a key #%d = dup %v, %v; want stored", i, dup, err)
			}
		}
		k, err := s.Skill(ctx, "weekly")
		must(t, err)
		if k.Runs != 3 || k.Failed != 1 || k.Passed != 2 || k.Latest == nil || k.Latest.ID != "run_nokey_2" {
			t.Errorf("summary = %+v, latest %+v", k, k.Latest)
		}
	})
	t.Run("interrupted", func(t *testing.T) {
		s, ctx := fresh(t)
		putSkill(t, s, server.Skill{Name: "i", SkillMd: "x", UploadedAt: Base})
		addRun(t, s, StoredRun("i", 0, runlog.Passed))
		r := StoredRun("i", 1, runlog.Passed, runlog.Skipped)
		r.Verdict = server.VerdictInterrupted
		id, _, err := s.AddRun(ctx, r)
		must(t, err)
		got, err := s.Run(ctx, id)
		if err != nil || got.Verdict != server.VerdictInterrupted {
			t.Errorf("an interrupted run read back as %q, %v", got.Verdict, err)
		}
		k, err := s.Skill(ctx, "i")
		if err != nil || k.Runs != 2 || k.Passed != 1 || k.Unchecked != 0 || k.Interrupted != 1 || k.Latest.Verdict != server.VerdictInterrupted {
			t.Errorf("summary with an interrupted run = %+v, latest %+v, %v", k, k.Latest, err)
		}
	})
	t.Run("config and mock", func(t *testing.T) {
		// Runs against live servers: passed, failed, config. Runs against
		// reelier mock: passed, config. The config runs are neither failed
		// nor in a pass rate; the mock runs are in one only when asked.
		s, ctx := fresh(t)
		putSkill(t, s, server.Skill{Name: "c", SkillMd: "x", UploadedAt: Base})
		addRun(t, s, StoredRun("c", 0, runlog.Passed))
		addRun(t, s, StoredRun("c", 1, runlog.Failed))
		config := StoredRun("c", 2, runlog.Failed)
		config.Verdict = server.VerdictConfig
		id, _, err := s.AddRun(ctx, config)
		must(t, err)
		got, err := s.Run(ctx, id)
		if err != nil || got.Verdict != server.VerdictConfig || got.Mock {
			t.Errorf("a config run read back as %q mock %v, %v", got.Verdict, got.Mock, err)
		}
		mock := StoredRun("c", 3, runlog.Passed)
		mock.Mock = true
		id, _, err = s.AddRun(ctx, mock)
		must(t, err)
		if got, err := s.Run(ctx, id); err != nil || !got.Mock || got.Verdict != server.VerdictPassed {
			t.Errorf("a mock run read back as %q mock %v, %v", got.Verdict, got.Mock, err)
		}
		mockConfig := StoredRun("c", 4, runlog.Failed)
		mockConfig.Verdict, mockConfig.Mock = server.VerdictConfig, true
		addRun(t, s, mockConfig)
		k, err := s.Skill(ctx, "c")
		must(t, err)
		if k.Runs != 5 || k.Passed != 1 || k.Failed != 1 || k.Config != 1 || k.Mock != 2 || k.MockPassed != 1 || k.MockConfig != 1 ||
			k.Latest == nil || !k.Latest.Mock || k.Latest.Verdict != server.VerdictConfig {
			t.Errorf("summary = %+v, latest %+v", k, k.Latest)
		}
		if r, rm := k.PassRate(), k.PassRateWithMock(); r != 0.5 || rm != 2.0/3 {
			t.Errorf("pass rate %v, with mock runs %v; want 1/2 and 2/3", r, rm)
		}
	})
	t.Run("signatures", func(t *testing.T) {
		// Each signature state, and its signer, read back as stored; a
		// run stored without one reads as unsigned.
		s, ctx := fresh(t)
		putSkill(t, s, server.Skill{Name: "sig", SkillMd: "x", UploadedAt: Base})
		for i, want := range []server.Signature{
			{State: server.SignatureVerified, Signer: "key AAAA<b>"},
			{State: server.SignatureUntrusted, Signer: "certificate https://ci.example/wf@refs/heads/main"},
			{State: server.SignatureUnsigned},
			{},
		} {
			r := StoredRun("sig", i, runlog.Passed)
			r.Signature, r.Signer = want.State, want.Signer
			id, _, err := s.AddRun(ctx, r)
			must(t, err)
			got, err := s.Run(ctx, id)
			if want.State == "" {
				want.State = server.SignatureUnsigned
			}
			if err != nil || got.Signature != want.State || got.Signer != want.Signer {
				t.Errorf("run %d read back signature %q signer %q (%v); want %q %q", i, got.Signature, got.Signer, err, want.State, want.Signer)
			}
		}
		page, err := s.Runs(ctx, "sig", server.Page{Limit: 10})
		if err != nil || len(page.Runs) != 4 || page.Runs[3].Signature != server.SignatureVerified {
			t.Errorf("the runs page lost the signature states: %+v, %v", page.Runs, err)
		}
	})
	t.Run("paging", func(t *testing.T) {
		s, ctx := fresh(t)
		putSkill(t, s, server.Skill{Name: "p", SkillMd: "x", UploadedAt: Base})
		putSkill(t, s, server.Skill{Name: "other", SkillMd: "x", UploadedAt: Base})
		for i := range 7 {
			addRun(t, s, StoredRun("p", i, runlog.Passed))
			addRun(t, s, StoredRun("other", i, runlog.Unchecked))
		}
		var seen []string
		var sizes []int
		p := server.Page{Limit: 3}
		for {
			page, err := s.Runs(ctx, "p", p)
			must(t, err)
			sizes = append(sizes, len(page.Runs))
			for _, r := range page.Runs {
				seen = append(seen, r.ID)
			}
			if page.Next == 0 {
				break
			}
			p.Before = page.Next
		}
		want := []string{"run_p_6", "run_p_5", "run_p_4", "run_p_3", "run_p_2", "run_p_1", "run_p_0"}
		if !slices.Equal(seen, want) || !slices.Equal(sizes, []int{3, 3, 1}) {
			t.Errorf("pages %v = %q\nwant newest first %q", sizes, seen, want)
		}
		if page, err := s.Runs(ctx, "p", server.Page{Limit: 7}); err != nil || len(page.Runs) != 7 || page.Next != 0 {
			t.Errorf("exact page: %d runs, next %d, %v", len(page.Runs), page.Next, err)
		}
		if _, err := s.Runs(ctx, "nope", server.Page{Limit: 3}); !errors.Is(err, server.ErrUnknownSkill) {
			t.Errorf("Runs(unknown) err = %v", err)
		}
	})
	t.Run("injection", func(t *testing.T) {
		s, ctx := fresh(t)
		putSkill(t, s, server.Skill{Name: "victim", SkillMd: "x", UploadedAt: Base})
		addRun(t, s, StoredRun("victim", 0, runlog.Passed))
		for _, name := range Injections {
			putSkill(t, s, server.Skill{Name: name, SkillMd: name, UploadedAt: Base})
			addRun(t, s, StoredRun(name, 1, runlog.Passed))
			k, err := s.Skill(ctx, name)
			if err != nil || k.Name != name || k.Runs != 1 {
				t.Errorf("Skill(%q) = %+v, %v", name, k, err)
			}
		}
		sums, err := s.Skills(ctx)
		must(t, err)
		if len(sums) != len(Injections)+1 {
			t.Errorf("%d skills, want %d", len(sums), len(Injections)+1)
		}
		if k, err := s.Skill(ctx, "victim"); err != nil || k.Runs != 1 {
			t.Errorf("victim after injections = %+v, %v", k, err)
		}
		if _, err := s.Skill(ctx, "nobody' OR '1'='1"); !errors.Is(err, server.ErrUnknownSkill) {
			t.Errorf("Skill(tautology) err = %v", err)
		}
	})
	t.Run("concurrent duplicates", func(t *testing.T) {
		s, ctx := fresh(t)
		putSkill(t, s, server.Skill{Name: "c", SkillMd: "x", UploadedAt: Base})
		const writers = 8
		ids := make([]string, writers)
		dups := make([]bool, writers)
		errs := make([]error, writers)
		var wg sync.WaitGroup
		for w := range writers {
			wg.Go(func() {
				r := StoredRun("c", 0, runlog.Passed)
				r.ID = fmt.Sprintf("run_c_w%d", w)
				ids[w], dups[w], errs[w] = s.AddRun(ctx, r)
			})
		}
		wg.Wait()
		stored := 0
		for w := range writers {
			must(t, errs[w])
			if ids[w] != ids[0] {
				t.Errorf("writer %d got id %q, writer 0 %q", w, ids[w], ids[0])
			}
			if !dups[w] {
				stored++
			}
		}
		page, err := s.Runs(ctx, "c", server.Page{Limit: 10})
		must(t, err)
		if stored != 1 || len(page.Runs) != 1 {
			t.Errorf("%d writers stored, %d runs in the store; want exactly 1", stored, len(page.Runs))
		}
	})
	t.Run("health", func(t *testing.T) {
		s, ctx := fresh(t)
		must(t, s.Health(ctx)) // empty tables
		putSkill(t, s, server.Skill{Name: "h", SkillMd: "x", UploadedAt: Base})
		for i := range 3 {
			addRun(t, s, StoredRun("h", i, runlog.Passed))
		}
		must(t, s.Health(ctx))
		s.Close()
		var he *server.HealthError
		if err := s.Health(ctx); !errors.As(err, &he) || he.What != server.HealthChecks[0].What || he.Reason == "" {
			t.Errorf("Health of a closed store = %v, want a HealthError from the first read", err)
		}
	})
}

// Injections are skill names that would change a query built by string
// concatenation; the stores must treat them as plain names.
var Injections = []string{
	`'; DROP TABLE runs; --`,
	`x' OR '1'='1`,
	`" OR ""="`,
	`victim'--`,
	`%_%`,
	`\'; SELECT pg_sleep(5); --`,
	`Robert'); DELETE FROM skills WHERE ('1'='1`,
	`名前 with ünïcode`,
}

func putSkill(t *testing.T, s server.Store, k server.Skill) {
	t.Helper()
	if _, err := s.PutSkill(context.Background(), k); err != nil {
		t.Fatalf("PutSkill(%s): %v", k.Name, err)
	}
}

func addRun(t *testing.T, s server.Store, r server.Run) {
	t.Helper()
	if _, _, err := s.AddRun(context.Background(), r); err != nil {
		t.Fatalf("AddRun(%s): %v", r.ID, err)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// UpgradeFixture is what a database at schema version 1 (before scopes,
// revocation, upload histories and healed counts) holds for the upgrade
// tests: one key, one skill, and one run in which a step healed.
type UpgradeFixture struct {
	Key     string
	Hash    []byte
	SkillMd string
	Run     server.Run
}

// NewUpgradeFixture builds the fixture.
func NewUpgradeFixture() UpgradeFixture {
	key, hash := server.NewKey()
	var r runlog.Record
	if err := json.Unmarshal(Record("weekly", 0, runlog.Passed, runlog.Unchecked), &r); err != nil {
		panic(err)
	}
	r.Steps[0].Level = 1
	r.Finish(false)
	line, _ := runlog.Marshal(&r)
	run := StoredRun("weekly", 0, runlog.Passed, runlog.Unchecked)
	run.Record = line[:len(line)-1]
	return UpgradeFixture{Key: key, Hash: hash, SkillMd: "---\nname: weekly\n---\n", Run: run}
}

// CheckUpgraded fails the test unless a store opened on the fixture's
// version-1 database shows it as the upgrade promises: the old key keeps
// the power it had (scope push, not revoked), the skill file is version
// 1 of its history, and the run's healed step is counted.
func (f UpgradeFixture) CheckUpgraded(t *testing.T, s server.Store) {
	t.Helper()
	ctx := context.Background()
	k, err := s.KeyByHash(ctx, f.Hash)
	if err != nil || k.Name != "old" || k.Scope != server.ScopePush || k.Revoked() {
		t.Errorf("the key from before scopes: %+v, %v; want a push key, not revoked", k, err)
	}
	vs, err := s.SkillVersions(ctx, "weekly")
	if err != nil || len(vs) != 1 || vs[0].Version != 1 || vs[0].SkillMd != f.SkillMd || !vs[0].UploadedAt.Equal(Base) {
		t.Errorf("the skill's upload history: %+v, %v; want its file as version 1", vs, err)
	}
	r, err := s.Run(ctx, f.Run.ID)
	if err != nil || r.Healed != 1 || string(r.Record) != string(f.Run.Record) {
		t.Errorf("the run: healed %d, %v; want 1 healed step counted from its record", r.Healed, err)
	}
	if r.Signature != server.SignatureUnsigned || r.Signer != "" {
		t.Errorf("the run from before signatures: signature %q, signer %q; want unsigned", r.Signature, r.Signer)
	}
	sum, err := s.Skill(ctx, "weekly")
	if err != nil || sum.HealedRuns != 1 || sum.Latest == nil || sum.Latest.Healed != 1 {
		t.Errorf("the summary: %+v, %v", sum, err)
	}
	if v, err := s.PutSkill(ctx, server.Skill{Name: "weekly", SkillMd: f.SkillMd + "# healed\n", UploadedAt: Base.Add(time.Hour)}); err != nil || v != 2 {
		t.Errorf("the next upload after the upgrade: version %d, %v; want 2", v, err)
	}
}
