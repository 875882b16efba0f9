// Runs the SQL statements read from standard input in an in-memory DuckDB,
// in the current folder. Used by results/format_doc_test.go to check that
// the example in results/FORMAT.md writes a valid results file.
import { DuckDBInstance } from '@duckdb/node-api';

let sql = '';
for await (const chunk of process.stdin) sql += chunk;
const db = await DuckDBInstance.create(':memory:');
const con = await db.connect();
await con.run(sql);
