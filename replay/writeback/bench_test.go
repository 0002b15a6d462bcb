package writeback

import (
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkApply is one write-back of a two-step skill: lock, read, parse,
// patch, print, parse again to verify, write a temporary file, fsync,
// rename. The file is put back (untimed) before each iteration.
func BenchmarkApply(b *testing.B) {
	path := filepath.Join(b.TempDir(), "drift.skill.md")
	src := []byte(head + fetch + second)
	h := heal(b)
	b.ReportAllocs()
	for b.Loop() {
		b.StopTimer()
		if err := os.WriteFile(path, src, 0o644); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		if err := Apply(path, h); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkPatch is the in-memory part alone: parse, patch, print, verify.
func BenchmarkPatch(b *testing.B) {
	src := []byte(head + fetch + second + "\n## Changelog\n\n- 2026-07-01 — compiled\n")
	h := heal(b)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Patch("drift.skill.md", src, h); err != nil {
			b.Fatal(err)
		}
	}
}
