"""Cost of the relaxed steps (docs/search.md): a query answered strictly (``--exact``, today's answer)
against the same query relaxed until its page fills, interleaved in the same rounds.

Run: ``python -m benchmarks.bench_relax [--mb 40] [--runs 21]`` (builds a corpus index with
``bench_index``'s generator). Classes, each over queries taken from the index's own vocabulary:

* ``full page``: a frequent word (the strict page fills: nothing is relaxed, the cost must not move);
* ``typo``: a frequent long word with two inner letters swapped (the ``spelling`` step answers);
* ``inflected``: a frequent word plus ``ing`` that no indexed word starts with (``inflection``);
* ``one word missing``: two frequent words and one unknown four-letter word (``most_words``);
* ``nothing near``: an unknown word with no neighbour (every lookup runs, nothing is found);
* ``sentence``: a remembered sentence, common words and two unknown ones (``any_word``, whose
  hits are ordered by how many of the words each holds: ``relax.which_held``). This class also
  runs ``row-list plan``: the relaxed answer with the words checked as main did before the
  bounded scan (``rowid IN`` the hits' ids inside FTS5's plan), interleaved in the same rounds.

Both sides run ``run_query`` on one read connection (no delegates); the relaxed side adds
``engine.query.relax.relax_answer`` exactly as the service calls it.
"""

from __future__ import annotations

import argparse
import tempfile
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import apsw

from benchmarks.bench_index import build_ours, load_docs
from benchmarks.corpus import generate
from benchmarks.timing import interleaved
from engine.index.db import connect
from engine.project.model import Project
from engine.query import relax
from engine.query.plan import QueryPlan, build_plan
from engine.query.relax import can_relax, relax_answer
from engine.query.run import run_query
from engine.types import SearchQueryArgs, SearchQueryResult

NOW = datetime(2026, 6, 15, 12, tzinfo=UTC)
PER_CLASS = 6


def frequent(conn: apsw.Connection, count: int, lengths: tuple[int, int]) -> list[str]:
    conn.execute(
        "CREATE VIRTUAL TABLE IF NOT EXISTS temp.bv USING fts5vocab(main, 'docs_fts', 'row')"
    )
    rows = conn.execute(
        "SELECT term FROM temp.bv WHERE length(term) BETWEEN ? AND ? AND term GLOB '[a-z]*'"
        " ORDER BY doc DESC LIMIT ?",
        (*lengths, count),
    ).fetchall()
    return [str(t) for (t,) in rows]


def classes(conn: apsw.Connection) -> dict[str, list[str]]:
    words = frequent(conn, 60, (6, 12))
    shorter = frequent(conn, 60, (4, 8))
    unknown = ["zqxv", "qzvx", "xqzw", "vzqk", "kqzx", "wzqv"]
    return {
        "full page": shorter[:PER_CLASS],
        "typo": [w[:2] + w[3] + w[2] + w[4:] for w in words[:PER_CLASS]],
        "inflected": [w + "ing" for w in shorter[10 : 10 + PER_CLASS]],
        "one word missing": [
            f"{a} {b} {z}" for a, b, z in zip(words[20:], words[40:], unknown, strict=False)
        ],
        "nothing near": [a + b for a, b in zip(unknown, reversed(unknown), strict=True)],
        "sentence": [
            f"the {a} that {z} in the {b} {y}"
            for a, b, z, y in zip(
                shorter[20:], words[30:], unknown, reversed(unknown), strict=False
            )
        ],
    }


ROW_LIST_SQL = "SELECT rowid FROM docs_fts WHERE docs_fts MATCH ? AND rowid IN ({marks})"
"""Main's check before the bounded scan: FTS5 filters once per listed row id, building a prefix
word's merged doclist each time."""


