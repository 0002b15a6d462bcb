package main

import (
	"bufio"
	"bytes"
	"os"
	"strings"

	"github.com/reelier/reelier/lang/grammar"
	"github.com/reelier/reelier/redact"
)

// envVarPrefix names the environment variables that supply a skill's
// inputs: REELIER_VAR_stripe_key supplies {{stripe_key}}. A secret passed
// this way stays out of the command line (and out of `ps`).
const envVarPrefix = "REELIER_VAR_"

// loadVars gathers a run's input variables from, in rising order of
// precedence, the environment (REELIER_VAR_<name>), --var-file files (one
// `name=value` a line; blank lines and lines starting with # are skipped;
// a value in matching single or double quotes loses them) and --var
// flags. A malformed line is a usage error naming the file and line.
func loadVars(flags, files, environ []string) (map[string]string, error) {
	vars := map[string]string{}
	for _, kv := range environ {
		name, value, ok := strings.Cut(kv, "=")
		if rest, isOurs := strings.CutPrefix(name, envVarPrefix); ok && isOurs && isIdentifier(rest) && !grammar.IsReservedName(rest) {
			vars[rest] = value
		}
	}
	for _, path := range files {
		raw, err := os.ReadFile(path)
		if err != nil {
			return nil, usageErrorf("--var-file: %v", err)
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
			case !ok || !isIdentifier(name):
				return nil, usageErrorf("%s:%d: want name=value, where name is a letter or _ followed by letters, digits or _", path, n)
			case grammar.IsReservedName(name):
				return nil, usageErrorf("%s:%d: %q is reserved for the computed date variables", path, n, name)
			}
			value = strings.TrimSpace(value)
			if len(value) >= 2 && (value[0] == '"' || value[0] == '\'') && value[len(value)-1] == value[0] {
				value = value[1 : len(value)-1]
			}
			vars[name] = value
		}
		if err := sc.Err(); err != nil {
			return nil, usageErrorf("--var-file %s: %v", path, err)
		}
	}
	fromFlags, err := parseVars(flags)
	if err != nil {
		return nil, err
	}
	for k, v := range fromFlags {
		vars[k] = v
	}
	return vars, nil
}

// addSecretVars adds the --secret-var name=value flags to vars (they win
// over every other source) and registers each value as a secret of the
// process (trace.RegisterSecret), so that every redactor blanks it.
func addSecretVars(vars map[string]string, kvs []string) error {
	secret, err := secretVars(kvs)
	if err != nil {
		return err
	}
	for name, value := range secret {
		vars[name] = value
	}
	return nil
}

// registerSecretVars registers the --secret-var name=value flags of a
// command that has no template variables (reelier mcp).
func registerSecretVars(kvs []string) error {
	_, err := secretVars(kvs)
	return err
}

// secretVars parses --secret-var flags, with --var's rules, and registers
// each value with trace.RegisterSecret.
func secretVars(kvs []string) (map[string]string, error) {
	secret, err := parseVars(kvs)
	if err != nil {
		return nil, usageErrorf("%s", strings.Replace(err.Error(), "--var", "--secret-var", 1))
	}
	for name, value := range secret {
		redact.RegisterSecret(name, value)
	}
	return secret, nil
}
