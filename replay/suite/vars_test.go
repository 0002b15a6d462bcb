package suite

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/reelier/reelier/internal/exitstatus"
)

func TestCheckName(t *testing.T) {
	tests := []struct {
		name string
		want error
	}{
		{"a", nil}, {"_c", nil}, {"stripe_key2", nil},
		{"", ErrNotIdentifier}, {"1a", ErrNotIdentifier}, {"a-b", ErrNotIdentifier}, {"é", ErrNotIdentifier},
		{"today", ErrReserved},
	}
	for _, tt := range tests {
		if got := CheckName(tt.name); got != tt.want {
			t.Errorf("CheckName(%q) = %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestLoadVarsPrecedence(t *testing.T) {
	file := filepath.Join(t.TempDir(), "vars.env")
	if err := os.WriteFile(file, []byte("# c\nb=file\nc='quoted'\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	got, err := LoadVars([]string{"c=flag"}, []string{file}, []string{"REELIER_VAR_a=env", "REELIER_VAR_b=env", "REELIER_VAR_today=x"})
	if err != nil {
		t.Fatal(err)
	}
	if want := map[string]string{"a": "env", "b": "file", "c": "flag"}; !reflect.DeepEqual(got, want) {
		t.Errorf("LoadVars = %v, want %v", got, want)
	}
}

func TestSecretVarsWording(t *testing.T) {
	_, err := SecretVars([]string{"1x=2"})
	if err == nil || exitstatus.Code(err) != exitstatus.Usage || !strings.HasPrefix(err.Error(), "invalid --secret-var ") {
		t.Errorf("SecretVars: %v, want a usage error naming --secret-var", err)
	}
}

func TestRunRefusesFlags(t *testing.T) {
	// The usage errors Run reports before it reads any skill.
	tests := []struct {
		opts Options
		want string
	}{
		{Options{Jobs: 0}, "--jobs must be at least 1, got 0"},
		{Options{Jobs: 1, DryRun: true, JUnit: "x.xml"}, "--junit cannot be used with --dry-run: a dry run executes nothing"},
		{Options{Jobs: 1, MaxLevel: 3}, "--max-level must be 0, 1 or 2, got 3"},
		{Options{Jobs: 1, Retry: 101}, "--retry must be 0 to 100, got 101"},
		{Options{Jobs: 1, Heal: HealOptions{Mode: "dry"}}, `--heal must be write or propose, got "dry"`},
	}
	for _, tt := range tests {
		err := Run(t.Context(), tt.opts)
		if err == nil || err.Error() != tt.want || exitstatus.Code(err) != exitstatus.Usage {
			t.Errorf("Run(%+v) = %v, want usage error %q", tt.opts, err, tt.want)
		}
	}
}
