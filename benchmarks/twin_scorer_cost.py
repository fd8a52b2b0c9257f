"""One-phrase queries in process with the compiled ``ade_bm25_1_key`` and with its Python twin
(what an install without a compiler runs), interleaved query by query: thread CPU ms, p50.

Run: ``python -m benchmarks.twin_scorer_cost --project DIR [--runs 7]`` on a copy of a scale
project (``/tmp/scale-work/c10-project``: the index is opened for writing too, so never the
shared one). Journal 2026-12-07-one-scoring-rule.md.
"""

from __future__ import annotations

import argparse
import statistics
import time
from datetime import UTC, datetime
from pathlib import Path

from engine.index import fts_rank
from engine.index.db import connect
from engine.project.locate import open_project
from engine.project.model import Project
from engine.query.run import run_query
from engine.types import SearchQueryArgs

QUERIES = {"rare": "biharhu", "common": "the", "prefix": "bu", "phrase": '"of the"'}
"""The scale series' one-phrase classes (a rare word of the 10 MB corpus, a very common word,
a two-letter prefix, a phrase of two common words)."""

MODES = ("compiled", "twin")


def query_cpu_ms(index: Path, project: Project, mode: str, text: str) -> float:
    """Thread CPU of one query on a fresh connection, after a first run compiled its statements."""
    fts_rank.use_compiled = mode == "compiled"
    conn = connect(index)
    try:
        args, now = SearchQueryArgs(query=text, limit=20), datetime.now(UTC)
        run_query(conn, args, project=project, now=now)
        start = time.thread_time()
        run_query(conn, args, project=project, now=now)
        return (time.thread_time() - start) * 1e3
    finally:
        conn.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--project", type=Path, required=True)
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    project = open_project(args.project)
    index = args.project / ".ade" / "cache" / "search-index.db"
    if not fts_rank.COMPILED_PATH.exists():
        raise SystemExit("the compiled scorer is not built here: nothing to compare")
    cpu: dict[tuple[str, str], list[float]] = {(m, c): [] for m in MODES for c in QUERIES}
    for _ in range(args.runs):
        for name, text in QUERIES.items():
            for mode in MODES:
                cpu[(mode, name)].append(query_cpu_ms(index, project, mode, text))
    print("| class | compiled ms | twin ms | twin / compiled |\n|---|---:|---:|---:|")
    for name in QUERIES:
        compiled, twin = (statistics.median(cpu[(m, name)]) for m in MODES)
        print(f"| {name} | {compiled:.2f} | {twin:.2f} | {twin / compiled:.2f} |")


if __name__ == "__main__":
    main()
