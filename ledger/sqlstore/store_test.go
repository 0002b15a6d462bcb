package sqlstore

import (
	"testing"
	"time"
)

func TestPlaceholders(t *testing.T) {
	for _, c := range []struct {
		numbered bool
		in, want string
	}{
		{false, `SELECT id FROM runs WHERE idem_key = ?`, `SELECT id FROM runs WHERE idem_key = ?`},
		{true, `SELECT id FROM runs WHERE idem_key = ?`, `SELECT id FROM runs WHERE idem_key = $1`},
		{true, `WHERE ? = '' OR s.name = ?`, `WHERE $1 = '' OR s.name = $2`},
		{true, `VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, `VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`},
		{true, `SELECT EXISTS (SELECT 1 FROM api_keys)`, `SELECT EXISTS (SELECT 1 FROM api_keys)`},
		{true, `WHERE name = '名前' AND id = ?`, `WHERE name = '名前' AND id = $1`},
	} {
		s := &Store{d: &Dialect{Numbered: c.numbered}}
		if got := s.q(c.in); got != c.want {
			t.Errorf("q(%q), numbered %v = %q, want %q", c.in, c.numbered, got, c.want)
		}
	}
}

func TestTimeColumn(t *testing.T) {
	const layout = "2006-01-02T15:04:05.000000000Z"
	at := time.Date(2026, 7, 18, 14, 0, 0, 123456789, time.UTC)
	east := time.FixedZone("east", 5*3600)
	for _, c := range []struct {
		name   string
		layout string
		v      any
		want   time.Time
	}{
		{"text", layout, "2026-07-18T14:00:00.123456789Z", at},
		{"bytes", layout, []byte("2026-07-18T14:00:00.123456789Z"), at},
		{"text not a time", layout, "yesterday", time.Time{}},
		{"NULL", layout, nil, time.Time{}},
		{"time in UTC", "", at.In(east), at},
		{"time, NULL", "", nil, time.Time{}},
	} {
		got := time.Date(1999, 1, 1, 0, 0, 0, 0, time.UTC) // overwritten
		if err := (timeColumn{&got, c.layout}).Scan(c.v); err != nil {
			t.Errorf("%s: %v", c.name, err)
		}
		if !got.Equal(c.want) || got.Location() != time.UTC {
			t.Errorf("%s: scanned %v, want %v in UTC", c.name, got, c.want)
		}
	}
	var got time.Time
	if err := (timeColumn{&got, layout}).Scan(int64(7)); err == nil {
		t.Error("an integer scanned as a time")
	}
}

// TestWrittenTimes: a dialect that keeps times as text writes them in
// UTC in its layout; one that does not hands the time to the driver.
func TestWrittenTimes(t *testing.T) {
	at := time.Date(2026, 7, 18, 19, 0, 0, 5, time.FixedZone("east", 5*3600))
	text := (&Store{d: &Dialect{TimeLayout: "2006-01-02T15:04:05.000000000Z"}}).time(at)
	if text != "2026-07-18T14:00:00.000000005Z" {
		t.Errorf("as text: %v", text)
	}
	if v := (&Store{d: &Dialect{}}).time(at); v != any(at) {
		t.Errorf("native: %v", v)
	}
}
