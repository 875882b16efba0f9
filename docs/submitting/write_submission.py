#!/usr/bin/env python3
"""Write an example MatTools leaderboard submission: results files (format v2) and metadata.

This is the example an outside author adapts to submit tool-usage results by pull request. It writes
one submission folder under SUBMISSIONS_ROOT:

    SUBMISSIONS_ROOT/<date>_example_none-dict-baseline_single-llm/
        submission.toml                       the submission's metadata (TOML)
        <run_id>.parquet                      one results file per scoring protocol x round (six here)

The results files follow results/FORMAT.md of the leaderboard repository (Parquet, format version 2):
one row per tool-usage question, the run record as JSON in the key-value metadata ``mattools.run``.
Only pyarrow and pandas (plus the standard library) are needed:

    python3 -m venv venv && venv/bin/pip install -r docs/submitting/requirements.txt
    venv/bin/python docs/submitting/write_submission.py --data $MATTOOLS_DATA --out SUBMISSIONS_ROOT \\
        [--date 2026-12-01]

``--data`` is a checkout of the MatTools repository (the folder holding ``src/question_segments``);
the question ids and their published order come from ``datasets/manifest.csv`` of the leaderboard
repository (found relative to this script). ``--date`` defaults to today's date (UTC).

The folder is written under a temporary name (starting with ".", which the leaderboard skips) in
SUBMISSIONS_ROOT and renamed when complete, replacing an earlier folder of the same name: an error
(e.g. a wrong ``--data``) is reported on one line and leaves no half-written folder.

The script has two parts:

* The example *model and harness*, ``baseline_answers``: the "none-dict-baseline" answers every
  question with a function returning a dict of the question's property names, each mapped to None,
  and claims the outcome this project's sandbox gives that code (runnable, every property failed:
  verdict ``partial``). Replace it with your own harness: your model's answers and the outcomes your
  scoring of them gave, per scoring protocol and round. The leaderboard's validator re-executes the
  code and checks the claims.
* The *file writing* (everything else): ``write_metadata`` (submission.toml and its SHA-256),
  ``tool_usage_rows`` (the Parquet rows), ``tool_usage_run`` (the run record, totals computed from the
  rows) and ``write_run`` (one Parquet file, written atomically). Adapt the constants and the metadata
  to your submission; the rest should not need changes.
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import json
import math
import os
import shutil
import sys
import tempfile
import tomllib
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

GENERATOR = "write_submission.py"
GENERATOR_VERSION = "1"
FORMAT_VERSION = 2

BENCHMARK = "tool-usage"
BENCHMARK_VERSION = "2025-05"
UPSTREAM_COMMIT = "44385630f2acf461512996468fc0b24f44ddcaaf"
SYSTEM = "single-llm"
RETRIEVAL_SOURCE = 0  # 0 = no retrieval
PROTOCOLS = ("mattools-v1", "mattools-v1-strict")
ROUNDS = (1, 2, 3)

ORGANIZATION = "example"
MODEL = "none-dict-baseline"
MODEL_DISPLAY_NAME = "Example baseline (dict of None)"
GENERATION: dict[str, Any] = {"temperature": 0, "source": "example harness"}

MANIFEST = Path(__file__).resolve().parent / ".." / ".." / "datasets" / "manifest.csv"


# ---------------------------------------------------------------------------------------------------
# The benchmark: question ids, published order and property counts (datasets/manifest.csv).


@dataclass(frozen=True)
class Question:
    index: int  # 0-based position in the published evaluation order
    question_id: str  # question folder name, e.g. "test_vacancy"
    property_count: int


def read_manifest(path: Path = MANIFEST) -> list[Question]:
    """Return the questions of datasets/manifest.csv in order (one line per data file: deduplicated)."""
    with open(path, newline="", encoding="utf-8") as f:
        lines = [line for line in f if not line.startswith("#")]
    questions: dict[str, Question] = {}
    for rec in csv.DictReader(lines):
        qid = rec["question"]
        if qid not in questions:
            questions[qid] = Question(int(rec["order"]), qid, int(rec["properties"]))
    out = list(questions.values())
    if [q.index for q in out] != list(range(len(out))):
        raise ValueError(f"{path}: question order is not 0, 1, 2, …")
    return out


def read_property_names(data_root: Path, question_id: str) -> list[str]:
    """Return the property names of one question, in properties.json order."""
    path = data_root / "src" / "question_segments" / "pymatgen_analysis_defects" / question_id / "properties.json"
    with open(path, encoding="utf-8") as f:
        return list(json.load(f)["properties"].keys())


# ---------------------------------------------------------------------------------------------------
# The example model and harness. Replace this part with your own.


@dataclass
class Outcome:
    """How one answer scored under one scoring protocol (the verdict table of FORMAT.md)."""

    verdict: str  # correct, partial, not-runnable, verification-crash, data-missing, unknown
    verdict_cause: str = ""  # e.g. "syntax-error", "exception:KeyError", "timeout"; "" otherwise
    runnable: bool | None = None  # None only for data-missing / unknown
    properties_passed: int | None = None  # None only for data-missing / unknown
    failed_properties: list[str] = field(default_factory=list)


@dataclass
class Answer:
    """The model's answer to one question and its outcome per scoring protocol."""

    question_id: str
    code: str  # the generated code, whole (never capped)
    function_name: str
    response: str | None  # the model's whole final answer
    finish_reason: str | None
    attempts: int | None
    prompt_tokens: int | None  # None = unknown
    completion_tokens: int | None
    latency_ms: int | None
    outcomes: dict[str, Outcome]  # scoring protocol -> outcome


