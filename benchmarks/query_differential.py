"""Same answers before and after a change to the query path: every page of a wide set of queries,
byte for byte (items, total, warnings, cursors, ``resultsTruncated``), from two trees.

Run: ``python -m benchmarks.query_differential --before DIR --project P [--project P2 ...]
[--demo D]``, with DIR another checkout of the code base (``git archive main | tar -x -C DIR``)
and each P a project the scale series made (``<work>/c10-project``, its corpus's
``vocabulary.json`` beside it as ``<work>/c10/vocabulary.json``), D a demo (``ade demo D``, its
index built). Each tree answers in its own process (``PYTHONPATH`` the tree), through
``engine.query.run.run_query`` on the scale projects and through the embedded client (the
service, its delegates) on the demo.

The tree measured answers every query twice: once as a process's first query (the caches of
the page's work empty: ``engine.query.source_text``'s derived texts, the page redactor's first
page), once warm; both must equal the other tree's single answer.

Queries: every class of ``benchmarks.bench_index.query_classes`` (rare term, one- and two-term
prefixes, phrases, very common terms, 2-character prefixes), one-character queries, excluded
words, ``kind:``/``since:``/``until:`` filters, ``a|b``, filter-only queries; each walked by cursor
(pages of 50 and of 7, three pages each) and read at an offset.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

PAGINGS: tuple[tuple[int, int, int], ...] = ((50, 3, 0), (7, 3, 0), (10, 1, 45))
"""(limit, pages walked by cursor, offset of the first page)."""

DEMO_NOW = "2026-06-15T12:00:00+00:00"
"""The clock of both trees' processes (``since:`` on the demo)."""

EXTRA_QUERIES = (
    "a", "e", "z", "1", "tomen -morfu", "the -of", "hiro -vewi", "kind:chat the",
    "kind:terminal tomen", "since:30d the", "until:30d tomen", "tomen|morfu", "kind:chat", "",
    "-the", "tom", "\"of the\" -and", "satar*", "the of and",
)  # fmt: skip
"""Beyond the class queries of a scale project."""

DEMO_QUERIES = (
    "timeout", "retry", "error", "pay", "t", "timeout -retry", "kind:chat timeout", "kind:pr",
    "", "\"connection reset\"", "idempotency", "webhook", "kind:terminal", "test", "refund*",
    "secret", "token", "password", "key", "api", "lane:main timeout", "kind:file timeout",
    "kind:commit", "since:7d", "tool:claude", "role:user retry", "x", "the", "ReadTimeoutError",
    "kind:terminal timeout", "pytest", "error -timeout",
)  # fmt: skip
"""The demo: its chats, terminals, PRs, commits, files and artifacts."""


def _queries(project: Path) -> list[str]:
    from benchmarks.cli_classes import class_queries

    vocabulary = project.parent / project.name.removesuffix("-project") / "vocabulary.json"
    picked = class_queries(project, vocabulary)
    return [q for qs in picked.values() for q in qs] + list(EXTRA_QUERIES)


def _pages(answer: Any, query: str) -> list[str]:
    """Every page of ``query`` by each paging, as JSON lines (``answer(args)`` is one page)."""
    import msgspec

    from engine.errors import AdeError
    from engine.types import SearchQueryArgs

    lines = []
    for limit, walked, offset in PAGINGS:
        cursor = None
        for page in range(walked):
            args = SearchQueryArgs(query=query, limit=limit, cursor=cursor,
                                   offset=offset if page == 0 else 0)  # fmt: skip
            try:
                result = answer(args)
            except AdeError as err:
                lines.append(f"{json.dumps([query, limit, page])}\t{type(err).__name__}: {err}")
                break
            lines.append(
                f"{json.dumps([query, limit, page])}\t{msgspec.json.encode(result).decode()}"
            )
            cursor = result.next_cursor
            if cursor is None:
                break
    return lines


def _reset_caches() -> None:
    """A process's first query, where the tree has the caches this differential check knows."""
    import engine.redaction as redaction
    from engine.links import places
    from engine.query import source_text

    for forget in (getattr(redaction, "reset_page_count", None),
                   getattr(source_text, "forget_derived_texts", None),
                   getattr(places, "forget_matching_lines", None)):  # fmt: skip
        if forget is not None:
            forget()


