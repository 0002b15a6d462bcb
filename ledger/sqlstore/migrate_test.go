package sqlstore

import (
	"testing"
	"testing/fstest"
)

func TestLoadMigrations(t *testing.T) {
	sql := func(s string) *fstest.MapFile { return &fstest.MapFile{Data: []byte(s)} }
	for _, c := range []struct {
		name    string
		fsys    fstest.MapFS
		want    []string // names, in order
		wantErr string
	}{
		{"none", fstest.MapFS{}, nil, ""},
		{"in version order", fstest.MapFS{
			"migrations/0002_teams.sql": sql("B"),
			"migrations/0001_init.sql":  sql("A"),
			"migrations/notes.txt":      sql("not a migration"),
		}, []string{"0001_init.sql", "0002_teams.sql"}, ""},
		{"a gap", fstest.MapFS{
			"migrations/0001_init.sql": sql("A"),
			"migrations/0003_late.sql": sql("C"),
		}, nil, "migration 0003_late.sql: expected version 2"},
		{"no number", fstest.MapFS{
			"migrations/init.sql": sql("A"),
		}, nil, "migration init.sql: the name must start with a version number"},
	} {
		ms, err := loadMigrations(c.fsys, "migrations")
		if c.wantErr != "" {
			if err == nil || err.Error() != c.wantErr {
				t.Errorf("%s: err = %v, want %q", c.name, err, c.wantErr)
			}
			continue
		}
		if err != nil || len(ms) != len(c.want) {
			t.Fatalf("%s: %v, %v; want %v", c.name, ms, err, c.want)
		}
		for i, m := range ms {
			if m.Name != c.want[i] || m.Version != i+1 {
				t.Errorf("%s: #%d = %+v, want %s version %d", c.name, i, m, c.want[i], i+1)
			}
		}
	}
}
