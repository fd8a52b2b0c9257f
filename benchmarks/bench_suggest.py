"""Cost of "did you mean …?": ``suggest_query`` on an index, typo by typo.

Run: ``python -m benchmarks.bench_suggest [--mb 40]`` (builds a corpus index with
``bench_index``'s generator, plus the demo's). The work is bounded per unknown word by the first
letter(s), a length window and ``MAX_SCAN`` rows a range; this prints vocabulary size and
p50/p95 per typo, and the same query's plain zero-result search for comparison.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
from datetime import UTC, datetime
from pathlib import Path

import apsw

from benchmarks.bench_index import build_ours, load_docs
from benchmarks.corpus import generate
from benchmarks.timing import percentile, timed
from engine.index.db import connect
from engine.project.model import Project
from engine.query.plan import build_plan
from engine.query.run import run_query
from engine.query.suggest import suggest_query
from engine.types import SearchQueryArgs

NOW = datetime(2026, 6, 15, 12, tzinfo=UTC)


def typos_of(conn: apsw.Connection, count: int) -> list[str]:
    """Swap two inner letters of frequent long terms: the common typo."""
    conn.execute(
        "CREATE VIRTUAL TABLE IF NOT EXISTS temp.v USING fts5vocab(main, 'docs_fts', 'row')"
    )
    rows = conn.execute(
        "SELECT term FROM temp.v WHERE length(term) BETWEEN 6 AND 12 AND term GLOB '[a-z]*'"
        " ORDER BY doc DESC LIMIT ?",
        (count,),
    ).fetchall()
    return [t[:2] + t[3] + t[2] + t[4:] for (t,) in rows]


def measure(label: str, index: Path, runs: int) -> None:
    conn = connect(index)
    words = typos_of(conn, 40)
    vocab = conn.execute("SELECT count(*) FROM temp.v").fetchone()[0]
    project = Project(root=index.parent, id="bench", name="bench", is_git=False)
    suggest_ms: list[float] = []
    search_ms: list[float] = []
    found = 0
    for word in words:
        plan = build_plan(SearchQueryArgs(query=word), now=NOW, lanes=[])
        for _ in range(max(runs // 40, 3)):
            seconds, _result = timed(
                lambda plan=plan: run_query(conn, plan, project=project, lanes=[])
            )
            search_ms.append(seconds * 1000)
            seconds, better = timed(lambda plan=plan: suggest_query(conn, plan))
            suggest_ms.append(seconds * 1000)
        found += better is not None
    conn.close()
    print(
        f"{label}: {vocab:,} terms; suggestion p50 {statistics.median(suggest_ms):.2f} ms,"
        f" p95 {percentile(suggest_ms, 0.95):.2f} ms; the zero-result search itself p50"
        f" {statistics.median(search_ms):.2f} ms; {found}/40 typos corrected"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--mb", type=int, default=40)
    parser.add_argument("--runs", type=int, default=400)
    parser.add_argument("--demo-index", type=Path, help="an indexed demo's search-index.db")
    args = parser.parse_args()
    if args.demo_index:
        measure("demo", args.demo_index, args.runs)
    work = Path(tempfile.mkdtemp(prefix="ade-suggest-"))
    index = work / ".ade" / "cache" / "search-index.db"
    docs = load_docs(generate(args.mb))
    build_ours(index, docs)
    measure(f"corpus {args.mb} MB ({len(docs):,} docs)", index, args.runs)


if __name__ == "__main__":
    main()
