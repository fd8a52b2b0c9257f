"""What a semantic query costs over a lexical one, at more than one corpus size (docs/semantic.md).

For each ``--mb`` size a generated corpus (``benchmarks.corpus``) is written into an index with
its vectors (``bench_semantic._write``, the model held as the daemon holds it), then the
known-item benchmark's remembered, typo, paraphrase and exact queries run through
``EmbeddedClient.query``, interleaved in the same rounds (the order rotating each round and
reversed every other query):

- ``lexical``: ``ADE_SEMANTIC=0``, the query as typed;
- ``semantic, every word OR-ed``: ``mode:semantic``, the any-word ranking over every word of the
  query (what main did: ``scoring_tokens`` replaced by the identity);
- ``semantic``: ``mode:semantic`` as the tree answers it (words half the documents hold left
  out of the any-word ranking).
- ``unasked``: the query as typed, the layer on (the default path: meaning is fused in when
  the lexical steps find too little or only a relaxed page);
- ``unasked, no paraphrase check``: the same with ``hybrid.paraphrased`` answering False without
  reading the index (what main did: the words decide every full relaxed page), so the check's
  own cost is the difference between the two.

With ``--daemon``, the default path as well, in the same rounds: two ``ade daemon`` processes,
each with a runtime folder of its own and a copy of the same index, one started with
``ADE_SEMANTIC=0`` and one with the layer on (the daemon holds the model: its process loads it
on the warm-up's first semantic query), asked through a ``DaemonClient`` over the socket:

- ``daemon lexical``: the query as typed, answered by the ``ADE_SEMANTIC=0`` daemon;
- ``daemon semantic``: ``mode:semantic`` added, answered by the other.

Reported: p50 and p95 per variant, the p95 difference against the lexical variant of the same
path (``p95_over_lexical_ms``) and their ratio, and the any-word ranking's own time
(``bm25_any``) for the in-process semantic variants.

Usage: ``python -m benchmarks.bench_semantic_query [--mb 5 20] [--runs 3] [--daemon]``.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path

from benchmarks.bench_index import load_docs
from benchmarks.bench_semantic import _write
from benchmarks.cli_default_path import wait_listening
from benchmarks.corpus import generate
from benchmarks.known_items_queries import DEMO, GENERATED
from benchmarks.timing import percentile
from engine.embedded import EmbeddedClient
from engine.rpc.client import DaemonClient, connect_daemon
from engine.rpc.paths import socket_path
from engine.semantic import hybrid
from engine.semantic.model import model
from engine.types import SearchQueryArgs

VARIANTS = (
    "lexical",
    "semantic, every word OR-ed",
    "semantic",
    "unasked",
    "unasked, no paraphrase check",
)
DAEMON_VARIANTS = ("daemon lexical", "daemon semantic")


REAL_ANY = hybrid.bm25_any
REAL_TOKENS = hybrid.scoring_tokens
REAL_PARAPHRASED = hybrid.paraphrased


def _never_paraphrased(conn: object, plan: object, result: object) -> bool:
    """What main did: a full relaxed page found unasked is decided by the words."""
    del conn, plan, result
    return False


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


@contextmanager
def _daemon(root: Path, work: Path, semantic: bool) -> Iterator[DaemonClient]:
    """A client of an ``ade daemon`` of its own (runtime folder, HOME) serving a copy of
    ``root``, started with the semantic layer on or off; the daemon is stopped on exit."""
    name = "daemon-semantic" if semantic else "daemon-lexical"
    copy = work / name / "project"
    shutil.copytree(root, copy)
    env = {**os.environ, "ADE_RUNTIME_DIR": str(work / name / "run"),
           "ADE_CONFIG_DIR": str(work / name / "cfg"), "HOME": str(work / name / "home"),
           "ADE_SEMANTIC": "1" if semantic else "0"}  # fmt: skip
    env.pop("ADE_SESSION_ID", None)
    ade = str(Path(sys.executable).with_name("ade"))
    proc = subprocess.Popen([ade, "daemon"], env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)  # fmt: skip
    try:
        wait_listening(socket_path(env))
        client = connect_daemon(copy, env=env, timeout=30.0, restart=False)
        if client is None:
            raise SystemExit(f"the {name} did not answer")
        try:
            yield client
        finally:
            client.close()
    finally:
        proc.terminate()
        proc.wait(60)


def _size(mb: int, runs: int, work: Path, daemon: bool) -> dict[str, object]:
    docs = load_docs(generate(mb, work / "corpus"))
    root = work / "project"
    (root / ".ade" / "cache").mkdir(parents=True)
    _write(root / ".ade" / "cache" / "search-index.db", docs, True)
    texts = [q for style, q, _ in (*DEMO, *GENERATED) if style != "filtered"]
    variants = (*VARIANTS, *(DAEMON_VARIANTS if daemon else ()))
    samples: dict[str, list[float]] = {v: [] for v in variants}
    any_ms: dict[str, list[float]] = {v: [] for v in VARIANTS[1:]}
    with ExitStack() as stack:
        client = stack.enter_context(EmbeddedClient.open(root, start_worker=False))
        remote: dict[str, DaemonClient] = {}
        if daemon:
            for variant, on in zip(DAEMON_VARIANTS, (False, True), strict=True):
                remote[variant] = stack.enter_context(_daemon(root, work, on))

        def one(variant: str, text: str) -> float:
            asked = not (variant.endswith("lexical") or variant.startswith("unasked"))
            prefix = "mode:semantic " if asked else ""
            if variant in remote:
                start = time.perf_counter()
                remote[variant].query(SearchQueryArgs(query=prefix + text, limit=10))
                return (time.perf_counter() - start) * 1000
            os.environ["ADE_SEMANTIC"] = "0" if variant == "lexical" else "1"
            if variant == VARIANTS[1]:
                hybrid.scoring_tokens = _every_word
            if variant != "lexical":
                hybrid.bm25_any = _timed_any(any_ms[variant])
            if variant == VARIANTS[4]:
                hybrid.paraphrased = _never_paraphrased
            start = time.perf_counter()
            try:
                client.query(SearchQueryArgs(query=prefix + text, limit=10))
            finally:
                hybrid.scoring_tokens = REAL_TOKENS
                hybrid.bm25_any = REAL_ANY
                hybrid.paraphrased = REAL_PARAPHRASED
            return (time.perf_counter() - start) * 1000

        for text in texts:  # warm-up: the vector matrix, the page cache, each daemon's model
            for variant in ("semantic", *remote):
                one(variant, text)
        for value in any_ms.values():
            value.clear()
        for n in range(runs):
            turn = n % len(variants)
            order = variants[turn:] + variants[:turn]
            for number, text in enumerate(texts):
                # Reversed every other query: no variant always follows the same one (the
                # in-process semantic query leaves its vector thread's work behind it).
                for variant in order if number % 2 == 0 else order[::-1]:
                    samples[variant].append(one(variant, text))
    out: dict[str, object] = {"docs": len(docs), "queries": len(texts), "runs": runs,
                              "load_average_1m": round(os.getloadavg()[0], 1)}  # fmt: skip
    for variant, values in samples.items():
        out[variant] = {
            "p50_ms": round(percentile(values, 0.5), 1),
            "p95_ms": round(percentile(values, 0.95), 1),
        }
    for variant in variants:
        if variant.endswith("lexical"):
            continue
        base = "daemon lexical" if variant in DAEMON_VARIANTS else "lexical"
        entry = out[variant]
        assert isinstance(entry, dict)
        p95, lexical_p95 = percentile(samples[variant], 0.95), percentile(samples[base], 0.95)
        entry["p95_over_lexical_ms"] = round(p95 - lexical_p95, 1)
        entry["p95_ratio"] = round(p95 / lexical_p95, 2)
        entry["p50_ratio"] = round(
            percentile(samples[variant], 0.5) / percentile(samples[base], 0.5), 2
        )
    for variant, spent in any_ms.items():
        entry = out[variant]
        assert isinstance(entry, dict)
        entry["bm25_any_p50_ms"] = round(percentile(spent, 0.5), 1)
        entry["bm25_any_p95_ms"] = round(percentile(spent, 0.95), 1)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--mb", type=int, nargs="+", default=[5, 20])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--daemon", action="store_true",
                        help="also through two daemons (semantic off / on), interleaved")  # fmt: skip
    args = parser.parse_args()
    model()  # held, as the daemon holds it
    figures = {}
    for mb in args.mb:
        with tempfile.TemporaryDirectory(prefix="ade-semantic-query-") as tmp:
            figures[f"{mb} MB"] = _size(mb, args.runs, Path(tmp), args.daemon)
        print(json.dumps({f"{mb} MB": figures[f"{mb} MB"]}, indent=2), flush=True)
    print(json.dumps(figures, indent=2))


if __name__ == "__main__":
    main()
