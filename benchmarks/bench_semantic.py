"""What the semantic extra costs (docs/semantic.md): first index, query p95, model load, vector scan.

Each figure is a ratio or difference against the same work without the extra, interleaved in
this invocation (``benchmarks.timing``):

- **first index**: every document of a generated corpus (``benchmarks.corpus``) written through
  ``upsert_docs`` into a new index in 1000-document transactions, without and with the vector
  hook (the model already loaded, as in the daemon), alternating which goes first; and how long
  after the start the vectors are all written (they are made on their own thread). Writing
  alone is the smallest base the extra's cost can be set against: a real first index also
  reads, parses and chunks.
- **query p95**: the known-item benchmark's paraphrase, typo and remembered queries through
  ``EmbeddedClient.query`` on the same corpus index, ``ADE_SEMANTIC=0`` against ``=1``
  (``mode:semantic`` added, so every query pays the fusion), the model loaded.
- **scan**: the nearest 50 of every vector, numpy over int8 (what ``engine.semantic.store`` does)
  against sqlite-vec's ``vec_distance_cosine`` over the same BLOBs, when sqlite-vec is installed.
- **model load**: a fresh interpreter loading the model, against one importing the engine only.

Usage: ``python -m benchmarks.bench_semantic [--mb 20] [--runs 5] [--write]``.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.bench_index import load_docs
from benchmarks.corpus import generate
from benchmarks.results import replace_section
from benchmarks.timing import interleaved
from engine.index.db import connect, immediate, open_index, upsert_docs
from engine.index.documents import IndexDoc, WriteTargets
from engine.index.sql import Filters
from engine.semantic.model import model
from engine.semantic.store import hand_over, nearest, writer

HEADING = "## Semantic extra: cost"


def _write(path: Path, docs: list[IndexDoc], vectors: bool) -> tuple[float, float]:
    """Seconds until the index is written, and until its vectors are (0 without them)."""
    path.unlink(missing_ok=True)
    for suffix in ("-wal", "-shm"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)
    open_index(path)
    conn = connect(path)
    targets = WriteTargets(vectors=hand_over if vectors else None)
    start = time.perf_counter()
    for i in range(0, len(docs), 1000):
        with immediate(conn):
            upsert_docs(conn, docs[i : i + 1000], targets)
    written = time.perf_counter() - start
    writer.wait()  # outside the index's time, and before the next run starts
    conn.close()
    return written, (time.perf_counter() - start if vectors else 0.0)


def _first_index(work: Path, docs: list[IndexDoc], runs: int) -> dict[str, float]:
    """Rounds alternating which variant goes first; medians of the written times."""
    plain: list[float] = []
    hybrid: list[float] = []
    done: list[float] = []
    for n in range(runs):
        order = (False, True) if n % 2 == 0 else (True, False)
        for vectors in order:
            written, complete = _write(
                work / ("vectors.db" if vectors else "plain.db"), docs, vectors
            )
            if vectors:
                hybrid.append(written)
                done.append(complete)
            else:
                plain.append(written)
    return {
        "without_s": statistics.median(plain),
        "with_vectors_s": statistics.median(hybrid),
        "ratio": statistics.median(hybrid) / statistics.median(plain),
        "vectors_complete_s": statistics.median(done),
    }


def _scan(db: Path, runs: int) -> dict[str, float]:
    conn = connect(db)
    query = "copying old rows into the accounting table"
    jobs = {"numpy int8": lambda: nearest(conn, query, Filters(), 50)}
    try:
        import sqlite_vec

        from engine.semantic.model import embed

        conn.enable_load_extension(True)
        conn.load_extension(sqlite_vec.loadable_path())
        q = embed([query])[0].tobytes()
        sql = (
            "SELECT doc_id FROM doc_vectors ORDER BY"
            " vec_distance_cosine(vec_int8(vec), vec_int8(?)) LIMIT 50"
        )
        jobs["sqlite-vec"] = lambda: conn.execute(sql, (q,)).fetchall()
    except ImportError:
        pass
    timing = interleaved(jobs, runs)
    count = conn.execute("SELECT count(*) FROM doc_vectors").fetchone()[0]
    conn.close()
    return {"vectors": float(count), **{name: t.median for name, t in timing.items()}}


def _load(runs: int) -> dict[str, float]:
    code = {
        "engine only": "import engine.semantic.store",
        "model loaded": "from engine.semantic.model import model; model()",
    }
    jobs = {
        name: (lambda c=c: subprocess.run([sys.executable, "-c", c], check=True))
        for name, c in code.items()
    }
    timing = interleaved(jobs, runs)
    return {name: t.median for name, t in timing.items()}


def _queries(root: Path, runs: int) -> dict[str, float]:
    """Per-query latency through the service on a project folder holding the corpus index:
    each query without the layer and with ``mode:semantic``, alternating, ``runs`` times."""
    from benchmarks.known_items_queries import DEMO, GENERATED
    from benchmarks.timing import percentile
    from engine.embedded import EmbeddedClient
    from engine.types import SearchQueryArgs

    texts = [q for style, q, _ in (*DEMO, *GENERATED) if style != "filtered"]
    samples: dict[str, list[float]] = {"lexical": [], "hybrid": []}
    with EmbeddedClient.open(root, start_worker=False) as client:

        def one(env: str, text: str) -> float:
            os.environ["ADE_SEMANTIC"] = env
            start = time.perf_counter()
            client.query(SearchQueryArgs(query=text, limit=10))
            return (time.perf_counter() - start) * 1000

        for text in texts:  # warm-up: the matrix, the page cache
            one("1", "mode:semantic " + text)
        for n in range(runs):
            for text in texts:
                order = (("0", ""), ("1", "mode:semantic ")) if n % 2 == 0 else (
                    ("1", "mode:semantic "), ("0", ""))  # fmt: skip
                for env, prefix in order:
                    name = "hybrid" if env == "1" else "lexical"
                    samples[name].append(one(env, prefix + text))
    out: dict[str, float] = {}
    for name, values in samples.items():
        out[f"{name}_p50_ms"] = percentile(values, 0.5)
        out[f"{name}_p95_ms"] = percentile(values, 0.95)
    out["p95_difference_ms"] = out["hybrid_p95_ms"] - out["lexical_p95_ms"]
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--mb", type=int, default=20, help="size of the generated corpus")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--write", action="store_true", help="write the figures into RESULTS.md")
    parser.add_argument("--index-runs", type=int, default=3, help="first-index rounds")
    args = parser.parse_args()
    model()  # held, as the daemon holds it: the load is measured on its own below
    with tempfile.TemporaryDirectory(prefix="ade-semantic-") as tmp:
        work = Path(tmp)
        docs = load_docs(generate(args.mb, work / "corpus"))
        index = _first_index(work, docs, args.index_runs)
        scan = _scan(work / "vectors.db", args.runs)
        root = work / "project"
        (root / ".ade" / "cache").mkdir(parents=True)
        os.replace(work / "vectors.db", root / ".ade" / "cache" / "search-index.db")
        queries = _queries(root, args.runs)
    load = _load(args.runs)
    figures = {"docs": len(docs), "first_index": index, "scan_ms": scan, "query": queries,
               "load_ms": load}  # fmt: skip
    text = (
        f"{HEADING}\n\n`python -m benchmarks.bench_semantic --mb {args.mb} --runs {args.runs}"
        f" --index-runs {args.index_runs}`"
        f" ({len(docs)} documents):\n\n```json\n{json.dumps(figures, indent=2)}\n```\n"
    )
    print(text)
    if args.write:
        replace_section(HEADING, text)


if __name__ == "__main__":
    main()