def py_str_literal(s: str) -> str:
    """Python string literal of s: its repr, in double quotes when that needs no escaping."""
    lit = repr(s)
    if lit.startswith("'") and '"' not in s:
        lit = '"' + lit[1:-1] + '"'
    return lit


def baseline_answers(data_root: Path, questions: list[Question] | None = None) -> list[Answer]:
    """The example model "none-dict-baseline": a fixed answer per question, no model call.

    Each answer is a function ``solve`` returning a dict of the question's property names, each
    mapped to None. This project's sandbox runs that code (runnable) and fails every property, so
    the claimed outcome is ``partial`` with 0 properties passed, under both protocols.
    """
    answers = []
    for q in questions if questions is not None else read_manifest():
        names = read_property_names(data_root, q.question_id)
        if len(names) != q.property_count:
            raise ValueError(
                f"{q.question_id}: properties.json has {len(names)} properties, the manifest {q.property_count}"
            )
        body = ", ".join(f"{py_str_literal(n)}: None" for n in names)
        code = f"def solve():\n    return {{{body}}}\n"
        outcome = {
            p: Outcome(
                verdict="partial", verdict_cause="", runnable=True, properties_passed=0, failed_properties=list(names)
            )
            for p in PROTOCOLS
        }
        answers.append(
            Answer(
                question_id=q.question_id,
                code=code,
                function_name="solve",
                response=f"```python\n{code}```",
                finish_reason="stop",
                attempts=1,
                prompt_tokens=None,
                completion_tokens=None,
                latency_ms=None,
                outcomes=outcome,
            )
        )
    return answers


# ---------------------------------------------------------------------------------------------------
# Submission metadata (submission.toml).


def _toml_string(s: str) -> str:
    out = ['"']
    for ch in s:
        if ch == '"':
            out.append('\\"')
        elif ch == "\\":
            out.append("\\\\")
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\t":
            out.append("\\t")
        elif ord(ch) < 0x20 or ord(ch) == 0x7F:
            out.append(f"\\u{ord(ch):04X}")
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


