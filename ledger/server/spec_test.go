package server

import (
	"strconv"
	"strings"
	"testing"

	"github.com/reelier/reelier/testkit/testutil"
)

// TestSpecLedgerContract holds SPEC.md's ledger tables to the code: the
// scopes and what each allows, and each provenance field's requirement
// and cap.
func TestSpecLedgerContract(t *testing.T) {
	tables := testutil.SpecTables(t)
	cell := func(s string) string { return strings.Trim(s, "`") }
	scopes := tables["Ledger key scopes"]
	if len(scopes) != 2 {
		t.Fatalf("SPEC.md ledger key scopes: %d rows, want 2", len(scopes))
	}
	for _, row := range scopes {
		s := Scope(cell(row[0]))
		if !s.Valid() {
			t.Errorf("SPEC.md names scope %q, which the code does not have", s)
		}
		if got, want := s.Allows(ScopeRead), row[1] == "yes"; got != want {
			t.Errorf("scope %s reads: code %v, SPEC.md %q", s, got, row[1])
		}
		if got, want := s.Allows(ScopePush), row[2] == "yes"; got != want {
			t.Errorf("scope %s uploads: code %v, SPEC.md %q", s, got, row[2])
		}
	}
	rows := tables["Ledger provenance limits"]
	if len(rows) != len(provenanceCaps) {
		t.Fatalf("SPEC.md lists %d provenance fields, the code checks %d", len(rows), len(provenanceCaps))
	}
	for i, c := range provenanceCaps {
		max, _ := strconv.Atoi(rows[i][2])
		if cell(rows[i][0]) != c.key || (rows[i][1] == "yes") != c.required || max != c.max {
			t.Errorf("SPEC.md row %q, code %+v", rows[i], c)
		}
	}
}
