"""How many matches can be scored within the latency budget.

Times, for terms whose match count is near 1k, 10k, 50k and 100k, the ways to pick BM25
candidates: the newest window by rowid (before every match was ranked), every match scored and the best
window kept (``ORDER BY`` both scores, what ``engine.index.sql.window_sql`` does now), the same
through FTS5's ``rank`` column, and a bare count (the doclist walk every strategy pays).

Usage: ``python -m benchmarks.bench_rank [--mb 130] [--runs 11] [--work DIR]``.
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
from collections.abc import Callable
from pathlib import Path

import apsw

from benchmarks.bench_index import NOW, build_ours, load_docs
from benchmarks.corpus import generate
from benchmarks.timing import interleaved
from engine.index.db import connect
from engine.index.sql import EXACT_WEIGHTS, SPLIT_WEIGHTS, Filters, window_sql
from engine.project.model import Project
from engine.query.candidates import BM25_WINDOW as WINDOW
from engine.query.candidates import SCORE_BUDGET
from engine.query.run import run_query
from engine.types import SearchQueryArgs

TARGETS = (1_000, 10_000, 50_000, 100_000)
PHRASES = ("of the", "most recent call")


def _df(conn: apsw.Connection, term: str) -> int:
    row = conn.execute(
        "SELECT count(*) FROM docs_fts WHERE docs_fts MATCH ?", (f'"{term}"',)
    ).fetchone()
    return int(row[0]) if row else 0


def pick_terms(conn: apsw.Connection, vocab: list[str]) -> dict[int, tuple[str, int]]:
    """The vocabulary word whose match count is nearest each target (the Zipf head first)."""
    counts = [(_df(conn, w), w) for w in vocab[:400]]
    out = {}
    for target in TARGETS:
        n, word = min(counts, key=lambda c: abs(c[0] - target))
        out[target] = (word, n)
    return out


def strategies(conn: apsw.Connection, term: str) -> dict[str, Callable[[], object]]:
    match = f'"{term}"'
    scores = f"bm25(docs_fts, {EXACT_WEIGHTS}), bm25(docs_fts, {SPLIT_WEIGHTS})"

    def run(sql: str, *params: object) -> Callable[[], object]:
        flat = tuple(params[0]) if len(params) == 1 and isinstance(params[0], list) else params
        return lambda: conn.execute(sql, flat).fetchall()

    return {
        "newest window": run(
            f"SELECT d.id, d.doc_id, {scores} FROM docs_fts CROSS JOIN docs d ON d.id = docs_fts.rowid"
            " WHERE docs_fts MATCH ? ORDER BY docs_fts.rowid DESC LIMIT ?",
            match,
            WINDOW,
        ),
        "score all, best window": run(
            f"SELECT d.id, d.doc_id, s.b1, s.b2 FROM (SELECT rowid, {scores.replace('),', ') AS b1,')} AS b2"
            " FROM docs_fts WHERE docs_fts MATCH ? ORDER BY b1, b2, rowid DESC LIMIT ?) s"
            " CROSS JOIN docs d ON d.id = s.rowid",
            match,
            WINDOW,
        ),
        "ours, bm25()": run(*window_sql(match, Filters(), WINDOW, budget=SCORE_BUDGET)),
        "ours, ade_bm25_1": run(
            *window_sql(match, Filters(), WINDOW, budget=SCORE_BUDGET, one_phrase=True)
        ),
        "rank column": run(
            "SELECT d.id, d.doc_id FROM (SELECT rowid FROM docs_fts WHERE docs_fts MATCH ?"
            f" AND rank MATCH 'bm25({EXACT_WEIGHTS})' ORDER BY rank LIMIT ?) s"
            " CROSS JOIN docs d ON d.id = s.rowid",
            match,
            WINDOW,
        ),
        "count only": run("SELECT count(*) FROM docs_fts WHERE docs_fts MATCH ?", match),
    }


def rare_terms(conn: apsw.Connection, vocab: list[str]) -> list[tuple[str, int]]:
    """Ten words of the Zipf tail with 5-60 matches each (the "rare term" class)."""
    out = []
    for word in vocab[-2000:]:
        n = _df(conn, word)
        if 5 <= n <= 60:
            out.append((word, n))
        if len(out) == 10:
            break
    return out


def time_rare(conn: apsw.Connection, terms: list[tuple[str, int]], runs: int) -> float:
    """Median ms of a whole ``run_query`` (limit 50) over the rare terms, interleaved."""
    project = Project(root=Path("/nonexistent"), id="bench", name="bench", is_git=False)

    def query(word: str) -> Callable[[], object]:
        args = SearchQueryArgs(query=word, limit=50)
        return lambda: run_query(conn, args, project=project, now=NOW)

    jobs = {word: query(word) for word, _ in terms}
    timings = interleaved(jobs, runs)
    return statistics.median(t.median for t in timings.values())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=int, default=130)
    parser.add_argument("--runs", type=int, default=11)
    parser.add_argument("--work", type=Path, help="keep (or reuse) the corpus and index here")
    args = parser.parse_args()
    work = args.work or Path(tempfile.mkdtemp(prefix="ade-rank-"))
    corpus = work / "corpus"
    index = work / "index.db"
    if not index.exists():
        generate(args.mb, out=corpus)
        docs = load_docs(corpus)
        print(f"built {len(docs)} docs in {build_ours(index, docs):.1f} s")
    conn = connect(index)
    vocab = json.loads((corpus / "vocabulary.json").read_text())
    docs_total = int(conn.execute("SELECT count(*) FROM docs").fetchone()[0])
    print(f"corpus {args.mb} MB, {docs_total} docs; window {WINDOW}; medians of {args.runs} rounds")
    print(f"{'matches':>8} {'term':12} " + " ".join(f"{n:>24}" for n in strategies(conn, "x")))
    picked = list(pick_terms(conn, vocab).values()) + [(p, _df(conn, p)) for p in PHRASES]
    for term, n in picked:
        timings = interleaved(strategies(conn, term), args.runs)
        row = " ".join(f"{t.median:21.1f} ms" for t in timings.values())
        print(f"{n:8d} {term:12} {row}")
    rare = rare_terms(conn, vocab)
    counts = statistics.median(n for _, n in rare)
    print(
        f"rare terms ({len(rare)} words, median {counts:.0f} matches): whole run_query median"
        f" {time_rare(conn, rare, args.runs):.1f} ms"
    )


if __name__ == "__main__":
    main()
