"""FTS5 table-shape comparison on a slice of the corpus (how ``engine.index_schema`` was chosen).

Run: ``/work/venv/bin/python -m benchmarks.bench_shapes [--files 40]``. For each shape: build time
relative to raw FTS5 insertion, size relative to the sanitized text, and query p50/p95 of the
expensive classes, all in this run.
"""

from __future__ import annotations

import argparse
import shutil
import tempfile
import time
from pathlib import Path

import apsw

from benchmarks.bench_index import NOW, build_raw, load_docs, pct
from benchmarks.corpus import generate
from engine import index_schema
from engine.index_db import IndexDoc, connect, immediate, upsert_docs
from engine.project.model import Project
from engine.search_query import run_query
from engine.types import SearchQueryArgs

BASE = index_schema.FTS_OPTIONS
SHAPES = {
    "contentless-delete, detail=full, prefix 2 3": BASE,
    "contentless-delete, detail=full, no prefix": BASE.replace(f", prefix='{index_schema.FTS_PREFIX}'", ""),
    "contentless-delete, detail=full, prefix 2": BASE.replace(f"prefix='{index_schema.FTS_PREFIX}'", "prefix='2'"),
    "contentless-delete, detail=column, no prefix": BASE.replace(f", prefix='{index_schema.FTS_PREFIX}'", ", detail=column"),
}  # fmt: skip
QUERIES = {
    "very common": ["the", "of", "and"],
    "2-char prefix": ["co", "re", "ma", "pa"],
    "one-term prefix": ["bena", "hoda", "kenl", "tenz"],
    "phrase": ['"of the"', '"most recent call"'],
}


def build_shape(path: Path, options: str, docs: list[IndexDoc]) -> float:
    conn = connect(path)
    conn.execute(index_schema.SCHEMA_SQL.replace(BASE, options))
    t0 = time.perf_counter()
    for i in range(0, len(docs), 1000):
        with immediate(conn):
            upsert_docs(conn, docs[i : i + 1000])
    elapsed = time.perf_counter() - t0
    conn.pragma("wal_checkpoint", "TRUNCATE")
    conn.close()
    return elapsed


def time_class(conn: apsw.Connection, queries: list[str], runs: int) -> tuple[float, float]:
    project = Project(root=Path("/bench"), id="b", name="b", is_git=False)
    samples = []
    for i in range(runs):
        t0 = time.perf_counter()
        try:
            run_query(
                conn, SearchQueryArgs(query=queries[i % len(queries)]), project=project, now=NOW
            )
        except apsw.Error:
            return float("nan"), float("nan")  # e.g. phrases under detail=column
        samples.append((time.perf_counter() - t0) * 1000)
    return pct(samples, 0.5), pct(samples, 0.95)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--files", type=int, default=40)
    parser.add_argument("--runs", type=int, default=60)
    args = parser.parse_args()
    corpus = generate()
    sample = Path(tempfile.mkdtemp(prefix="ade-shapes-"))
    try:
        for sub in ("terminals", "chats"):
            (sample / sub).mkdir()
            for p in sorted((corpus / sub).iterdir())[: args.files]:
                (sample / sub / p.name).symlink_to(p)
        docs = load_docs(sample)
        text = sum(len(d.body.encode()) for d in docs)
        raw_s = build_raw(sample / "raw.db", docs)
        print(
            f"slice: {text / 1e6:.0f} MB sanitized, {len(docs)} docs; raw FTS5 {text / 1e6 / raw_s:.1f} MB/s,"
            f" raw size {(sample / 'raw.db').stat().st_size / text:.2f}x"
        )
        for name, options in SHAPES.items():
            path = sample / f"{abs(hash(name))}.db"
            secs = build_shape(path, options, docs)
            conn = connect(path)
            timings = " ".join(
                "{} {:.1f}/{:.1f}".format(k, *time_class(conn, v, args.runs))
                for k, v in QUERIES.items()
            )
            conn.close()
            print(
                f"{name:46} build {raw_s / secs:.2f}x raw, size {path.stat().st_size / text:.2f}x | p50/p95 ms: {timings}"
            )
    finally:
        shutil.rmtree(sample, ignore_errors=True)


if __name__ == "__main__":
    main()
