package results

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"
)

// Fuzz targets of the results reader and validator.
// `make test` runs their seeds (testdata/fuzz/<target>/ and the f.Add calls);
// `make fuzz` mutates them for FUZZTIME each.

// fuzzBudget bounds the time one input may take: decoding a file of a few
// kilobytes is milliseconds, so seconds mean a hang.
const fuzzBudget = 10 * time.Second

// v2Seeds returns the v1 fixtures of testdata/v1 rewritten by Write as the
// current format version (their raw v1 bytes are the committed corpus).
func v2Seeds(tb testing.TB) [][]byte {
	var out [][]byte
	for _, name := range []string{"tool-usage.parquet", "qa.parquet"} {
		f, err := Read(filepath.Join("testdata", "v1", name))
		if err != nil {
			tb.Fatal(err)
		}
		f.Run.FormatVersion = FormatVersion
		p := filepath.Join(tb.TempDir(), name)
		if err := Write(p, f); err != nil {
			tb.Fatal(err)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			tb.Fatal(err)
		}
		out = append(out, data)
	}
	return out
}

// FuzzDecode feeds arbitrary bytes to the reader's decode (what Read does
// with a file's bytes). Invariants: no panic, bounded time, errors are
// *FormatError values (joined or not); an accepted file validates, and one
// of the current version is written back by Write and read back equal.
func FuzzDecode(f *testing.F) {
	for _, s := range v2Seeds(f) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		// A hang never returns to be timed: the watchdog panics, which
		// kills the fuzz worker and makes go test save the input.
		watchdog := time.AfterFunc(fuzzBudget, func() { panic(fmt.Sprintf("decode of %d bytes still running after %v", len(data), fuzzBudget)) })
		got, err := decode(data)
		watchdog.Stop()
		if err != nil {
			var fe *FormatError
			if !errors.As(err, &fe) {
				t.Fatalf("error is %T, not a *FormatError: %v", err, err)
			}
			return
		}
		if err := Validate(got); err != nil {
			t.Fatalf("decode accepted a file Validate rejects: %v", err)
		}
		if got.Run.FormatVersion != FormatVersion {
			return // Write writes the current version only
		}
		p := filepath.Join(t.TempDir(), "f.parquet")
		if err := Write(p, got); err != nil {
			t.Fatalf("decoded file does not write back: %v", err)
		}
		again, err := Read(p)
		if err != nil {
			t.Fatalf("written file does not read back: %v", err)
		}
		again.Path = got.Path
		if !reflect.DeepEqual(got, again) {
			t.Fatalf("round trip differs:\n got   %+v\n again %+v", got, again)
		}
	})
}

// FuzzValidate changes the counts of a valid tool-usage file (totals and
// first row) and validates it. Invariants: no panic; an accepted file
// writes and reads back (writer, reader and validator agree), and its
// counts are within the bounds of the question set: runnable and the
// correct/partial counts in 0…questions, properties passed at most the
// properties and, under mattools-v1 (whose arithmetic may credit fewer
// than zero), not below −100 × the property count (FORMAT.md documents no
// lower bound; this test sets one).
func FuzzValidate(f *testing.F) {
	f.Add(2, 6, 1, 1, int32(4), int32(10), true)
	f.Add(0, 0, 0, 0, int32(0), int32(10), false)
	f.Add(3, -2000000000, 1, 1, int32(1), int32(10), true)
	base := v2Seeds(f)[0]
	f.Fuzz(func(t *testing.T, runnable, passed, correct, partial int, rowPassed, rowCount int32, rowRunnable bool) {
		file, err := decode(base)
		if err != nil {
			t.Fatal(err)
		}
		tot := &file.Run.Totals
		tot.Runnable, tot.PropertiesPassed, tot.QuestionsCorrect, tot.QuestionsPartial = &runnable, &passed, &correct, &partial
		q := &file.Questions[0]
		q.PropertiesPassed, q.PropertyCount, q.Runnable = &rowPassed, rowCount, &rowRunnable
		if Validate(file) != nil {
			return
		}
		r := &file.Run
		if runnable < 0 || runnable > tot.Questions || correct < 0 || partial < 0 || correct+partial > tot.Questions {
			t.Fatalf("accepted totals runnable %d, correct %d, partial %d of %d questions", runnable, correct, partial, tot.Questions)
		}
		lower := 0
		if r.ScoringProtocol == ProtocolMatToolsV1 {
			lower = -100 * tot.Properties
		}
		if passed > tot.Properties || passed < lower {
			t.Fatalf("accepted totals.properties_passed %d (%s, %d properties)", passed, r.ScoringProtocol, tot.Properties)
		}
		rowLower := int32(0)
		if r.ScoringProtocol == ProtocolMatToolsV1 {
			rowLower = -100 * max(rowCount, 1)
		}
		if rowCount < 0 || rowPassed > rowCount || rowPassed < rowLower {
			t.Fatalf("accepted row properties_passed %d of property_count %d (%s)", rowPassed, rowCount, r.ScoringProtocol)
		}
		p := filepath.Join(t.TempDir(), "f.parquet")
		if err := Write(p, file); err != nil {
			t.Fatalf("validated file does not write: %v", err)
		}
		if _, err := Read(p); err != nil {
			t.Fatalf("validated file does not read back: %v", err)
		}
	})
}
