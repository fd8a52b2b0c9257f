"""What a semantic query costs over a lexical one, at more than one corpus size (docs/semantic.md).

For each ``--mb`` size a generated corpus (``benchmarks.corpus``) is written into an index with
its vectors (``bench_semantic._write``, the model held as the daemon holds it), then the
known-item benchmark's remembered, typo, paraphrase and exact queries run through
``EmbeddedClient.query``, interleaved in the same rounds (the order rotating each round):

- ``lexical``: ``ADE_SEMANTIC=0``, the query as typed;
- ``semantic, every word OR-ed``: ``mode:semantic``, the any-word ranking over every word of the
  query (what main did: ``scoring_tokens`` replaced by the identity);
- ``semantic``: ``mode:semantic`` as the tree answers it (words half the documents hold left
  out of the any-word ranking).

Reported: p50 and p95 per variant, the p95 difference against ``lexical``, and the any-word
ranking's own time (``bm25_any``) per variant.

Usage: ``python -m benchmarks.bench_semantic_query [--mb 5 20] [--runs 3]``.
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from benchmarks.bench_index import load_docs
from benchmarks.bench_semantic import _write
from benchmarks.corpus import generate
from benchmarks.known_items_queries import DEMO, GENERATED
from benchmarks.timing import percentile
from engine.embedded import EmbeddedClient
from engine.semantic import hybrid
from engine.semantic.model import model
from engine.types import SearchQueryArgs

VARIANTS = ("lexical", "semantic, every word OR-ed", "semantic")


REAL_ANY = hybrid.bm25_any
REAL_TOKENS = hybrid.scoring_tokens


def _every_word(conn: object, tokens: list[str]) -> list[str]:
    """What main did: every word of the query OR-ed into the any-word ranking."""
    del conn
    return tokens


def _timed_any(spent: list[float]) -> Callable[..., list[int]]:
    def timed(*args: object) -> list[int]:
        start = time.perf_counter()
        try:
            return REAL_ANY(*args)  # type: ignore[arg-type]
        finally:
            spent.append((time.perf_counter() - start) * 1000)

    return timed


def _size(mb: int, runs: int, work: Path) -> dict[str, object]:
    docs = load_docs(generate(mb, work / "corpus"))
    root = work / "project"
    (root / ".ade" / "cache").mkdir(parents=True)
    _write(root / ".ade" / "cache" / "search-index.db", docs, True)
    texts = [q for style, q, _ in (*DEMO, *GENERATED) if style != "filtered"]
    samples: dict[str, list[float]] = {v: [] for v in VARIANTS}
    any_ms: dict[str, list[float]] = {v: [] for v in VARIANTS[1:]}
    with EmbeddedClient.open(root, start_worker=False) as client:

        def one(variant: str, text: str) -> float:
            os.environ["ADE_SEMANTIC"] = "0" if variant == "lexical" else "1"
            prefix = "" if variant == "lexical" else "mode:semantic "
            if variant == VARIANTS[1]:
                hybrid.scoring_tokens = _every_word
            if variant != "lexical":
                hybrid.bm25_any = _timed_any(any_ms[variant])
            start = time.perf_counter()
            try:
                client.query(SearchQueryArgs(query=prefix + text, limit=10))
            finally:
                hybrid.scoring_tokens = REAL_TOKENS
                hybrid.bm25_any = REAL_ANY
            return (time.perf_counter() - start) * 1000

        for text in texts:  # warm-up: the vector matrix, the page cache
            one("semantic", text)
        for value in any_ms.values():
            value.clear()
        for n in range(runs):
            order = VARIANTS[n % 3 :] + VARIANTS[: n % 3]
            for text in texts:
                for variant in order:
                    samples[variant].append(one(variant, text))
    out: dict[str, object] = {"docs": len(docs), "queries": len(texts), "runs": runs}
    for variant, values in samples.items():
        out[variant] = {
            "p50_ms": round(percentile(values, 0.5), 1),
            "p95_ms": round(percentile(values, 0.95), 1),
        }
    lexical_p95 = percentile(samples["lexical"], 0.95)
    for variant, spent in any_ms.items():
        entry = out[variant]
        assert isinstance(entry, dict)
        entry["p95_over_lexical_ms"] = round(percentile(samples[variant], 0.95) - lexical_p95, 1)
        entry["bm25_any_p50_ms"] = round(percentile(spent, 0.5), 1)
        entry["bm25_any_p95_ms"] = round(percentile(spent, 0.95), 1)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--mb", type=int, nargs="+", default=[5, 20])
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    model()  # held, as the daemon holds it
    figures = {}
    for mb in args.mb:
        with tempfile.TemporaryDirectory(prefix="ade-semantic-query-") as tmp:
            figures[f"{mb} MB"] = _size(mb, args.runs, Path(tmp))
        print(json.dumps({f"{mb} MB": figures[f"{mb} MB"]}, indent=2), flush=True)
    print(json.dumps(figures, indent=2))


if __name__ == "__main__":
    main()
