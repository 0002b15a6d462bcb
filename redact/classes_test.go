package redact

import "testing"

// TestCharacterClasses holds classes (upper, lower and digits counted,
// anything else not) and awsSecretShape (upper and lower and something
// else) to what the secret detectors rely on.
func TestCharacterClasses(t *testing.T) {
	tests := []struct {
		s       string
		classes int
		aws     bool
	}{
		{"", 0, false},
		{"abc", 1, false},
		{"ABC", 1, false},
		{"123", 1, false},
		{"+/-_", 0, false},
		{"abcDEF", 2, false},
		{"abc123", 2, false},
		{"ABC123", 2, false},
		{"abcDEF1", 3, true},
		{"abcDEF/", 2, true},
		{"abcDEF+9", 3, true},
		{"abc/123", 2, false},
		{"é", 0, false},
		{"Aaé", 2, true},
	}
	for _, tt := range tests {
		if got := classes(tt.s); got != tt.classes {
			t.Errorf("classes(%q) = %d, want %d", tt.s, got, tt.classes)
		}
		if got := awsSecretShape(tt.s); got != tt.aws {
			t.Errorf("awsSecretShape(%q) = %v, want %v", tt.s, got, tt.aws)
		}
	}
}
