package submission

import (
	"encoding/base64"
	"fmt"
	"os"
	"slices"

	"github.com/parquet-go/parquet-go"

	"github.com/mattools-leaderboard/leaderboard/results"
)

// knownKeys are the key-value metadata keys a submitted results file may
// carry: the format's own (results/FORMAT.md) and the schema pyarrow and
// pandas store. Anything else would be published verbatim without being
// read, so it is refused.
var knownKeys = []string{results.MetaFormatVersion, results.MetaRun, results.MetaRowKind, results.MetaBenchmark,
	results.MetaBenchmarkVersion, results.MetaScoringProtocol, results.MetaGenerator, results.MetaGeneratorVersion,
	"ARROW:schema", "pandas"}

// maxRows caps the rows of a submitted file before it is decoded: a
// tool-usage run has one row per question (49), a QA run one per question
// or source item.
var maxRows = map[string]int64{results.RowKindToolUsageQuestion: 200, results.RowKindQAItem: 100_000}

// checkFooter checks what a results file's Parquet footer says before any
// row is decoded: the decompressed size of its columns against
// lim.MaxDecodedBytes (a small file can decompress to gigabytes), the row
// count, the columns (only those of the format: an unknown column would be
// published verbatim, unread), the key-value metadata keys and, in every
// value (ARROW:schema decoded from base64), credentials.
func checkFooter(path string, lim Limits) Problems {
	var ps Problems
	add := func(field, format string, a ...any) {
		ps = append(ps, Problem{File: path, Field: field, Msg: fmt.Sprintf(format, a...)})
	}
	fh, err := os.Open(path)
	if err != nil {
		add("", "%v", err)
		return ps
	}
	defer fh.Close()
	info, err := fh.Stat()
	if err != nil {
		add("", "%v", err)
		return ps
	}
	pf, err := parquet.OpenFile(fh, info.Size(), parquet.SkipPageIndex(true), parquet.SkipBloomFilters(true))
	if err != nil {
		add("", "not a Parquet file: %v", err)
		return ps
	}
	md := pf.Metadata()
	var decoded int64
	for _, rg := range md.RowGroups {
		for _, c := range rg.Columns {
			decoded += c.MetaData.TotalUncompressedSize
		}
	}
	if decoded > lim.MaxDecodedBytes {
		add("size", "its columns decompress to %d bytes, over the cap of %d bytes per results file", decoded, lim.MaxDecodedBytes)
	}
	kind, _ := pf.Lookup(results.MetaRowKind)
	if n, ok := maxRows[kind]; ok && pf.NumRows() > n {
		add("rows", "%d rows, over the cap of %d for %s rows", pf.NumRows(), n, kind)
	}
	var allowed []string
	switch kind {
	case results.RowKindToolUsageQuestion:
		allowed = columnNames(new(results.QuestionRow))
	case results.RowKindQAItem:
		allowed = columnNames(new(results.QAItem))
	}
	if allowed != nil {
		seen := map[string]bool{}
		for _, col := range pf.Schema().Columns() {
			if name := col[0]; !seen[name] {
				seen[name] = true
				if !slices.Contains(allowed, name) {
					add(name, "unknown column: results/FORMAT.md lists the columns of %s rows (put your own fields in the run record's extensions)", kind)
				}
			}
		}
	}
	for _, kv := range md.KeyValueMetadata {
		if !slices.Contains(knownKeys, kv.Key) {
			add("key-value metadata "+kv.Key, "unknown key: a results file carries the mattools.* keys of results/FORMAT.md (and pyarrow's schema) only")
		}
		value := kv.Value
		if kv.Key == "ARROW:schema" {
			if b, err := base64.StdEncoding.DecodeString(kv.Value); err == nil {
				value = string(b)
			}
		}
		if k := FindCredential(value); k != "" {
			add("key-value metadata "+kv.Key, "holds a credential (%s): remove it, and revoke it", k)
		}
	}
	return ps
}

// columnNames returns the top-level column names of a row type.
func columnNames(row any) []string {
	var names []string
	for _, f := range parquet.SchemaOf(row).Fields() {
		names = append(names, f.Name())
	}
	return names
}