def dump(projects: list[Path], demo: Path | None, out: Path, twice: bool) -> None:
    """Answer every query of ``projects`` and ``demo`` in this process's tree into ``out``."""
    from benchmarks.bench_index import NOW
    from engine.index.db import connect
    from engine.project.model import Project
    from engine.query.run import run_query

    lines: list[str] = []
    for root in projects:
        conn = connect(root / ".ade" / "cache" / "search-index.db")
        project = Project(root=root, id="bench", name="bench", is_git=False)
        queries = _queries(root)

        def answer(args: Any, conn: Any = conn, project: Project = project) -> Any:
            return run_query(conn, args, project=project, now=NOW)

        for query in queries:
            cold = None
            if twice:
                _reset_caches()
                cold = _pages(answer, query)
            warm = _pages(answer, query)
            if cold is not None and cold != warm:
                raise SystemExit(f"{root.name} {query!r}: the first and the warm answers differ")
            lines += [f"{root.name}\t{line}" for line in warm]
        conn.close()
    if demo is not None:
        from engine.embedded import EmbeddedClient

        with EmbeddedClient.open(demo, start_worker=False) as client:
            for query in DEMO_QUERIES:
                cold = None
                if twice:
                    _reset_caches()
                    cold = _pages(client.query, query)
                warm = _pages(client.query, query)
                if cold is not None and cold != warm:
                    raise SystemExit(f"demo {query!r}: the first and the warm answers differ")
                lines += [f"demo\t{line}" for line in warm]
    out.write_text("\n".join(lines) + "\n", encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--before", type=Path, required=True, metavar="DIR")
    parser.add_argument("--after", type=Path, default=Path(__file__).resolve().parents[1])
    parser.add_argument("--project", type=Path, action="append", default=[])
    parser.add_argument("--demo", type=Path, default=None)
    parser.add_argument("--work", type=Path, default=Path("/tmp/ade-differential"))
    parser.add_argument("--dump", type=Path, default=None, help=argparse.SUPPRESS)
    parser.add_argument("--twice", action="store_true", help=argparse.SUPPRESS)
    ns = parser.parse_args(argv)
    if ns.dump is not None:
        dump(ns.project, ns.demo, ns.dump, ns.twice)
        return 0
    ns.work.mkdir(parents=True, exist_ok=True)
    answers = {}
    for name, tree in (("before", ns.before), ("after", ns.after)):
        out = ns.work / f"{name}.jsonl"
        args = [sys.executable, str(Path(__file__).resolve()), "--before", str(ns.before),
                "--dump", str(out), *(["--twice"] if name == "after" else [])]  # fmt: skip
        for project in ns.project:
            args += ["--project", str(project)]
        if ns.demo is not None:
            args += ["--demo", str(ns.demo)]
        home, runtime = ns.work / "home", ns.work / "runtime"  # never this machine's own
        home.mkdir(exist_ok=True)
        runtime.mkdir(mode=0o700, exist_ok=True)
        env = {**os.environ, "PYTHONPATH": str(tree.resolve()), "ADE_SEMANTIC": "0",
               "HOME": str(home), "ADE_RUNTIME_DIR": str(runtime), "ADE_NOW": DEMO_NOW}  # fmt: skip
        subprocess.run(args, env=env, check=True, cwd=tree)
        answers[name] = out.read_text(encoding="utf-8").splitlines()
    before, after = answers["before"], answers["after"]
    differ = [i for i, (b, a) in enumerate(zip(before, after, strict=False)) if b != a]
    queries = {(line.split("\t")[0], json.loads(line.split("\t")[1])[0]) for line in before}
    print(f"{len(queries)} queries, {len(before)} pages before, {len(after)} after; "
          f"{len(differ)} pages differ")  # fmt: skip
    for i in differ[:5]:
        print(f"- before: {before[i][:400]}\n+ after:  {after[i][:400]}")
    return 0 if not differ and len(before) == len(after) else 1


if __name__ == "__main__":
    sys.exit(main())
