"""Where one query's time goes, per class, in process: CPU time of ``run_query`` and of its
stages (the window statement and its rows, the match count, the page's snippet text, cut,
redaction and links), and the page redacted snippet by snippet against ``redact_page``,
interleaved in the same run (journal: 2026-12-06-queries.md).

Run: ``python -m benchmarks.bench_query_stages --project DIR --vocabulary FILE --runs 5``, with
DIR a project the scale series made (``<work>/c100-project``, its index built by the tree
measured) and FILE its corpus's ``vocabulary.json``. CPU time (``time.process_time``), not wall:
on the shared 2 cores wall time measures the neighbours.

``--tantivy CORPUS`` (the ``bench`` extra) also builds Tantivy over the corpus's documents and
times, per class, its own query of the scale series (each prefix a ``RegexQuery``: a constant
score, nothing ranked; a phrase a ``PhraseQuery``, ranked) and the same words ranked as FTS5 ranks them (each prefix
expanded into its terms from ade's vocabulary, a ``Should`` of term queries, ``Must`` across
words: BM25 with block-max WAND), against ade's ``run_query``, interleaved; CPU time of the
calling thread (Tantivy's own threads would count against whichever query runs).
"""

from __future__ import annotations

import argparse
import functools
import time
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

from benchmarks.bench_index import NOW
from benchmarks.cli_classes import class_queries
from benchmarks.timing import percentile

STAGES: dict[str, tuple[str, ...]] = {
    "engine.query.candidates": ("_fetch_window", "_match_total", "title_candidates"),
    "engine.query.run": (
        "with_phrase_boost",
        "rank",
        "snippet_texts",
        "snippet_ranges",
        "redact_page",
        "default_link",
    ),
}
"""The functions timed, by the module whose name for them the query path calls."""

CLASSES = ("rare term", "one-term prefix", "two-term prefix", "phrase", "very common term")


def _time_stage(module: ModuleType, name: str, spent: dict[str, float]) -> None:
    original: Callable[..., Any] = getattr(module, name)

    @functools.wraps(original)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        start = time.process_time()
        try:
            return original(*args, **kwargs)
        finally:
            spent[name] = spent.get(name, 0.0) + time.process_time() - start

    setattr(module, name, wrapper)


def main(argv: list[str] | None = None) -> int:
    import importlib

    from engine.index.db import connect
    from engine.project.model import Project
    from engine.redaction import redact_page, redact_secrets
    from engine.types import SearchQueryArgs

    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--project", type=Path, required=True)
    parser.add_argument("--vocabulary", type=Path, required=True)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--tantivy", type=Path, default=None, metavar="CORPUS")
    ns = parser.parse_args(argv)
    picked = class_queries(ns.project, ns.vocabulary)
    conn = connect(ns.project / ".ade" / "cache" / "search-index.db")
    project = Project(root=ns.project, id="bench", name="bench", is_git=False)
    run: Any = importlib.import_module("engine.query.run")
    spent: dict[str, float] = {}
    for module, names in STAGES.items():
        for name in names:
            _time_stage(importlib.import_module(module), name, spent)
    timed_page = run.redact_page

    def alone(texts: list[str]) -> list[str]:
        return [redact_secrets(text) for text in texts]

    print("| class | CPU p50 ms | mean ms: " + " | ".join(n for ns_ in STAGES.values() for n in ns_) +
          " | page redacted at once / snippet by snippet |")  # fmt: skip
    for name in CLASSES:
        per_query: list[float] = []
        before: list[float] = []
        after: list[float] = []
        for query in picked.get(name, []):  # warm: the pages each query reads
            run.run_query(conn, SearchQueryArgs(query=query, limit=50), project=project, now=NOW)
        spent.clear()
        for query in picked.get(name, []):
            args = SearchQueryArgs(query=query, limit=50)
            for i in range(ns.runs):
                start = time.process_time()
                run.run_query(conn, args, project=project, now=NOW)
                per_query.append(time.process_time() - start)
                pair = [(alone, before), (redact_page, after)]
                for page, samples in pair if i % 2 else pair[::-1]:
                    run.redact_page = page
                    start = time.process_time()
                    run.run_query(conn, args, project=project, now=NOW)
                    samples.append(time.process_time() - start)
                run.redact_page = timed_page
        # Means: each stage is timed in the three runs of a round, the page's redaction in one.
        counts = {s: len(per_query) * (1 if s == "redact_page" else 3)
                  for v in STAGES.values() for s in v}  # fmt: skip
        stages = " | ".join(f"{spent.get(s, 0.0) * 1000 / n:.1f}" for s, n in counts.items())
        ratio = percentile(after, 0.5) / percentile(before, 0.5)
        print(f"| {name} | {percentile(per_query, 0.5) * 1000:.1f} | {stages} | {ratio:.2f} |")
    if ns.tantivy is not None:
        run.redact_page = redact_page
        ranked_peer(conn, picked, ns.tantivy, ns.runs, lambda q: run.run_query(
            conn, SearchQueryArgs(query=q, limit=50), project=project, now=NOW))  # fmt: skip
    conn.close()
    return 0


