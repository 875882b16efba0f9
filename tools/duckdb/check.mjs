// Reads results Parquet files with DuckDB and prints, per file, one JSON line
// with what an independent reader sees: the row count, the format's key-value
// metadata and a few aggregates. Used by the Go test results/published
// (TestDuckDBReadsEveryFile) to check interoperability.
//
// usage: node check.mjs FILE...
import { DuckDBInstance } from '@duckdb/node-api';

const files = process.argv.slice(2);
const db = await DuckDBInstance.create(':memory:');
const con = await db.connect();
const q = (s) => `'${s.replaceAll("'", "''")}'`;
for (const file of files) {
  const kv = {};
  const meta = await con.runAndReadAll(
    `SELECT decode(key) AS k, decode(value) AS v FROM parquet_kv_metadata(${q(file)})`);
  for (const [k, v] of meta.getRows()) kv[k] = v;
  const kind = kv['mattools.row_kind'];
  // a, b: QA: sum(questions), sum(correct); tool usage: runnable rows, sum(properties_passed).
  // text: QA: the items joined by newlines; tool usage: the function names joined by newlines.
  // bytes: total bytes of the code (tool usage) or of the items (QA).
  let sql;
  if (kind === 'qa-item') {
    sql = `SELECT count(*)::BIGINT, sum(questions)::BIGINT, sum(correct)::BIGINT, first(item ORDER BY item_index), first(run_id),
                  string_agg(item, chr(10) ORDER BY item_index), sum(strlen(item))::BIGINT
           FROM read_parquet(${q(file)})`;
  } else {
    sql = `SELECT count(*)::BIGINT, count(*) FILTER (WHERE runnable)::BIGINT, sum(properties_passed)::BIGINT,
                  first(question_id ORDER BY question_index), first(run_id),
                  string_agg(function_name, chr(10) ORDER BY question_index), sum(strlen(code))::BIGINT
           FROM read_parquet(${q(file)})`;
  }
  const [row] = (await con.runAndReadAll(sql)).getRows();
  const num = (x) => (x === null ? null : Number(x));
  console.log(JSON.stringify({
    file, kind, rows: num(row[0]), a: num(row[1]), b: num(row[2]), first: row[3], run_id: row[4],
    text: row[5], bytes: num(row[6]),
    format_version: kv['mattools.format_version'], run: JSON.parse(kv['mattools.run'] ?? 'null'),
  }));
}