def _toml_value(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        if not math.isfinite(v):
            raise ValueError(f"TOML value {v!r}: not finite")
        return repr(v)
    if isinstance(v, str):
        return _toml_string(v)
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(_toml_value(x) for x in v) + "]"
    raise TypeError(f"TOML value {v!r}: unsupported type {type(v).__name__}")


def render_toml(meta: dict[str, Any]) -> str:
    """Render meta as TOML: top-level keys first, then one [table] per dict value (empty tables omitted)."""
    lines = [f"{k} = {_toml_value(v)}" for k, v in meta.items() if not isinstance(v, dict)]
    for k, v in meta.items():
        if isinstance(v, dict) and v:
            lines += ["", f"[{k}]"] + [f"{_toml_string(kk)} = {_toml_value(vv)}" for kk, vv in v.items()]
    text = "\n".join(lines) + "\n"
    tomllib.loads(text)  # self-check: the text parses as TOML
    return text


def write_bytes_atomic(path: Path, data: bytes) -> None:
    """Write data to path via a temporary file in the same folder (named with a leading ".") and a rename."""
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise


def write_metadata(folder: Path, meta: dict[str, Any]) -> str:
    """Write folder/submission.toml and return the SHA-256 (hex) of its bytes."""
    data = render_toml(meta).encode("utf-8")
    write_bytes_atomic(folder / "submission.toml", data)
    return hashlib.sha256(data).hexdigest()


def example_metadata(date: str) -> dict[str, Any]:
    """The example submission's metadata; adapt every value to yours."""
    return {
        "organization": ORGANIZATION,
        "model": MODEL,
        "model_display_name": MODEL_DISPLAY_NAME,
        "provider": "example (no model: a fixed answer per question)",
        "benchmark": BENCHMARK,
        "system": SYSTEM,
        "retrieval_source": RETRIEVAL_SOURCE,
        "authors": ["Example Author"],
        "contact": "author@example.org",
        "link": "https://example.org/none-dict-baseline",
        "date": date,
        "model_release_date": "2026-12-01",
        "open_model": True,
        "open_system": True,
        "outputs_license": "CC-BY-4.0",
        "notes": (
            "The example submission of SUBMITTING.md: a baseline that returns a dict of None "
            "for every property of every question."
        ),
    }


# ---------------------------------------------------------------------------------------------------
# Results files (results/FORMAT.md).

# The seven identity columns, then the tool-usage columns this example fills. Optional scalar columns
# you do not fill (error_excerpt, stdout_excerpt, exec_ms, …) may be left out; the list-of-struct
# columns retrieved and trace are written (empty) all the same, since this project's Go reader reads an
# absent list-of-struct column as one empty element.
RETRIEVED_CHUNK = pa.struct(
    [
        pa.field("chunk_id", pa.string(), nullable=False),
        pa.field("source", pa.string(), nullable=False),
        pa.field("score", pa.float64(), nullable=False),
        pa.field("rank", pa.int32(), nullable=False),
    ]
)
TRACE_STAGE = pa.struct(
    [
        pa.field("stage", pa.string(), nullable=False),
        pa.field("iteration", pa.int32(), nullable=False),
        pa.field("prompt_tokens", pa.int64(), nullable=False),
        pa.field("completion_tokens", pa.int64(), nullable=False),
        pa.field("latency_ms", pa.int64(), nullable=False),
        pa.field("retrieved_ids", pa.list_(pa.string())),
        pa.field("verdict", pa.string(), nullable=False),
        pa.field("stop_reason", pa.string(), nullable=False),
    ]
)
TOOL_USAGE_SCHEMA = pa.schema(
    [
        pa.field("run_id", pa.string(), nullable=False),
        pa.field("benchmark", pa.string(), nullable=False),
        pa.field("system", pa.string(), nullable=False),
        pa.field("retrieval_source", pa.int32(), nullable=False),
        pa.field("model", pa.string(), nullable=False),
        pa.field("round", pa.int32(), nullable=False),
        pa.field("scoring_protocol", pa.string(), nullable=False),
        pa.field("question_index", pa.int32(), nullable=False),
        pa.field("question_id", pa.string(), nullable=False),
        pa.field("property_count", pa.int32(), nullable=False),
        pa.field("code", pa.string(), nullable=False),
        pa.field("function_name", pa.string(), nullable=False),
        pa.field("runnable", pa.bool_()),
        pa.field("properties_passed", pa.int32()),
        pa.field("verdict", pa.string(), nullable=False),
        pa.field("verdict_cause", pa.string(), nullable=False),
        pa.field("failed_properties", pa.list_(pa.string())),
        pa.field("response", pa.string()),
        pa.field("finish_reason", pa.string()),
        pa.field("attempts", pa.int32()),
        pa.field("prompt_tokens", pa.int64()),
        pa.field("completion_tokens", pa.int64()),
        pa.field("latency_ms", pa.int64()),
        pa.field("response_bytes", pa.int64()),  # the response's UTF-8 length before any capping
        # Format v2 context and stage trace: written as empty lists here (a single-llm run retrieves
        # nothing and this example records no trace). Fill them if your system has them.
        pa.field("retrieved", pa.list_(RETRIEVED_CHUNK)),
        pa.field("trace", pa.list_(TRACE_STAGE)),
    ]
)


def submission_folder_name(date: str) -> str:
    return f"{date}_{ORGANIZATION}_{MODEL}_{SYSTEM}"


def make_run_id(folder: str, protocol: str, round_: int) -> str:
    """The run id this project would give the run (results.MakeRunID). A submission's run ids must start with submitted__<folder>__."""
    return "__".join(["submitted", folder, BENCHMARK, SYSTEM, f"s{RETRIEVAL_SOURCE}", MODEL, protocol, f"r{round_}"])


def tool_usage_rows(
    run_id: str, protocol: str, round_: int, questions: list[Question], answers: list[Answer]
) -> list[dict[str, Any]]:
    """One row per question, in the published order: the identity columns, then the question's columns."""
    by_id = {a.question_id: a for a in answers}
    if sorted(by_id) != sorted(q.question_id for q in questions):
        raise ValueError("the answers are not exactly the manifest's questions")
    rows = []
    for q in questions:
        a = by_id[q.question_id]
        o = a.outcomes[protocol]
        rows.append(
            {
                "run_id": run_id,
                "benchmark": BENCHMARK,
                "system": SYSTEM,
                "retrieval_source": RETRIEVAL_SOURCE,
                "model": MODEL,
                "round": round_,
                "scoring_protocol": protocol,
                "question_index": q.index,
                "question_id": q.question_id,
                "property_count": q.property_count,
                "code": a.code,
                "function_name": a.function_name,
                "runnable": o.runnable,
                "properties_passed": o.properties_passed,
                "verdict": o.verdict,
                "verdict_cause": o.verdict_cause,
                "failed_properties": list(o.failed_properties),
                "response": a.response,
                "finish_reason": a.finish_reason,
                "attempts": a.attempts,
                "prompt_tokens": a.prompt_tokens,
                "completion_tokens": a.completion_tokens,
                "latency_ms": a.latency_ms,
                "response_bytes": None if a.response is None else len(a.response.encode("utf-8")),
                "retrieved": [],  # list of {chunk_id, source, score, rank}, in the order given to the model
                "trace": [],  # list of {stage, iteration, prompt_tokens, completion_tokens, latency_ms, …}
            }
        )
    return rows


def totals_from_rows(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """The run's totals, summed over its rows (data-missing rows are outside the question set)."""
    scored = [r for r in rows if r["verdict"] != "data-missing"]
    return {
        "scored": True,
        "questions": len(scored),
        "runnable": sum(1 for r in scored if r["runnable"]),
        "questions_correct": sum(1 for r in scored if r["verdict"] == "correct"),
        "questions_partial": sum(1 for r in scored if r["verdict"] == "partial"),
        "properties": sum(r["property_count"] for r in scored),
        "properties_passed": sum(r["properties_passed"] or 0 for r in scored),
    }


def utc_now() -> str:
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def tool_usage_run(
    *, run_id: str, folder: str, metadata_sha256: str, protocol: str, round_: int, rows: list[dict[str, Any]]
) -> dict[str, Any]:
    """The run record (key-value metadata mattools.run) of one run; totals come from the rows."""
    totals = totals_from_rows(rows)
    return {
        "format_version": FORMAT_VERSION,
        "run_id": run_id,
        "benchmark": BENCHMARK,
        "benchmark_version": BENCHMARK_VERSION,
        "upstream_commit": UPSTREAM_COMMIT,
        "system": SYSTEM,
        "retrieval_source": RETRIEVAL_SOURCE,
        "model": MODEL,
        "model_display_name": MODEL_DISPLAY_NAME,
        "round": round_,
        "scoring_protocol": protocol,
        "generation": dict(GENERATION),
        # "all" must be the whole benchmark (49 questions, 138 properties); a subset needs its own name and "ids".
        "question_set": {"name": "all", "questions": totals["questions"], "properties": totals["properties"]},
        "provenance": {"kind": "submitted", "submission": {"folder": folder, "metadata_sha256": metadata_sha256}},
        "environment": {"generator": GENERATOR, "generator_version": GENERATOR_VERSION},
        "totals": totals,
        "finished_at": utc_now(),
    }


def write_run(path: Path, run: dict[str, Any], rows: list[dict[str, Any]]) -> None:
    """Write one results file: the rows with TOOL_USAGE_SCHEMA, the run record in the key-value metadata.

    The file is written to a temporary file in the same folder (name starting with ".", which readers
    skip) and renamed over path, so that readers never see a partial file.
    """
    identity = ("run_id", "benchmark", "system", "retrieval_source", "model", "round", "scoring_protocol")
    for i, r in enumerate(rows):
        if any(r[k] != run[k] for k in identity):
            raise ValueError(f"row {i + 1}: identity columns disagree with the run record")
    df = pd.DataFrame(rows, columns=TOOL_USAGE_SCHEMA.names)
    table = pa.Table.from_pandas(df, schema=TOOL_USAGE_SCHEMA, preserve_index=False)
    table = table.replace_schema_metadata(
        {
            "mattools.format_version": str(run["format_version"]),
            "mattools.run": json.dumps(run, ensure_ascii=False),
            "mattools.row_kind": "tool-usage-question",
            "mattools.benchmark": run["benchmark"],
            "mattools.benchmark_version": run["benchmark_version"],
            "mattools.scoring_protocol": run["scoring_protocol"],
            "mattools.generator": run["environment"]["generator"],
            "mattools.generator_version": run["environment"]["generator_version"],
        }
    )
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    os.close(fd)
    try:
        pq.write_table(table, tmp, compression="zstd")
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise


# ---------------------------------------------------------------------------------------------------


def today_utc() -> str:
    return datetime.now(timezone.utc).strftime("%Y-%m-%d")


def publish_folder(tmp: Path, out: Path) -> None:
    """Rename the finished folder tmp to out, replacing an earlier folder out (moved aside, then removed)."""
    aside = None
    if out.exists():
        aside = Path(tempfile.mkdtemp(dir=out.parent, prefix=f".{out.name}.old."))
        os.replace(out, aside / out.name)
    try:
        os.replace(tmp, out)
    except BaseException:
        if aside is not None:
            os.replace(aside / out.name, out)
        raise
    finally:
        if aside is not None:
            shutil.rmtree(aside, ignore_errors=True)


def write_submission(data_root: Path, root: Path, date: str) -> None:
    """Write the example submission of date into root: in a temporary folder, renamed when complete."""
    folder = submission_folder_name(date)
    root.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(dir=root, prefix=f".{folder}.tmp."))
    try:
        os.chmod(tmp, 0o755)
        metadata_sha256 = write_metadata(tmp, example_metadata(date))
        questions = read_manifest()
        lines = []
        for round_ in ROUNDS:
            answers = baseline_answers(data_root, questions)  # your harness: this round's answers and outcomes
            for protocol in PROTOCOLS:
                run_id = make_run_id(folder, protocol, round_)
                rows = tool_usage_rows(run_id, protocol, round_, questions, answers)
                run = tool_usage_run(
                    run_id=run_id,
                    folder=folder,
                    metadata_sha256=metadata_sha256,
                    protocol=protocol,
                    round_=round_,
                    rows=rows,
                )
                name = f"{run_id}.parquet"
                write_run(tmp / name, run, rows)
                t = run["totals"]
                lines.append(
                    f"{root / folder / name}: {t['questions']} questions, {t['runnable']} runnable, "
                    f"{t['properties_passed']}/{t['properties']} properties passed"
                )
        publish_folder(tmp, root / folder)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)  # gone already when published
    for line in lines:
        print(line)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    ap.add_argument("--data", required=True, type=Path, help="MatTools checkout (holds src/question_segments)")
    ap.add_argument("--out", required=True, type=Path, help="submissions root; the submission folder is created in it")
    ap.add_argument("--date", default=None, help="submission date, YYYY-MM-DD (default: today, UTC)")
    args = ap.parse_args(argv)
    date = args.date if args.date is not None else today_utc()
    try:
        datetime.strptime(date, "%Y-%m-%d")
    except ValueError:
        ap.error(f"--date {date!r}: want YYYY-MM-DD")

    prog = Path(sys.argv[0]).name or GENERATOR
    questions_dir = args.data / "src" / "question_segments" / "pymatgen_analysis_defects"
    if not questions_dir.is_dir():
        print(f"{prog}: --data {args.data}: no folder {questions_dir}; want a MatTools checkout", file=sys.stderr)
        return 2
    try:
        write_submission(args.data, args.out, date)
    except (OSError, ValueError, KeyError) as e:
        msg = " ".join(str(e).split()) or type(e).__name__
        print(f"{prog}: {msg}; nothing written", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
