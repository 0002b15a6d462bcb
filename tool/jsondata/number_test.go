package jsondata

import (
	"encoding/json"
	"testing"
)

func TestIsNumber(t *testing.T) {
	for _, tc := range []struct {
		in              string
		number, decimal bool
	}{
		{"0", true, true},
		{"-0", true, true},
		{"12", true, true},
		{"-12.50", true, true},
		{"1e9", true, true},
		{"1E+9", true, true},
		{"2.5e-3", true, true},
		{"007", false, true},
		{"00.5", false, true},
		{"+5", false, true},
		{"+-5", false, true},
		{"++5", false, false},
		{"--5", false, false},
		{"-", false, false},
		{"", false, false},
		{"+", false, false},
		{".5", false, false},
		{"5.", false, false},
		{"1e", false, false},
		{"1e+", false, false},
		{"0x10", false, false},
		{" 1", false, false},
		{"1 ", false, false},
		{"NaN", false, false},
		{"١٢", false, false},
	} {
		if got := IsNumber(tc.in); got != tc.number {
			t.Errorf("IsNumber(%q) = %v, want %v", tc.in, got, tc.number)
		}
		if got := IsDecimal(tc.in); got != tc.decimal {
			t.Errorf("IsDecimal(%q) = %v, want %v", tc.in, got, tc.decimal)
		}
	}
}

// FuzzIsNumber holds IsNumber to encoding/json's reading of a number, and
// IsDecimal to IsNumber where the looser forms are not in play.
func FuzzIsNumber(f *testing.F) {
	for _, s := range []string{"0", "-1.5e3", "007", "+5", "1e", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var n json.Number
		want := json.Unmarshal([]byte(s), &n) == nil && string(n) == s && s != "" && s[0] != '"'
		if got := IsNumber(s); got != want {
			t.Fatalf("IsNumber(%q) = %v, encoding/json says %v", s, got, want)
		}
		if IsNumber(s) && !IsDecimal(s) {
			t.Fatalf("IsDecimal(%q) = false for a JSON number", s)
		}
	})
}
