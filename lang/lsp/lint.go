package lsp

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/reelier/reelier/lang/ast"
	"github.com/reelier/reelier/lang/lint"
)

// parseErrorRule is the lint rule that repeats the parser's diagnostics.
// The server publishes the parser's own diagnostics instead, which keep
// their rejection codes and suggested fixes.
const parseErrorRule = "parse_error"

// lintConfigCode marks the diagnostic about an unusable lint configuration.
const lintConfigCode = "lint_config"

// linters runs the lint driver configured for each document: the
// .reelier/lint.toml found from the file's directory upwards, or the
// defaults. Drivers are built once per configuration file and rebuilt when
// the file changes.
type linters struct {
	today time.Time // the date rules take as today; zero means the current date

	mu      sync.Mutex
	drivers map[string]*lintDriver
}

// lintDriver is a driver with the configuration it came from.
type lintDriver struct {
	driver  *lint.Driver // nil when no driver could be built
	modTime time.Time
	err     error // why the configuration file could not be used
}

// defaultLinters lints documents made outside a server, with the default
// configuration of the directory they name.
var defaultLinters = &linters{}

// run returns the lint findings of a parsed document, without parse_error.
func (l *linters) run(d *Document, syn *syntax) ast.Diagnostics {
	ld := l.driverFor(d.name)
	var out ast.Diagnostics
	if ld.err != nil {
		out = append(out, ast.Diagnostic{
			File: d.name, Severity: ast.SeverityWarning, Code: lintConfigCode,
			Range:   ast.Range{Start: ast.Pos{Line: 1, Column: 1}, End: ast.Pos{Line: 1, Column: 1}},
			Message: fmt.Sprintf("lint configuration not used, defaults apply: %v", ld.err),
		})
	}
	if ld.driver == nil {
		return out
	}
	for _, f := range ld.driver.Run(&lint.File{Name: d.name, Src: syn.src, Skill: syn.skill, Diags: syn.diags}) {
		if f.Code != parseErrorRule {
			out = append(out, f)
		}
	}
	return out
}

// driverFor returns the driver for a file path.
func (l *linters) driverFor(path string) *lintDriver {
	cfgPath := ""
	var mod time.Time
	if filepath.IsAbs(path) {
		if cfgPath = lint.FindConfig(filepath.Dir(path)); cfgPath != "" {
			if info, err := os.Stat(cfgPath); err == nil {
				mod = info.ModTime()
			}
		}
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if ld, ok := l.drivers[cfgPath]; ok && ld.modTime.Equal(mod) {
		return ld
	}
	ld := &lintDriver{modTime: mod}
	cfg := lint.Config{Today: l.today}
	if cfgPath != "" {
		if fileCfg, err := lint.LoadConfig(cfgPath); err != nil {
			ld.err = err
		} else {
			cfg = lint.Config{Base: &fileCfg, Today: l.today}
		}
	}
	drv, err := lint.New(cfg)
	if err != nil {
		ld.err = fmt.Errorf("%s: %w", cfgPath, err)
		drv, err = lint.New(lint.Config{Today: l.today})
	}
	if err != nil { // the rule registry itself is broken: lint nothing
		ld.err, drv = err, nil
	}
	ld.driver = drv
	if l.drivers == nil {
		l.drivers = map[string]*lintDriver{}
	}
	l.drivers[cfgPath] = ld
	return ld
}
