package trace_test

import "strings"

// Secrets assembled at run time, so no credential literal sits in the
// source.
var (
	ghToken = "ghp_" + strings.Repeat("aB3x", 9)
	hex40   = strings.Repeat("3f9a2c7e10", 4)
)
