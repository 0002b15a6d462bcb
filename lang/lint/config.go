package lint

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/BurntSushi/toml"
	"github.com/reelier/reelier/lang/ast"
)

// ConfigPath is where a project keeps its lint configuration, relative to
// a directory the search starts from or one of its parents.
const ConfigPath = ".reelier/lint.toml"

// AllRules stands for every rule in Enable and Disable lists.
const AllRules = "all"

// Config selects the rules a driver runs and how severe their findings
// are. Every rule is enabled at its default severity unless a setting
// says otherwise.
type Config struct {
	// Enable and Disable name rules to switch on and off; AllRules stands
	// for every rule, and a named rule beats "all" whichever list it is in.
	Enable, Disable []string
	// Severity overrides the default severity of the named rules.
	Severity map[string]ast.Severity
	// Today is the date the rules take as today; the zero time means the
	// current UTC date.
	Today time.Time
	// Base holds settings this configuration overrides, such as a
	// configuration file under command-line flags: Base is applied first
	// and every setting here wins over it.
	Base *Config
}

// resolve turns the configuration into the set of enabled rules and the
// severity overrides, checking every name against rules.
func (c *Config) resolve(rules []*Rule) (map[string]bool, map[string]ast.Severity, error) {
	enabled := map[string]bool{}
	for _, r := range rules {
		enabled[r.Name] = true
	}
	severity := map[string]ast.Severity{}
	if err := c.apply(rules, enabled, severity); err != nil {
		return nil, nil, err
	}
	enabled[ruleParseError.Name] = true
	return enabled, severity, nil
}

func (c *Config) apply(rules []*Rule, enabled map[string]bool, severity map[string]ast.Severity) error {
	if c.Base != nil {
		if err := c.Base.apply(rules, enabled, severity); err != nil {
			return err
		}
	}
	known := func(name string) error {
		if _, ok := enabled[name]; ok || name == ruleParseError.Name {
			return nil
		}
		names := make([]string, 0, len(rules))
		for _, r := range rules {
			names = append(names, r.Name)
		}
		if s := suggest(name, names); s != "" {
			return fmt.Errorf("unknown lint rule %q. Did you mean %q?", name, s)
		}
		return fmt.Errorf("unknown lint rule %q (see docs/lint.md for the list)", name)
	}
	var errs []error
	on, off := map[string]bool{}, map[string]bool{}
	for _, n := range c.Enable {
		if n != AllRules {
			errs = append(errs, known(n))
		}
		on[n] = true
	}
	for _, n := range c.Disable {
		switch {
		case n == ruleParseError.Name:
			errs = append(errs, errors.New("parse_error cannot be disabled: a file that does not parse cannot be linted"))
		case n != AllRules:
			errs = append(errs, known(n))
		}
		if on[n] {
			errs = append(errs, fmt.Errorf("lint rule %q is both enabled and disabled", n))
		}
		off[n] = true
	}
	for name, sev := range c.Severity {
		if name == ruleParseError.Name {
			errs = append(errs, errors.New("the severity of parse_error is always error"))
			continue
		}
		if err := known(name); err != nil {
			errs = append(errs, err)
			continue
		}
		severity[name] = sev
	}
	if err := errors.Join(errs...); err != nil {
		return err
	}
	for name := range enabled {
		if off[AllRules] {
			enabled[name] = false
		}
		if on[AllRules] {
			enabled[name] = true
		}
		if off[name] {
			enabled[name] = false
		}
		if on[name] {
			enabled[name] = true
		}
	}
	return nil
}

// fileConfig is the shape of .reelier/lint.toml.
type fileConfig struct {
	Enable   []string          `toml:"enable"`
	Disable  []string          `toml:"disable"`
	Severity map[string]string `toml:"severity"`
}

// LoadConfig reads a lint configuration file (TOML):
//
//	disable = ["drift_index"]
//	enable = ["all"]
//	[severity]
//	unused_bind = "error"
//
// Unknown keys and unknown severities are errors; rule names are checked
// when the configuration is used.
func LoadConfig(path string) (Config, error) {
	var fc fileConfig
	md, err := toml.DecodeFile(path, &fc)
	if err != nil {
		return Config{}, fmt.Errorf("%s: %w", path, err)
	}
	if keys := md.Undecoded(); len(keys) > 0 {
		names := make([]string, len(keys))
		for i, k := range keys {
			names[i] = k.String()
		}
		sort.Strings(names)
		return Config{}, fmt.Errorf("%s: unknown setting %s (expected enable, disable and [severity])", path, strings.Join(names, ", "))
	}
	cfg := Config{Enable: fc.Enable, Disable: fc.Disable}
	for name, s := range fc.Severity {
		sev, ok := ast.ParseSeverity(s)
		if !ok {
			return Config{}, fmt.Errorf("%s: severity of %s is %q; expected error, warning, info or hint", path, name, s)
		}
		if cfg.Severity == nil {
			cfg.Severity = map[string]ast.Severity{}
		}
		cfg.Severity[name] = sev
	}
	return cfg, nil
}

// FindConfig looks for ConfigPath in dir and each of its parents and
// returns the first one found, or "".
func FindConfig(dir string) string {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return ""
	}
	for {
		p := filepath.Join(dir, ConfigPath)
		if info, err := os.Stat(p); err == nil && !info.IsDir() {
			return p
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}
