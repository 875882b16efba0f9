package results

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
)

// MaxFooterBytes caps a results file's Parquet footer (its metadata: the
// schema, the row groups' column chunks and the key-value metadata holding
// the run record). A results file's footer is a few kilobytes; 16 MiB
// leaves room for large runs and submissions.
const MaxFooterBytes = 16 << 20

// checkFooter reads the Parquet footer of a file of size bytes and checks
// it before parquet-go decodes it: its length fits the file and
// MaxFooterBytes, and in its Thrift compact encoding every list, set and map
// claims no more elements than bytes remain (each element takes at least
// one) and every string no more bytes than remain. parquet-go allocates the
// element counts a footer claims before reading any element, so a 20-byte
// file claiming 2^27 schema elements cost 12 GB (fatal: a Go out-of-memory
// error cannot be recovered); found in review.
func checkFooter(r io.ReaderAt, size int64) error {
	var tail [8]byte
	if size < 12 {
		return fmt.Errorf("not a Parquet file: %d bytes", size)
	}
	if _, err := r.ReadAt(tail[:], size-8); err != nil {
		return fmt.Errorf("not a Parquet file: %w", err)
	}
	if string(tail[4:]) != "PAR1" {
		return errors.New("not a Parquet file: no PAR1 trailer")
	}
	n := int64(binary.LittleEndian.Uint32(tail[:4]))
	switch {
	case n > size-12:
		return fmt.Errorf("not a Parquet file: its footer claims %d bytes, more than the file holds", n)
	case n > MaxFooterBytes:
		return fmt.Errorf("its Parquet footer is %d bytes, over the reader's cap of %d", n, MaxFooterBytes)
	}
	footer := make([]byte, n)
	if _, err := r.ReadAt(footer, size-8-n); err != nil {
		return fmt.Errorf("not a Parquet file: %w", err)
	}
	t := &thriftScan{b: footer}
	if err := t.structure(0); err != nil {
		return fmt.Errorf("not a Parquet file: its footer at byte %d: %w", t.pos, err)
	}
	return nil
}

// thriftScan walks Thrift compact-protocol data without building it,
// checking every length against the bytes left.
type thriftScan struct {
	b   []byte
	pos int
}

const maxThriftDepth = 64

func (t *thriftScan) byte1() (byte, error) {
	if t.pos >= len(t.b) {
		return 0, io.ErrUnexpectedEOF
	}
	c := t.b[t.pos]
	t.pos++
	return c, nil
}

func (t *thriftScan) varint() (uint64, error) {
	v, n := binary.Uvarint(t.b[t.pos:])
	if n <= 0 {
		return 0, errors.New("bad varint")
	}
	t.pos += n
	return v, nil
}

func (t *thriftScan) left() uint64 { return uint64(len(t.b) - t.pos) }

func (t *thriftScan) structure(depth int) error {
	if depth > maxThriftDepth {
		return errors.New("nested too deeply")
	}
	for {
		h, err := t.byte1()
		if err != nil {
			return err
		}
		if h == 0 { // stop
			return nil
		}
		if h>>4 == 0 { // long form: the field id follows as a zigzag varint
			if _, err := t.varint(); err != nil {
				return err
			}
		}
		if err := t.value(h&0x0f, depth); err != nil {
			return err
		}
	}
}

func (t *thriftScan) value(typ byte, depth int) error {
	switch typ {
	case 1, 2: // bool in a field header
		return nil
	case 3: // byte
		_, err := t.byte1()
		return err
	case 4, 5, 6: // i16, i32, i64: zigzag varints
		_, err := t.varint()
		return err
	case 7: // double
		if t.left() < 8 {
			return io.ErrUnexpectedEOF
		}
		t.pos += 8
		return nil
	case 8: // binary
		n, err := t.varint()
		if err != nil {
			return err
		}
		if n > t.left() {
			return fmt.Errorf("a string claims %d bytes, %d remain", n, t.left())
		}
		t.pos += int(n)
		return nil
	case 9, 10: // list, set
		h, err := t.byte1()
		if err != nil {
			return err
		}
		n := uint64(h >> 4)
		if n == 15 {
			if n, err = t.varint(); err != nil {
				return err
			}
		}
		if n > t.left() {
			return fmt.Errorf("a list claims %d elements, %d bytes remain", n, t.left())
		}
		elem := h & 0x0f
		for range n {
			if elem == 1 || elem == 2 { // bools in a list take a byte each
				if _, err := t.byte1(); err != nil {
					return err
				}
				continue
			}
			if err := t.value(elem, depth+1); err != nil {
				return err
			}
		}
		return nil
	case 11: // map
		n, err := t.varint()
		if err != nil {
			return err
		}
		if n == 0 {
			return nil
		}
		if n > t.left() {
			return fmt.Errorf("a map claims %d entries, %d bytes remain", n, t.left())
		}
		kv, err := t.byte1()
		if err != nil {
			return err
		}
		for range n {
			for _, typ := range []byte{kv >> 4, kv & 0x0f} {
				if typ == 1 || typ == 2 {
					if _, err := t.byte1(); err != nil {
						return err
					}
					continue
				}
				if err := t.value(typ, depth+1); err != nil {
					return err
				}
			}
		}
		return nil
	case 12: // struct
		return t.structure(depth + 1)
	}
	return fmt.Errorf("unknown Thrift type %d", typ)
}
