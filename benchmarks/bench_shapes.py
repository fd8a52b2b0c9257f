"""FTS5 table-shape and build-option comparison on a slice of the corpus (how
``engine.index.schema`` and ``engine.index.documents`` were chosen).

Run: ``python -m benchmarks.bench_shapes [--files 30] [NAME ...]``. For each shape:
build time relative to raw FTS5 insertion, file size and FTS data size relative to the sanitized
text, and query p50/p95 of the expensive classes, all in this run. Sizes are exact; build ratios
on a shared machine vary by +-0.05 between runs.
"""

from __future__ import annotations

import argparse
import shutil
import tempfile
from pathlib import Path
from typing import Any

import apsw
import apsw.bestpractice

import engine.index.db as index_db
import engine.index.documents as index_documents
from benchmarks.bench_index import NOW, build_raw, load_docs
from benchmarks.corpus import generate
from benchmarks.timing import Stopwatch, percentile, timed
from engine.index import fts_rank
from engine.index import schema as index_schema
from engine.index.db import IndexDoc, immediate, upsert_docs
from engine.project.model import Project
from engine.query.run import run_query
from engine.types import SearchQueryArgs

BASE = index_schema.FTS_OPTIONS
PREFIX = f"prefix='{index_schema.FTS_PREFIX}'"
SHAPES: dict[str, dict[str, Any]] = {
    "current (prefix 2 3, detail=full)": {},
    "no prefix index": {"opts": BASE.replace(f", {PREFIX}", "")},
    "prefix 2": {"opts": BASE.replace(PREFIX, "prefix='2'")},
    "prefix 3": {"opts": BASE.replace(PREFIX, "prefix='3'")},
    "detail=column, no prefix": {"opts": BASE.replace(f", {PREFIX}", ", detail=column")},
    "detail=none, no prefix": {"opts": BASE.replace(f", {PREFIX}", ", detail=none")},
    "automerge 8": {"pre": ["INSERT INTO docs_fts(docs_fts, rank) VALUES ('automerge', 8)"]},
    "optimize after the load": {"post": ["INSERT INTO docs_fts(docs_fts) VALUES ('optimize')"]},
    "page size 4096": {"page": 4096},
    "page size 32768": {"page": 32768},
    "zlib level 6": {"zlib": 6},
    "5000-doc transactions": {"batch": 5000},
    "no identifier parts (cost of the feature)": {"parts": False},
}
"""Each shape overrides the FTS5 options, adds statements before/after the load, or changes the
page size, the body's zlib level, the transaction size, or leaves the identifier parts out."""

QUERIES = {
    "very common": ["the", "of", "and"],
    "2-char prefix": ["co", "re", "ma", "pa"],
    "one-term prefix": ["bena", "hoda", "kenl", "tenz"],
    "phrase": ['"of the"', '"most recent call"'],
}


def build_shape(path: Path, shape: dict[str, Any], docs: list[IndexDoc]) -> float:
    conn = apsw.Connection(str(path))
    conn.pragma("page_size", shape.get("page", index_db.PAGE_SIZE))
    apsw.bestpractice.connection_wal(conn)
    conn.pragma("synchronous", "NORMAL")
    fts_rank.register(conn)
    conn.execute(index_schema.SCHEMA_SQL.replace(BASE, shape.get("opts", BASE)))
    for sql in shape.get("pre", []):
        conn.execute(sql)
    level, index_documents._ZLIB_LEVEL = (
        index_documents._ZLIB_LEVEL,
        shape.get("zlib", index_documents._ZLIB_LEVEL),
    )
    parts = getattr(index_documents, "identifier_parts")  # noqa: B009 - patched below, restored after
    if not shape.get("parts", True):
        setattr(index_documents, "identifier_parts", lambda *_texts: "")  # noqa: B010
    batch = shape.get("batch", 1000)
    try:

        def load() -> None:
            for i in range(0, len(docs), batch):
                with immediate(conn):
                    upsert_docs(conn, docs[i : i + batch])
            for sql in shape.get("post", []):
                conn.execute(sql)

        elapsed, _ = timed(load)
    finally:
        index_documents._ZLIB_LEVEL = level
        setattr(index_documents, "identifier_parts", parts)  # noqa: B010
    conn.pragma("wal_checkpoint", "TRUNCATE")
    conn.close()
    return elapsed


def time_class(conn: apsw.Connection, queries: list[str], runs: int) -> tuple[float, float]:
    project = Project(root=Path("/bench"), id="b", name="b", is_git=False)
    samples = []
    for i in range(runs):
        try:
            with Stopwatch() as watch:
                run_query(
                    conn, SearchQueryArgs(query=queries[i % len(queries)]), project=project, now=NOW
                )
        except apsw.Error:
            return float("nan"), float("nan")  # e.g. phrases under detail=column
        samples.append(watch.ms)
    return percentile(samples, 0.5), percentile(samples, 0.95)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--files", type=int, default=30)
    parser.add_argument("--runs", type=int, default=60)
    parser.add_argument("shapes", nargs="*", help="shape names to run (default: all)")
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
        for n, (name, shape) in enumerate(SHAPES.items()):
            if args.shapes and name not in args.shapes:
                continue
            path = sample / f"shape{n}.db"
            secs = build_shape(path, shape, docs)
            conn = index_db.connect(path)
            fts = conn.execute(
                "SELECT sum(pgsize) FROM dbstat WHERE name = 'docs_fts_data'"
            ).fetchone()
            fts = fts[0] if fts else 0
            timings = " ".join(
                "{} {:.1f}/{:.1f}".format(k, *time_class(conn, v, args.runs))
                for k, v in QUERIES.items()
            )
            conn.close()
            print(
                f"{name:36} build {raw_s / secs:.2f}x raw, size {path.stat().st_size / text:.2f}x"
                f" (fts data {fts / text:.2f}x) | p50/p95 ms: {timings}",
                flush=True,
            )
    finally:
        shutil.rmtree(sample, ignore_errors=True)


if __name__ == "__main__":
    main()