def ranked_peer(
    conn: Any, picked: dict[str, list[str]], corpus: Path, runs: int, ade: Callable[[str], object]
) -> None:
    """Tantivy's regex query, Tantivy ranked like FTS5, and ade, per class (module docstring)."""
    import tempfile

    import tantivy

    from benchmarks.bench_index import load_docs
    from benchmarks.bench_peers import _bare
    from benchmarks.peers import LIMIT, Spec, TantivyPeer

    peer = TantivyPeer(threads=1, stored=True)
    folder = Path(tempfile.mkdtemp(prefix="ade-tantivy-"))
    peer.build(folder, load_docs(corpus))
    peer.open(folder)
    conn.execute(
        "CREATE VIRTUAL TABLE IF NOT EXISTS temp.vocab USING fts5vocab(main, docs_fts, row)"
    )

    def expanded(spec: Spec) -> Callable[[], object]:
        musts = []
        for word, prefix in spec.terms:
            terms = [word] if not prefix else [str(r[0]) for r in conn.execute(
                "SELECT term FROM temp.vocab WHERE term >= ? AND term < ?", (word, word + "\uffff"))]  # fmt: skip
            shoulds = [(tantivy.Occur.Should, tantivy.Query.term_query(peer.schema, "body", t))
                       for t in terms]  # fmt: skip
            musts.append((tantivy.Occur.Must, tantivy.Query.boolean_query(shoulds)))
        query = tantivy.Query.boolean_query(musts)
        snippets = tantivy.SnippetGenerator.create(peer.searcher, query, peer.schema, "body")
        return lambda: [snippets.snippet_from_doc(peer.searcher.doc(address)).fragment()
                        for _, address in peer.searcher.search(query, LIMIT).hits]  # fmt: skip

    print("| class | Tantivy regex | Tantivy ranked | ade | ade / regex | ade / ranked |")
    for name in CLASSES:
        samples: dict[str, list[float]] = {"regex": [], "ranked": [], "ade": []}
        for text in picked.get(name, []):
            phrase = text.startswith('"')
            spec = Spec(text, phrase=tuple(text.strip('"').split())) if phrase else _bare(text)
            regex = peer.query(spec)
            assert regex is not None
            # A phrase has no prefix to expand: Tantivy's phrase query is ranked by BM25 already.
            jobs: dict[str, Callable[[], object]] = {
                "regex": regex, "ranked": regex if phrase else expanded(spec),
                "ade": functools.partial(ade, text)}  # fmt: skip
            for job in jobs.values():
                job()  # warm
            for i in range(runs):
                for key in list(jobs)[i % 3 :] + list(jobs)[: i % 3]:
                    start = time.thread_time()  # not Tantivy's background threads' time
                    jobs[key]()
                    samples[key].append(time.thread_time() - start)
        r, e, a = (percentile(samples[k], 0.5) * 1000 for k in ("regex", "ranked", "ade"))
        print(f"| {name} | {r:.2f} | {e:.2f} | {a:.2f} | {a / r:.1f} | {a / e:.1f} |")
    peer.close()


if __name__ == "__main__":
    raise SystemExit(main())
