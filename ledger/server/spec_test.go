package server

import (
	"bytes"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/reelier/reelier/ledger/wire"
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

// TestSpecSignedLedgerContract holds SPEC.md's tables of the run upload,
// the info answer and the signature states to the code: each field is a
// JSON field of the wire type, in order, with its requirement; each state
// is one the store keeps, and a receipt of a run in that state shows the
// table's words.
func TestSpecSignedLedgerContract(t *testing.T) {
	tables := testutil.SpecTables(t)
	cell := func(s string) string { return strings.Trim(s, "`") }
	fields := func(v any) (names []string, required []bool) {
		rt := reflect.TypeOf(v)
		for i := range rt.NumField() {
			tag := rt.Field(i).Tag.Get("json")
			name, opts, _ := strings.Cut(tag, ",")
			names = append(names, name)
			required = append(required, !strings.Contains(opts, "omitempty"))
		}
		return names, required
	}
	names, required := fields(wire.RunUpload{})
	rows := tables["Ledger run upload"]
	if len(rows) != len(names) {
		t.Fatalf("SPEC.md lists %d run upload fields, wire.RunUpload has %d", len(rows), len(names))
	}
	for i, row := range rows {
		if cell(row[0]) != names[i] || (row[1] == "yes") != required[i] {
			t.Errorf("SPEC.md run upload row %q; code: %s, required %v", row, names[i], required[i])
		}
	}
	names, _ = fields(wire.Info{})
	rows = tables["Ledger info"]
	if len(rows) != len(names) {
		t.Fatalf("SPEC.md lists %d info fields, wire.Info has %d", len(rows), len(names))
	}
	for i, row := range rows {
		if cell(row[0]) != names[i] || row[1] != "boolean" {
			t.Errorf("SPEC.md info row %q; code: %s (bool)", row, names[i])
		}
	}
	states := tables["Ledger signature states"]
	want := []SignatureState{SignatureVerified, SignatureUntrusted, SignatureUnsigned}
	if len(states) != len(want) {
		t.Fatalf("SPEC.md lists %d signature states, the code has %d", len(states), len(want))
	}
	for i, row := range states {
		st := SignatureState(cell(row[0]))
		if st != want[i] {
			t.Errorf("SPEC.md state %q, code %q", st, want[i])
		}
		var page bytes.Buffer
		signer := ""
		if st != SignatureUnsigned {
			signer = "key K"
		}
		run := Run{Signature: st, Signer: signer}
		if err := pages().ExecuteTemplate(&page, "signature", run); err != nil {
			t.Fatal(err)
		}
		words := strings.ReplaceAll(row[2], "signer", "")
		if !strings.Contains(page.String(), strings.TrimSpace(words)) {
			t.Errorf("state %s shows %q, SPEC.md says %q", st, page.String(), row[2])
		}
	}
}