@contextmanager
def row_list_plan(conn: apsw.Connection) -> Iterator[None]:
    """``relax.which_held`` running ``ROW_LIST_SQL`` (the baseline of the ``sentence`` class)."""
    real = conn.execute

    def execute(sql: str, params: Sequence[object] = ()) -> apsw.Cursor:
        if sql.startswith("SELECT rowid FROM docs_fts WHERE docs_fts MATCH ? AND rowid BETWEEN"):
            match, _low, _high, *ids = params
            sql = ROW_LIST_SQL.format(marks=",".join("?" * len(ids)))
            params = [match, *ids]
        return real(sql, params)

    relax_conn = _Patched(conn, execute)
    original = relax.which_held

    def which_held(_conn: object, *args: Any) -> dict[str, set[int]]:
        return original(relax_conn, *args)  # type: ignore[arg-type]

    relax.which_held = which_held  # type: ignore[assignment]
    try:
        yield
    finally:
        relax.which_held = original


class _Patched:
    """``conn`` with its ``execute`` replaced (apsw's connection type is not patchable)."""

    def __init__(self, conn: apsw.Connection, execute: Callable[..., apsw.Cursor]) -> None:
        self._conn, self.execute = conn, execute

    def __getattr__(self, name: str) -> Any:
        return getattr(self._conn, name)


def _cycle(
    conn: apsw.Connection,
    plans: list[QueryPlan],
    run: Callable[[QueryPlan], SearchQueryResult],
    *,
    relaxed: bool,
    row_list: bool = False,
) -> Callable[[], object]:
    """One query of ``plans`` per call, in turn: strictly, or as the service answers it
    (``row_list``: with ``row_list_plan``)."""
    turn = [0]

    def once() -> object:
        plan = plans[turn[0] % len(plans)]
        turn[0] += 1
        strict = run(plan)
        if relaxed and len(strict.items) < plan.limit and can_relax(plan):
            if row_list:
                with row_list_plan(conn):
                    return relax_answer(conn, plan, strict, run)
            return relax_answer(conn, plan, strict, run)
        return strict

    return once


def measure(index: Path, runs: int) -> list[str]:
    conn = connect(index)
    project = Project(root=index.parent, id="bench", name="bench", is_git=False)
    lines = [
        "| class | queries | strict (--exact) p50 / p95 ms | relaxed p50 / p95 ms | ratio p50 |"
        " step that answered |",
        "|---|---|---:|---:|---:|---|",
    ]

    def run(plan: QueryPlan) -> SearchQueryResult:
        return run_query(conn, plan, project=project, lanes=[])

    for name, queries in classes(conn).items():
        plans = [build_plan(SearchQueryArgs(query=q), now=NOW, lanes=[]) for q in queries]
        jobs = {side: _cycle(conn, plans, run, relaxed=side == "relaxed")
                for side in ("strict", "relaxed")}  # fmt: skip
        if name == "sentence":
            jobs["row-list plan"] = _cycle(conn, plans, run, relaxed=True, row_list=True)
        timings = interleaved(jobs, runs * len(plans))
        steps = sorted({str(relax_answer(conn, p, run(p), run).relaxed) for p in plans})
        s, r = timings["strict"], timings["relaxed"]
        shown = ", ".join(f"`{q}`" for q in queries[:3])
        lines.append(
            f"| {name} | {shown} … | {s.median:.1f} / {s.p95:.1f} | {r.median:.1f} / {r.p95:.1f}"
            f" | {r.median / s.median:.2f}x | {', '.join(steps)} |"
        )
        if "row-list plan" in timings:
            b = timings["row-list plan"]
            lines.append(
                f"| {name}, row-list plan (baseline) | | | {b.median:.1f} / {b.p95:.1f}"
                f" | {b.median / s.median:.2f}x | relaxed / baseline p50 {r.median / b.median:.2f}x |"
            )
    conn.close()
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--mb", type=int, default=40)
    parser.add_argument("--runs", type=int, default=21)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="ade-relax-"))
    index = work / ".ade" / "cache" / "search-index.db"
    docs = load_docs(generate(args.mb))
    build_ours(index, docs)
    print(f"corpus {args.mb} MB ({len(docs):,} docs), {args.runs} rounds per query")
    print("\n".join(measure(index, args.runs)))


if __name__ == "__main__":
    main()
