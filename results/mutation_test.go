package results

import (
	"math/rand/v2"
	"runtime"
	"testing"
	"time"
)

// TestDecodeSurvivesMutations decodes 16,000 damaged copies of the v2
// seeds (1–4 bytes changed each, a fixed random sequence) and requires that
// none panics, takes over 2 s or leaves the heap over 512 MiB: the same
// sequence found three ways a damaged file got past the reader's caps
// (parquet-go's LZ4 decoder doubling its buffer forever, a footer length
// allocated before it is checked, page sizes allocated as the page header
// states them), and a panic in its page-index reader. go test -fuzz
// explores further (make fuzz), but coverage instrumentation of
// parquet-go makes it run at a few executions a second.
func TestDecodeSurvivesMutations(t *testing.T) {
	seeds := v2Seeds(t)
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 16_000 {
		s := append([]byte(nil), seeds[r.IntN(len(seeds))]...)
		for range 1 + r.IntN(4) {
			switch p := r.IntN(len(s)); r.IntN(3) {
			case 0:
				s[p] = byte(r.IntN(256))
			case 1:
				s[p] ^= 1 << r.IntN(8)
			default:
				s[p] = 0xff
			}
		}
		done := make(chan any, 1)
		start := time.Now()
		go func() {
			defer func() { done <- recover() }()
			if f, err := decode(s); err == nil {
				Validate(f)
			}
		}()
		select {
		case p := <-done:
			if p != nil {
				t.Fatalf("mutation %d: decode panicked: %v", i, p)
			}
		case <-time.After(30 * time.Second): // a hang, not a slow machine
			t.Fatalf("mutation %d: decode still running after 30 s", i)
		}
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		if d := time.Since(start); ms.HeapAlloc > 512<<20 {
			t.Fatalf("mutation %d: heap at %d MiB after %v", i, ms.HeapAlloc>>20, d)
		}
	}
}
