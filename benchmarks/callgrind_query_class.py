"""A class's queries through ``run_query``, for instruction counts (journal: 2026-12-07-query-window.md).

One connection is warmed on the class's queries (one pass), then every query runs ``passes``
more times; under ``valgrind --tool=callgrind`` the run with ``passes`` = 0 is subtracted from
the run with N, which leaves N passes of the queries' own work::

    PYTHONHASHSEED=0 PYTHONPATH=<tree> valgrind --tool=callgrind \\
        python -m benchmarks.callgrind_query_class /tmp/scale-work/c100 phrase 2

``CORPUS`` is the scale series' corpus folder (its ``vocabulary.json``), whose project is
``CORPUS-project``; the class is a ``benchmarks.cli_classes`` name. An optional fourth argument
is appended to every query (``" kind:terminal"``: the class under a filter).
"""

from __future__ import annotations

import sys
from pathlib import Path


def main(argv: list[str]) -> int:
    from benchmarks.bench_index import NOW
    from benchmarks.cli_classes import class_queries
    from engine.index.db import connect
    from engine.project.model import Project
    from engine.query.run import run_query
    from engine.types import SearchQueryArgs

    corpus, name, passes = Path(argv[0]), argv[1], int(argv[2])
    suffix = argv[3] if len(argv) > 3 else ""
    root = corpus.with_name(corpus.name + "-project")
    queries = [q + suffix for q in class_queries(root, corpus / "vocabulary.json")[name]]
    conn = connect(root / ".ade" / "cache" / "search-index.db")
    project = Project(root=root, id="bench", name="bench", is_git=False)
    for _ in range(1 + passes):  # the first pass warms the connection's cache
        for query in queries:
            run_query(conn, SearchQueryArgs(query=query, limit=50), project=project, now=NOW)
    print(f"{len(queries)} queries, {passes} passes after the warm one")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
