package cli

import (
	"errors"
	"strings"

	"github.com/reelier/reelier/mcpx"
	"github.com/spf13/pflag"
)

// wrapHeaderHelp is the help of --wrap-header, shared by mcp and run.
const wrapHeaderHelp = "send the header `'NAME: VALUE'` to the --wrap URL given before it (repeatable); $VAR and ${VAR} in VALUE are read from the environment, so a token stays out of argv, traces and skills"

// wraps collects --wrap and --wrap-header in the order they were given on
// the command line: a header belongs to the --wrap URL right before it.
type wraps struct {
	list    []string
	headers [][]string // the header texts given after each --wrap
	early   []string   // headers given before any --wrap
}

// addWrapFlags defines --wrap (with the given help) and --wrap-header.
func addWrapFlags(f *pflag.FlagSet, w *wraps, help string) {
	f.Var(wrapValue{w}, "wrap", help)
	f.Var(wrapHeaderValue{w}, "wrap-header", wrapHeaderHelp)
}

type wrapValue struct{ w *wraps }

func (v wrapValue) Set(s string) error {
	v.w.list = append(v.w.list, s)
	v.w.headers = append(v.w.headers, nil)
	return nil
}
func (v wrapValue) Type() string   { return "stringArray" }
func (v wrapValue) String() string { return "" }

type wrapHeaderValue struct{ w *wraps }

func (v wrapHeaderValue) Set(s string) error {
	if n := len(v.w.list); n > 0 {
		v.w.headers[n-1] = append(v.w.headers[n-1], s)
	} else {
		v.w.early = append(v.w.early, s)
	}
	return nil
}
func (v wrapHeaderValue) Type() string   { return "stringArray" }
func (v wrapHeaderValue) String() string { return "" }

// resolve reads each --wrap once into a server spec, its headers with
// it. Every
// header must follow a --wrap URL, read as 'NAME: VALUE', and name only
// environment variables that are set: each failure is a usage error that
// names the header (never its value) and says what to do.
func (w *wraps) resolve() ([]mcpx.ServerSpec, error) {
	if len(w.early) > 0 {
		return nil, usageErrorf("--wrap-header %s: a header applies to the --wrap URL given before it; put it after that --wrap", headerLabel(w.early[0]))
	}
	out := make([]mcpx.ServerSpec, len(w.list))
	for k, raw := range w.list {
		out[k] = mcpx.ParseServer(raw)
	}
	var errs []error
	for k, texts := range w.headers {
		for _, text := range texts {
			if !out[k].Remote() {
				errs = append(errs, usageErrorf("--wrap-header %s: the --wrap before it is a command, not an http:// or https:// URL; a command's server takes its settings from its arguments and the environment", headerLabel(text)))
				continue
			}
			h, err := mcpx.ParseHeader(text)
			if err != nil {
				errs = append(errs, usageErrorf("--wrap-header %s: %v", headerLabel(text), err))
				continue
			}
			if _, err := h.Expand(nil); err != nil {
				errs = append(errs, usageErrorf("--wrap-header %s: %v (quote the header in single quotes so that the shell leaves $VAR to reelier)", h.Name, err))
				continue
			}
			out[k].Headers = append(out[k].Headers, h)
		}
	}
	for _, sv := range out {
		if sv.Remote() {
			if _, err := mcpx.ParseURL(sv.URL); err != nil {
				errs = append(errs, usageErrorf("%v", err))
			}
		}
	}
	if len(errs) > 0 {
		return nil, usageErrorf("%v", errors.Join(errs...))
	}
	return out, nil
}

// headerLabel names a header in a message by what precedes its colon, so
// that a value given literally is never printed.
func headerLabel(text string) string {
	name, _, ok := strings.Cut(text, ":")
	name = strings.TrimSpace(name)
	if !ok || name == "" || len(name) > 64 || strings.ContainsAny(name, " \t") {
		return "(the header given)"
	}
	return name
}
