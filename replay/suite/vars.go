package suite

import (
	"bufio"
	"bytes"
	"errors"
	"os"
	"strings"

	"github.com/reelier/reelier/internal/exitstatus"
	"github.com/reelier/reelier/internal/words"
	"github.com/reelier/reelier/lang/grammar"
	"github.com/reelier/reelier/redact"
)

// EnvVarPrefix names the environment variables that supply a skill's
// inputs: REELIER_VAR_stripe_key supplies {{stripe_key}}. A secret passed
// this way stays out of the command line (and out of `ps`).
const EnvVarPrefix = "REELIER_VAR_"

// The two ways a variable's name is refused (CheckName).
var (
	ErrNotIdentifier = errors.New("not an identifier")
	ErrReserved      = errors.New("reserved for the computed date variables")
)

// CheckName applies the rule every source of a template variable shares
// (--var, --var-file, REELIER_VAR_<name>, --secret-var, reelier serve's
// vars): a name is a letter or _ followed by letters, digits or _, and not
// one of the computed date variables. It returns nil, ErrNotIdentifier or
// ErrReserved; each caller words its own message.
func CheckName(name string) error {
	switch {
	case !words.IsIdent(name):
		return ErrNotIdentifier
	case grammar.IsReservedName(name):
		return ErrReserved
	}
	return nil
}

// ParseVars turns name=value flags into variables.
func ParseVars(kvs []string) (map[string]string, error) {
	vars := make(map[string]string, len(kvs))
	for _, kv := range kvs {
		name, value, ok := strings.Cut(kv, "=")
		if !ok || !words.IsIdent(name) {
			return nil, exitstatus.Usagef("invalid --var %q: want name=value, where name is a letter or _ followed by letters, digits or _", kv)
		}
		if grammar.IsReservedName(name) {
			return nil, exitstatus.Usagef("invalid --var %q: %q is reserved for the computed date variables", kv, name)
		}
		vars[name] = value
	}
	return vars, nil
}

// LoadVars gathers a run's input variables from, in rising order of
// precedence, the environment (REELIER_VAR_<name>), --var-file files (one
// `name=value` a line; blank lines and lines starting with # are skipped;
// a value in matching single or double quotes loses them) and --var
// flags. A malformed line is a usage error naming the file and line.
func LoadVars(flags, files, environ []string) (map[string]string, error) {
	vars := map[string]string{}
	for _, kv := range environ {
		name, value, ok := strings.Cut(kv, "=")
		if rest, isOurs := strings.CutPrefix(name, EnvVarPrefix); ok && isOurs && CheckName(rest) == nil {
			vars[rest] = value
		}
	}
	for _, path := range files {
		raw, err := os.ReadFile(path)
		if err != nil {
			return nil, exitstatus.Usagef("--var-file: %v", err)
		}
		sc := bufio.NewScanner(bytes.NewReader(raw))
		sc.Buffer(nil, 1<<20)
		for n := 1; sc.Scan(); n++ {
			line := strings.TrimSpace(sc.Text())
			if line == "" || strings.HasPrefix(line, "#") {
				continue
			}
			name, value, ok := strings.Cut(line, "=")
			name = strings.TrimSpace(name)
			switch {
			case !ok || !words.IsIdent(name):
				return nil, exitstatus.Usagef("%s:%d: want name=value, where name is a letter or _ followed by letters, digits or _", path, n)
			case grammar.IsReservedName(name):
				return nil, exitstatus.Usagef("%s:%d: %q is reserved for the computed date variables", path, n, name)
			}
			value = strings.TrimSpace(value)
			if len(value) >= 2 && (value[0] == '"' || value[0] == '\'') && value[len(value)-1] == value[0] {
				value = value[1 : len(value)-1]
			}
			vars[name] = value
		}
		if err := sc.Err(); err != nil {
			return nil, exitstatus.Usagef("--var-file %s: %v", path, err)
		}
	}
	fromFlags, err := ParseVars(flags)
	if err != nil {
		return nil, err
	}
	for k, v := range fromFlags {
		vars[k] = v
	}
	return vars, nil
}

// AddSecretVars adds the --secret-var name=value flags to vars (they win
// over every other source) and registers each value as a secret of the
// process, so that every redactor blanks it.
func AddSecretVars(vars map[string]string, kvs []string) error {
	secret, err := SecretVars(kvs)
	if err != nil {
		return err
	}
	for name, value := range secret {
		vars[name] = value
	}
	return nil
}

// SecretVars parses --secret-var flags, with --var's rules, and registers
// each value with redact.RegisterSecret.
func SecretVars(kvs []string) (map[string]string, error) {
	secret, err := ParseVars(kvs)
	if err != nil {
		return nil, exitstatus.Usagef("%s", strings.Replace(err.Error(), "--var", "--secret-var", 1))
	}
	for name, value := range secret {
		redact.RegisterSecret(name, value)
	}
	return secret, nil
}
