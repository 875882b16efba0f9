package plan

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"
)

// FuzzParse feeds arbitrary bytes to the plan loader.
// Invariants: no panic, bounded time; every error is a *Error (or *Errors
// joined); parsing is deterministic; an accepted plan is within the bounds
// Parse documents (rounds, concurrency, finite non-negative numbers, at
// least one model), so no later stage meets a value it did not check.
func FuzzParse(f *testing.F) {
	plans, _ := filepath.Glob(filepath.Join("..", "..", "plans", "*.toml"))
	for _, p := range plans {
		if data, err := os.ReadFile(p); err == nil {
			f.Add(data)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		start := time.Now()
		p, err := Parse(data, "fuzz.toml")
		if d := time.Since(start); d > 10*time.Second {
			t.Fatalf("Parse took %v for %d bytes", d, len(data))
		}
		if err != nil {
			if p != nil {
				t.Fatalf("Parse returned a plan and an error: %v", err)
			}
			var pe *Error
			if !errors.As(err, &pe) {
				t.Fatalf("error is %T, not a *Error: %v", err, err)
			}
			return
		}
		if again, err2 := Parse(data, "fuzz.toml"); err2 != nil || !reflect.DeepEqual(p, again) {
			t.Fatalf("Parse is not deterministic: %v", err2)
		}
		finite := func(field string, v float64, lo float64) {
			if math.IsNaN(v) || math.IsInf(v, 0) || v < lo {
				t.Fatalf("accepted %s = %v", field, v)
			}
		}
		if p.Rounds < 1 || p.Rounds > MaxRounds {
			t.Fatalf("accepted rounds = %d", p.Rounds)
		}
		if p.Concurrency < 1 || p.Concurrency > MaxConcurrency {
			t.Fatalf("accepted concurrency = %d", p.Concurrency)
		}
		if len(p.Models) == 0 {
			t.Fatal("accepted a plan without models")
		}
		for _, m := range p.Models {
			if m.Temperature == nil || m.MaxRetries == nil {
				t.Fatalf("model %q: defaults not filled in", m.Name)
			}
			finite("temperature", *m.Temperature, 0)
			if m.TopP != nil {
				finite("top_p", *m.TopP, 0)
			}
			finite("requests_per_minute", m.RequestsPerMinute, 0)
			if m.Price != nil {
				finite("price.input_per_million", m.Price.InputPerMillion, 0)
				finite("price.output_per_million", m.Price.OutputPerMillion, 0)
			}
			if m.MaxConcurrency < 0 || m.MaxConcurrency > MaxConcurrency {
				t.Fatalf("accepted max_concurrency = %d", m.MaxConcurrency)
			}
			if m.Timeout.Duration <= 0 || *m.MaxRetries < 0 {
				t.Fatalf("accepted timeout %v, max_retries %d", m.Timeout.Duration, *m.MaxRetries)
			}
		}
		finite("estimate.bytes_per_token", p.Estimate.BytesPerToken, math.SmallestNonzeroFloat64)
	})
}
