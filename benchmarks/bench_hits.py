"""Per-hit cost of a query page: ``make_snippet`` now against its version at ``--base``.

Builds ade's index of the ``--mb`` corpus (``bench_index.load_docs``, as ``bench_peers`` does; kept
in ``--work``), picks ten rare words (38-60 matches), and times in the same interleaved rounds:
every page body's ``make_snippet`` (the version at ``--base``, loaded from git, and the current
one), and the whole ``run_query``: the current one, and ``--base``'s page assembly (its
``run.py``, ``snippets.py`` and ``deeplink.py``, loaded from git). Medians of ``--runs`` rounds.

Run: ``python -m benchmarks.bench_hits [--mb 16] [--work DIR] [--base main] [--runs 21]``.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import types
from pathlib import Path
from typing import Any

import engine.query.run as run_module
from benchmarks.bench_index import NOW, load_docs
from benchmarks.bench_peers import rare_specs
from benchmarks.corpus import CORPUS_DIR, generate
from benchmarks.peers import LIMIT, Ade, RawFts5
from benchmarks.timing import interleaved
from engine.query import snippets
from engine.types import SearchQueryArgs


def _module_at(rev: str, path: str) -> types.ModuleType:
    source = subprocess.run(["git", "show", f"{rev}:{path}"], check=True, capture_output=True,
                            text=True).stdout  # fmt: skip
    module = types.ModuleType(f"base_{Path(path).stem}")
    sys.modules[module.__name__] = module  # dataclasses look their module up there
    exec(compile(source, f"{rev}:{path}", "exec"), module.__dict__)
    return module


def _query_with(run_query: Any, ade: Ade, spec: Any) -> Any:
    args = SearchQueryArgs(query=spec.text, limit=LIMIT)
    return lambda: run_query(ade.conn, args, project=ade.project, now=NOW)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=int, default=16)
    parser.add_argument("--work", type=Path, default=Path("/tmp/bench-hits"))
    parser.add_argument("--base", default="main")
    parser.add_argument("--runs", type=int, default=21)
    args = parser.parse_args()
    folder = args.work / f"mb{args.mb}"
    raw, ade = RawFts5(), Ade()
    if not (folder / "done").exists():
        generate(args.mb, CORPUS_DIR)
        docs = load_docs(CORPUS_DIR)
        raw.build(folder / "raw-FTS5", docs)
        ade.build(folder / "ade", docs)
        (folder / "done").write_text("")
    raw.open(folder / "raw-FTS5")
    ade.open(folder / "ade")
    vocab = json.loads((CORPUS_DIR / "vocabulary.json").read_text())
    specs = rare_specs(raw, vocab, band=(38, 60))
    base = _module_at(args.base, "engine/query/snippets.py")
    base_run = _module_at(args.base, "engine/query/run.py")
    base_run.make_snippet = base.make_snippet
    base_run.build_link = _module_at(args.base, "engine/links/deeplink.py").build_link
    base_queries = [_query_with(base_run.run_query, ade, s) for s in specs]
    pages: list[tuple[str, Any]] = []
    current = run_module.make_snippet

    def spy(body: str, parsed: Any, *rest: Any) -> str:
        pages.append((body, parsed))
        return current(body, parsed, *rest)

    run_module.make_snippet = spy  # type: ignore[assignment]
    queries = [ade.query(s) for s in specs]
    for query in queries:
        assert query is not None
        query()
    run_module.make_snippet = current
    differ = sum(base.make_snippet(b, p) != snippets.make_snippet(b, p) for b, p in pages)
    differ_items = sum(a() != b() for a, b in zip(base_queries, queries, strict=True))  # type: ignore[misc]

    def whole(jobs: list[Any]) -> Any:
        return lambda: [job() for job in jobs]

    timings = interleaved({
        "make_snippet base": lambda: [base.make_snippet(b, p) for b, p in pages],
        "make_snippet now": lambda: [snippets.make_snippet(b, p) for b, p in pages],
        "run_query base": whole(base_queries),
        "run_query now": whole(queries),
    }, args.runs)  # fmt: skip
    hits, n = len(pages), len(queries)
    out = {
        "hits": hits,
        "queries": n,
        "median matches": statistics.median(raw.df(f'"{s.text}"*') for s in specs),
        "snippets that differ": differ,
        "answers that differ": differ_items,
        "make_snippet us/hit": {
            k.split()[-1]: round(t.median * 1000 / hits, 2)
            for k, t in timings.items()
            if k.startswith("make")
        },
        "run_query ms/query": {
            k.split()[-1]: round(t.median / n, 3) for k, t in timings.items() if k.startswith("run")
        },
    }
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
