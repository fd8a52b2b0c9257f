"""What the exact-phrase boost costs a multi-word query (docs/search.md).

For two- and three-word queries over the generated corpus (stop words, which get no boost; the
most common other words, whose phrase query walks the most positions; a mid-frequency pair; a
rare pair), times a whole ``run_query`` (limit 50) with
the boost and without it (``engine.query.run.with_phrase_boost`` replaced by the identity),
interleaved in the same rounds, and prints both medians and their ratio.

Usage: ``python -m benchmarks.bench_phrase_boost [--mb 30] [--runs 11] [--work DIR]``.
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import engine.query.run as query_run
from benchmarks.bench_index import NOW, build_ours, load_docs
from benchmarks.corpus import generate
from benchmarks.timing import interleaved
from engine.index.db import connect
from engine.project.model import Project
from engine.query.pasted import is_weak_word
from engine.types import SearchQueryArgs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=int, default=30)
    parser.add_argument("--runs", type=int, default=11)
    parser.add_argument("--work", type=Path, help="keep (or reuse) the corpus and index here")
    args = parser.parse_args()
    work = args.work or Path(tempfile.mkdtemp(prefix="ade-phrase-"))
    corpus, index = work / "corpus", work / "index.db"
    if not index.exists():
        generate(args.mb, out=corpus)
        docs = load_docs(corpus)
        print(f"built {len(docs)} docs in {build_ours(index, docs):.1f} s")
    conn = connect(index)
    vocab = json.loads((corpus / "vocabulary.json").read_text())
    common = [w for w in vocab[:200] if not is_weak_word(w)]
    queries = [f"{vocab[0]} {vocab[1]}", f"{vocab[2]} {vocab[3]} {vocab[4]}",
               f"{common[0]} {common[1]}", f"{common[2]} {common[3]} {common[4]}",
               f"{vocab[200]} {vocab[300]}", f"{vocab[-50]} {vocab[-60]}",
               "most recent call"]  # fmt: skip
    project = Project(root=Path("/nonexistent"), id="bench", name="bench", is_git=False)
    boost = query_run.with_phrase_boost

    def job(text: str, boosted: bool) -> Callable[[], object]:
        def run() -> object:
            query_run.with_phrase_boost = boost if boosted else _identity  # type: ignore[assignment]
            try:
                return query_run.run_query(conn, SearchQueryArgs(query=text, limit=50),
                                           project=project, now=NOW)  # fmt: skip
            finally:
                query_run.with_phrase_boost = boost

        return run

    print(f"corpus {args.mb} MB; medians of {args.runs} interleaved rounds (whole run_query)")
    print(f"{'query':32} {'total':>6} {'no boost':>10} {'boost':>10} {'ratio':>6}")
    ratios = []
    for text in queries:
        total = query_run.run_query(conn, SearchQueryArgs(query=text, limit=50),
                                    project=project, now=NOW).total  # fmt: skip
        timings = interleaved({"off": job(text, False), "on": job(text, True)}, args.runs)
        off, on = timings["off"].median, timings["on"].median
        ratios.append(on / off)
        print(f"{text[:32]:32} {total:6d} {off:8.1f} ms {on:8.1f} ms {on / off:6.2f}")
    print(f"median ratio with/without the boost: {statistics.median(ratios):.2f}")


def _identity(_conn: Any, _parsed: Any, indexed: Any, *_rest: Any) -> Any:
    return indexed, 0


if __name__ == "__main__":
    main()
