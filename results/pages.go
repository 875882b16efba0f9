package results

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"
)

// checkPages reads every page header of every column chunk of pf (data is
// the whole file) before parquet-go decodes a page, and refuses a page
// whose sizes do not fit: its compressed bytes must lie inside its chunk,
// and its uncompressed size may not exceed the chunk's stated
// uncompressed size (which decode already bounds by MaxDecodedBytes).
// parquet-go allocates the sizes a page header states before checking
// them (a damaged header cost 1.2 GiB; found by FuzzDecode).
func checkPages(pf *parquet.File, data []byte) error {
	for _, rg := range pf.Metadata().RowGroups {
		for _, c := range rg.Columns {
			if err := checkChunk(c.MetaData, data); err != nil {
				return err
			}
		}
	}
	return nil
}

// checkChunk is checkPages for one column chunk (data is the whole file).
func checkChunk(md format.ColumnMetaData, data []byte) error {
	name := strings.Join(md.PathInSchema, ".")
	start := md.DataPageOffset
	if md.DictionaryPageOffset > 0 && md.DictionaryPageOffset < start {
		start = md.DictionaryPageOffset
	}
	end := start + md.TotalCompressedSize
	if start < 4 || md.TotalCompressedSize < 0 || end > int64(len(data)) || end < start {
		return fmt.Errorf("column %s: its chunk (offset %d, %d bytes) lies outside the file", name, start, md.TotalCompressedSize)
	}
	var values int64
	for off := start; off < end; {
		var h format.PageHeader
		r := bytes.NewReader(data[off:end])
		var proto thrift.CompactProtocol
		if err := thrift.NewDecoder(proto.NewReader(r)).Decode(&h); err != nil {
			return fmt.Errorf("column %s: page header at byte %d: %w", name, off, err)
		}
		hdr := int64(len(data[off:end])) - int64(r.Len())
		switch {
		case h.CompressedPageSize < 0 || h.UncompressedPageSize < 0:
			return fmt.Errorf("column %s: page at byte %d claims a negative size", name, off)
		case off+hdr+int64(h.CompressedPageSize) > end:
			return fmt.Errorf("column %s: page at byte %d claims %d bytes, past its chunk", name, off, h.CompressedPageSize)
		case int64(h.UncompressedPageSize) > md.TotalUncompressedSize:
			return fmt.Errorf("column %s: page at byte %d claims %d bytes uncompressed, more than its chunk's %d", name, off, h.UncompressedPageSize, md.TotalUncompressedSize)
		}
		if v, ok := h.DataPageHeader.Get(); ok {
			values += int64(v.NumValues)
		}
		if v, ok := h.DataPageHeaderV2.Get(); ok {
			values += int64(v.NumValues)
		}
		off += hdr + int64(h.CompressedPageSize)
	}
	if values > md.NumValues && md.NumValues >= 0 {
		return fmt.Errorf("column %s: its pages hold %d values, its chunk says %d", name, values, md.NumValues)
	}
	return nil
}
