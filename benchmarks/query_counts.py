"""A fixed set of in-process queries to count instructions of (``valgrind --tool=callgrind``).

Run: ``PYTHONHASHSEED=0 valgrind --tool=callgrind python -m benchmarks.query_counts --work
/tmp/scale-work --size c10 --class rare --runs N`` once with ``--runs 0`` and once with N; the
difference over N times the class's queries is one query's instructions (imports, the connection
and the warm pass cancel). Every query runs twice before the timed passes (the page caches warm,
the page redactor past its first page, as in a process that answers queries); ``--cold`` drops
the kept derived snippet texts and matching lines before each timed query.

Counts are load-independent; compile the tree's bytecode first (``python -m compileall``): a
``.pyc`` written between the two runs would be subtracted from the query.
"""

from __future__ import annotations

import argparse
from pathlib import Path

QUERIES: dict[str, dict[str, tuple[str, ...]]] = {
    "c10": {
        "rare": ("biharhu", "bucekodor", "cara", "cenhor"),
        "prefix": ("tomen", "morfu", "lende", "satar"),
        "two": ("hiro vewi", "gepo dufi", "hogo dini"),
        "phrase": ('"most recent call"', '"number of"'),
        "common": ("the",),
    },
    "c100": {
        "rare": ("porla", "digosome", "karhormuda", "zufenor"),
        "prefix": ("tomen", "morfu", "lende", "satar"),
        "two": ("hiro vewi", "gepo dufi", "hogo dini"),
        "phrase": ('"most recent call"', '"number of"'),
        "common": ("the",),
    },
}
"""Per scale corpus and class, some of ``benchmarks.bench_index.query_classes``' picks."""


def main(argv: list[str] | None = None) -> int:
    from benchmarks.bench_index import NOW
    from engine.index.db import connect
    from engine.project.model import Project
    from engine.query.run import run_query
    from engine.types import SearchQueryArgs

    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--work", type=Path, default=Path("/tmp/scale-work"))
    parser.add_argument("--size", choices=sorted(QUERIES), default="c10")
    parser.add_argument("--class", dest="cls", choices=sorted(QUERIES["c10"]), default="rare")
    parser.add_argument("--runs", type=int, default=0)
    parser.add_argument("--cold", action="store_true")
    ns = parser.parse_args(argv)
    root = ns.work / f"{ns.size}-project"
    conn = connect(root / ".ade" / "cache" / "search-index.db")
    project = Project(root=root, id="bench", name="bench", is_git=False)
    queries = QUERIES[ns.size][ns.cls]
    for query in (*queries, *queries):
        run_query(conn, SearchQueryArgs(query=query, limit=50), project=project, now=NOW)
    forget = None
    if ns.cold:
        from engine.links.places import forget_matching_lines
        from engine.query.source_text import forget_derived_texts

        def forget() -> None:
            forget_derived_texts()
            forget_matching_lines()

    for _ in range(ns.runs):
        for query in queries:
            if forget is not None:
                forget()
            run_query(conn, SearchQueryArgs(query=query, limit=50), project=project, now=NOW)
    conn.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
