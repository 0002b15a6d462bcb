package main

import (
	"io"
	"testing"
)

func BenchmarkProbeDry500(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if c := run([]string{"run", "/tmp/st-abwork/skill500.skill.md", "--dry-run"}, nil, io.Discard, io.Discard); c != 0 {
			b.Fatal(c)
		}
	}
}
