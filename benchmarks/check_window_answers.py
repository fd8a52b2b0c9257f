"""Whether two trees answer a wide set of queries byte for byte the same: items, totals,
warnings and cursors (journal: 2026-12-07-query-window.md).

A change to the query window's SQL must not change an answer. Run this once with each tree's
``engine`` on ``PYTHONPATH`` (``git archive main`` into a folder for the tree before), each run
writing one JSON line per (project, query, page), then ``--compare`` the two files::

    PYTHONPATH=/tmp/before python -m benchmarks.check_window_answers --out before.jsonl \\
        --project P10 --vocabulary V10 --project P100 --vocabulary V100 --project DEMO
    PYTHONPATH=. python -m benchmarks.check_window_answers --out after.jsonl ...
    python -m benchmarks.check_window_answers --compare before.jsonl after.jsonl

A ``--vocabulary`` after a ``--project`` picks that project's class queries as the scale series
does (``benchmarks.cli_classes.class_queries``); a project without one (``ade demo DIR``) uses
``DEMO_WORDS``. Every query is asked as it is and with each filter of ``FILTERS`` (the lanes the
project has), an excluded word, and paged: three pages by cursor, and offsets deep into the
window and past it, at page sizes 50 and 7. A query the plan refuses records its error.
"""

from __future__ import annotations

import argparse
import itertools
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

DEMO_WORDS = ("timeout", "retry", "payment", "conn", "gateway err", '"connect timeout"', "the",
              "te", "refund -test", "de")  # fmt: skip
"""Queries of the demo project (no vocabulary): words, prefixes, a phrase, an exclusion."""

FILTERS = ("", " kind:chat", " kind:terminal", " since:30d", " -the")
"""Suffixes each query is asked with besides ``lane:`` (one per lane of the project)."""

PAGES = ((50, 0), (7, 0), (50, 45), (7, 990), (50, 990), (50, 1003), (7, 2000))
"""(limit, offset) of the pages asked without a cursor; each limit-0 offset one is followed by
cursor for two more pages."""

CURSOR_PAGES = 2


def _queries(project: Path, vocabulary: Path | None) -> list[str]:
    if vocabulary is None:
        return list(DEMO_WORDS)
    from benchmarks.cli_classes import class_queries

    picked = class_queries(project, vocabulary)
    return [q for name in sorted(picked) for q in picked[name][:4]]


def answers(project_root: Path, vocabulary: Path | None) -> Iterator[dict[str, Any]]:
    """One record per (query, page) of ``project_root``: the answer's JSON or the error's text."""
    import msgspec

    from benchmarks.bench_index import NOW
    from engine.errors import AdeError
    from engine.index.db import connect
    from engine.project.lanes import list_lanes
    from engine.project.model import Project
    from engine.project.tally import WarningTally
    from engine.query.run import run_query
    from engine.types import SearchQueryArgs

    is_git = (project_root / ".git").exists()
    project = Project(root=project_root, id="check", name="check", is_git=is_git)
    lanes = list_lanes(project, WarningTally())
    conn = connect(project_root / ".ade" / "cache" / "search-index.db")
    filters = [*FILTERS, *(f" lane:{lane.id}" for lane in lanes[:2])]

    def ask(text: str, **page: Any) -> tuple[str, Any]:
        args = SearchQueryArgs(query=text, **page)
        try:
            result = run_query(conn, args, project=project, now=NOW, lanes=lanes)
        except AdeError as err:
            return f"error: {type(err).__name__}: {err}", None
        return msgspec.json.encode(result).decode(), result.next_cursor

    for base in _queries(project_root, vocabulary):
        for suffix in filters:
            text = base + suffix
            for limit, offset in PAGES:
                answer, cursor = ask(text, limit=limit, offset=offset)
                yield {"project": project_root.name, "query": text, "page": [limit, offset],
                       "answer": answer}  # fmt: skip
                for n in range(CURSOR_PAGES if offset == 0 else 0):
                    if cursor is None:
                        break
                    answer, cursor = ask(text, limit=limit, cursor=cursor)
                    yield {"project": project_root.name, "query": text,
                           "page": [limit, f"cursor {n + 1}"], "answer": answer}  # fmt: skip
    conn.close()


def compare(before: Path, after: Path) -> int:
    """Print how many answers were compared and every one that differs; 1 if any does."""
    old = before.read_text().splitlines()
    new = after.read_text().splitlines()
    differ = [(a, b) for a, b in zip(old, new, strict=False) if a != b]
    for a, b in differ[:20]:
        print("before:", a[:400])
        print("after: ", b[:400])
    print(f"{min(len(old), len(new))} answers compared ({len(old)} before, {len(new)} after):"
          f" {len(differ)} differ")  # fmt: skip
    return 1 if differ or len(old) != len(new) else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--project", type=Path, action="append", default=[])
    parser.add_argument("--vocabulary", type=Path, action="append", default=[],
                        help="the class queries' vocabulary of the --project before it")  # fmt: skip
    parser.add_argument("--out", type=Path)
    parser.add_argument("--compare", type=Path, nargs=2, metavar=("BEFORE", "AFTER"))
    ns = parser.parse_args(argv)
    if ns.compare:
        return compare(*ns.compare)
    vocab = _pair_vocabularies(argv)
    import engine

    print("engine from", Path(engine.__file__).parent)  # the tree whose answers these are
    with ns.out.open("w") as out:
        for project in ns.project:
            for record in answers(project, vocab.get(project)):
                out.write(json.dumps(record, sort_keys=True) + "\n")
    return 0


def _pair_vocabularies(argv: list[str] | None) -> dict[Path, Path]:
    """Each ``--vocabulary`` with the ``--project`` given before it."""
    import sys

    args = sys.argv[1:] if argv is None else argv
    paired: dict[Path, Path] = {}
    current: Path | None = None
    for flag, value in itertools.pairwise(args):
        if flag == "--project":
            current = Path(value)
        elif flag == "--vocabulary" and current is not None:
            paired[current] = Path(value)
    return paired


if __name__ == "__main__":
    raise SystemExit(main())
