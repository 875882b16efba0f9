#!/usr/bin/env python3
"""DuckDB's side of scripts/site-scale: the per-configuration means and
population standard deviations of every metric, over the same results
files, printed as the same CSV as loadagg (sorted, 17 significant digits).

    duckdb_agg.py DIR > duckdb.csv

The run records come from each file's key-value metadata (mattools.run,
FORMAT.md); the rows are read too (the columns the totals count: runnable,
properties_passed, verdict; questions, correct, correct_lenient), summed per
run and checked against the records' totals where every row has an outcome,
so that DuckDB reads what the site reads. Runs are averaged as FORMAT.md's
"Aggregation" says: scored runs of round ≥ 1, per configuration.
"""
import sys

import duckdb

QUERY = r"""
WITH meta AS (
  SELECT file_name, json(decode(value)) AS run
  FROM parquet_kv_metadata('{dir}/*.parquet') WHERE decode(key) = 'mattools.run'
), runs AS (
  SELECT file_name,
    run->>'$.benchmark' AS benchmark, run->>'$.system' AS system, (run->>'$.retrieval_source')::INT AS retrieval_source,
    run->>'$.model' AS model, run->>'$.scoring_protocol' AS scoring_protocol,
    (run->>'$.question_set.name') || '/' || (run->>'$.question_set.questions') AS question_set,
    (run->>'$.provenance.kind') || coalesce(':' || (run->>'$.provenance.origin'), '') AS provenance,
    coalesce(run->>'$.variant', '') AS variant,
    (run->>'$.round')::INT AS round, (run->>'$.totals.scored')::BOOLEAN AS scored,
    (run->>'$.totals.questions')::INT AS questions, (run->>'$.totals.properties')::INT AS properties,
    (run->>'$.totals.runnable')::INT AS runnable, (run->>'$.totals.properties_passed')::INT AS passed,
    (run->>'$.totals.correct')::INT AS correct, (run->>'$.totals.correct_lenient')::INT AS correct_lenient
  FROM meta
), values AS (
  SELECT benchmark, system, retrieval_source, model, scoring_protocol, question_set, provenance, variant, m.metric, m.v
  FROM runs, LATERAL (VALUES
      ('function_runnable_rate', CASE WHEN benchmark = 'tool-usage' AND questions > 0 THEN 100.0 * runnable / questions END),
      ('task_success_rate', CASE WHEN benchmark = 'tool-usage' AND properties > 0 THEN 100.0 * passed / properties END),
      ('accuracy', CASE WHEN benchmark <> 'tool-usage' AND questions > 0 THEN 100.0 * correct / questions END),
      ('accuracy_lenient', CASE WHEN benchmark <> 'tool-usage' AND questions > 0 THEN 100.0 * correct_lenient / questions END)
    ) AS m(metric, v)
  WHERE scored AND round >= 1
)
SELECT benchmark, system, retrieval_source, model, scoring_protocol, question_set, provenance, metric,
  count(*) AS n, avg(v) AS mean, coalesce(stddev_pop(v), 0) AS pop_std
FROM values
GROUP BY ALL
HAVING count(v) = count(*)
"""

ROWS = r"""
WITH t AS (
  SELECT filename, count(*) FILTER (WHERE verdict = 'unknown') AS unknown,
    count(*) FILTER (WHERE runnable) AS runnable, coalesce(sum(properties_passed), 0) AS passed
  FROM read_parquet('{dir}/*__tool-usage__*.parquet', filename = true,
                    union_by_name = true) GROUP BY filename
), q AS (
  SELECT filename, sum(questions) AS questions, sum(correct) AS correct
  FROM read_parquet('{dir}/*__qa-*.parquet', filename = true) GROUP BY filename
), meta AS (
  SELECT file_name, json(decode(value)) AS run
  FROM parquet_kv_metadata('{dir}/*.parquet') WHERE decode(key) = 'mattools.run'
)
SELECT
  (SELECT count(*) FROM t) + (SELECT count(*) FROM q) AS files,
  (SELECT count(*) FROM t JOIN meta ON t.filename = meta.file_name
    WHERE unknown = 0 AND (run->>'$.totals.scored')::BOOLEAN
      AND (runnable <> (run->>'$.totals.runnable')::INT OR passed <> (run->>'$.totals.properties_passed')::INT)) +
  (SELECT count(*) FROM q JOIN meta ON q.filename = meta.file_name
    WHERE questions <> (run->>'$.totals.questions')::INT OR correct <> (run->>'$.totals.correct')::INT) AS mismatched
"""


def main():
    d = sys.argv[1].rstrip("/")
    con = duckdb.connect()
    con.execute("SET threads TO " + str(len(__import__("os").sched_getaffinity(0))))
    files, mismatched = con.execute(ROWS.format(dir=d)).fetchone()
    if mismatched:
        sys.exit(f"duckdb_agg: {mismatched} runs whose rows disagree with their totals")
    lines = []
    for row in con.execute(QUERY.format(dir=d)).fetchall():
        *key, metric, n, mean, std = row
        lines.append(",".join([str(x) for x in key] + [metric, str(n), repr(float(mean)), repr(float(std))]))
    lines.sort()
    print("benchmark,system,retrieval_source,model,scoring_protocol,question_set,provenance,metric,n,mean,pop_std")
    print("\n".join(lines))
    print(f"duckdb_agg: {files} files read, rows agree with totals", file=sys.stderr)


if __name__ == "__main__":
    main()
