//go:build !unix

package lsp

import "time"

// processCPU is unknown here; the cpu-ms/op metric is then left out.
func processCPU() time.Duration { return 0 }
