package compile_test

import (
	"io"
	"os"
	"runtime"
	"runtime/pprof"
	"testing"

	"github.com/reelier/reelier/compile"
)

func TestZZHeap(t *testing.T) {
	path := os.Getenv("ZZTRACE")
	if path == "" {
		t.Skip()
	}
	runtime.MemProfileRate = 512
	x, err := compile.NewFile(path, compile.Options{})
	if err != nil {
		t.Fatal(err)
	}
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	t.Logf("live after NewFile: %d", ms.HeapAlloc)
	f, _ := os.Create("/tmp/cc/heap-analysis.out")
	pprof.WriteHeapProfile(f)
	f.Close()
	x.Write(io.Discard)
	runtime.KeepAlive(x)
}
