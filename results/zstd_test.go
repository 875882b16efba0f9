package results

import (
	"bytes"
	"math/rand/v2"
	"testing"

	"github.com/parquet-go/parquet-go/compress/zstd"
)

// The results files' codec writes exactly what parquet-go's codec of the
// same level writes, at the sizes around its two windows' boundary and at
// the smallest frames, for text-like and random bytes.
func TestZstdCodecEncodesAsParquetGo(t *testing.T) {
	ref := &zstd.Codec{Level: zstd.SpeedDefault}
	rng := rand.New(rand.NewPCG(1, 2))
	words := []string{"pymatgen", "Structure", "defect", "<answer>A</answer>", "def get_", "return {", "\n", " ", "0.25", "formation_energy"}
	text := func(n int) []byte {
		var b bytes.Buffer
		for b.Len() < n {
			b.WriteString(words[rng.IntN(len(words))])
		}
		return b.Bytes()[:n]
	}
	random := func(n int) []byte {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(rng.Uint32())
		}
		return b
	}
	for _, n := range []int{0, 1, 100, 1023, 1024, 1025, 64 << 10, smallWindow - 1, smallWindow, smallWindow + 1, 3 << 20} {
		for kind, gen := range map[string]func(int) []byte{"text": text, "random": random} {
			src := gen(n)
			want, err := ref.Encode(nil, src)
			if err != nil {
				t.Fatal(err)
			}
			for range 2 { // a pooled encoder again
				got, err := resultsZstd.Encode(nil, src)
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(got, want) {
					t.Fatalf("%s of %d bytes: %d bytes encoded, parquet-go's codec %d (first difference at %d)", kind, n, len(got), len(want), firstDiff(got, want))
				}
			}
			back, err := resultsZstd.Decode(nil, want)
			if err != nil || !bytes.Equal(back, src) {
				t.Fatalf("%s of %d bytes: decoding: %v", kind, n, err)
			}
		}
	}
}

func firstDiff(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}
