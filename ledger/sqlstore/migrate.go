package sqlstore

import (
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strconv"
	"strings"
)

// migration is one versioned schema change of a store: a file named
// NNNN_what.sql holding the statements that take the schema from version
// NNNN-1 to NNNN.
type migration struct {
	// Version is NNNN, Name the file name and SQL its statements.
	Version int
	Name    string
	SQL     string
}

// loadMigrations reads the *.sql files of dir in fsys, ordered by version.
// Versions must run 1, 2, 3… without gaps, so a missing file is caught
// before any database is touched.
func loadMigrations(fsys fs.FS, dir string) ([]migration, error) {
	names, err := fs.Glob(fsys, path.Join(dir, "*.sql"))
	if err != nil {
		return nil, err
	}
	var ms []migration
	for _, name := range names {
		base := path.Base(name)
		num, _, _ := strings.Cut(base, "_")
		v, err := strconv.Atoi(num)
		if err != nil {
			return nil, fmt.Errorf("migration %s: the name must start with a version number", base)
		}
		sql, err := fs.ReadFile(fsys, name)
		if err != nil {
			return nil, err
		}
		ms = append(ms, migration{Version: v, Name: base, SQL: string(sql)})
	}
	sort.Slice(ms, func(i, j int) bool { return ms[i].Version < ms[j].Version })
	for i, m := range ms {
		if m.Version != i+1 {
			return nil, fmt.Errorf("migration %s: expected version %d", m.Name, i+1)
		}
	}
	return ms, nil
}
