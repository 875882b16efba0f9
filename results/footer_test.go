package results

import (
	"bytes"
	"encoding/binary"
	"errors"
	"os"
	"strings"
	"testing"
)

// craftedFooter is a Parquet file of a footer only: a FileMetaData whose
// field 2 (schema, a list of structs) claims n elements.
func craftedFooter(n uint64) []byte {
	footer := []byte{0x15, 0x02, 0x19, 0xfc} // field 1 i32 = 1, field 2: list of structs, long size
	footer = binary.AppendUvarint(footer, n)
	var b bytes.Buffer
	b.WriteString("PAR1")
	b.Write(footer)
	binary.Write(&b, binary.LittleEndian, uint32(len(footer)))
	b.WriteString("PAR1")
	return b.Bytes()
}

// TestFooterListCountsAreChecked: a 20-byte file whose footer claims 10^8
// schema elements is a FormatError, before parquet-go reserves gigabytes
// for them (a fatal out-of-memory error, which no recover catches); the
// committed results files and the seeds still pass the check.
func TestFooterListCountsAreChecked(t *testing.T) {
	data := craftedFooter(100_000_000)
	_, err := decode(data)
	var fe *FormatError
	if err == nil || !strings.Contains(err.Error(), "a list claims 100000000 elements") || !errors.As(err, &fe) {
		t.Fatalf("decode of a %d-byte file claiming 10^8 elements: %v", len(data), err)
	}
	p := t.TempDir() + "/x.parquet"
	os.WriteFile(p, data, 0o644)
	if id := PeekRunID(p); id != "x" {
		t.Errorf("PeekRunID = %q", id)
	}
	for _, s := range v2Seeds(t) {
		if err := checkFooter(bytes.NewReader(s), int64(len(s))); err != nil {
			t.Errorf("a valid file fails the footer check: %v", err)
		}
	}
}
