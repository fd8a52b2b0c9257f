"""The planning CPU alone (journal: "Planning CPU"): what the planning worker spends per corpus.

    python -m benchmarks.bench_plan --corpus-dir /work/corpora/c60 [--baseline-tree DIR] [--rounds 5]

The corpus is made an ade project once (``bench_ingest._corpus_project``: hard links), then every
transcript is planned pass by pass exactly as the drain plans it (``bench_writer.plan_corpus``:
``tailing.plan_pass`` — read, parse, chunk, sanitize, redact, derive digest, zlib body and
identifier parts), in a fresh interpreter per run so each tree's imports and caches start cold
alike. With ``--baseline-tree`` (an unpacked ``git archive`` of the commit to compare against)
the two trees take turns, one run each per round, and the report gives both medians and their
change; every run also hashes what it planned (every document's fields and derived column
values, every cursor, identity and state, in order), so equal planning is checked on the corpus
itself, not only in the tests. One untimed run first warms the page cache for both.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

from benchmarks.bench_ingest import _corpus_project
from benchmarks.timing import Timing
from benchmarks.timing import rounds as timing_rounds

_CHILD = r"""
import hashlib, json, sys, time
import msgspec
from pathlib import Path
from benchmarks.bench_writer import plan_corpus
root = Path(sys.argv[1])
cpu, wall = time.process_time(), time.perf_counter()
plans = plan_corpus(root)
cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
digest = hashlib.sha256()
docs = 0
for kind, plan in plans:
    head = (kind, plan.cursor, plan.identity, plan.size, plan.reset, plan.more, plan.state)
    digest.update(json.dumps(head, sort_keys=True, default=str).encode())
    for doc in plan.prepared:
        derived = plan.prepared.derive(doc)
        digest.update(msgspec.json.encode((doc, derived)))
        docs += 1
print(json.dumps({"cpu_s": cpu, "wall_s": wall, "docs": docs, "sha256": digest.hexdigest()}))
"""


def plan_once(tree: Path, root: Path) -> dict[str, object]:
    """Plan the project at ``root`` with the code of ``tree`` in a fresh interpreter."""
    env = {**os.environ, "PYTHONPATH": str(tree)}
    out = subprocess.run(
        [sys.executable, "-c", _CHILD, str(root)],
        cwd=tree, env=env, check=True, capture_output=True, text=True,
    )  # fmt: skip
    result: dict[str, object] = json.loads(out.stdout.strip().splitlines()[-1])
    return result


def bench(corpus: Path, baseline: Path | None, rounds: int) -> dict[str, object]:
    """``rounds`` interleaved runs of this tree (and of ``baseline``); medians and hashes."""
    here = Path(__file__).resolve().parents[1]
    trees = {"ours": here, **({"baseline": baseline.resolve()} if baseline else {})}
    runs: dict[str, list[dict[str, object]]] = {name: [] for name in trees}
    # The project sits beside the corpus: hard links need the same file system.
    with tempfile.TemporaryDirectory(dir=corpus.resolve().parent) as tmp:
        root = Path(tmp) / "project"
        _corpus_project(corpus, root)

        def job(name: str) -> Callable[[], float]:
            def run() -> float:
                result = plan_once(trees[name], root)
                runs[name].append(result)
                print(f"  {name}: {result['cpu_s']:.2f} s CPU", file=sys.stderr, flush=True)
                return float(str(result["cpu_s"]))

            return run

        plan_once(here, root)  # page cache
        cpu = timing_rounds({name: job(name) for name in trees}, rounds)
    report: dict[str, object] = {"corpus": str(corpus), "rounds": rounds}
    for name, samples in runs.items():
        walls = tuple(float(str(r["wall_s"])) for r in samples)
        taken = Timing(wall=walls, cpu=tuple(cpu[name]))
        report[f"{name}_cpu_s"] = round(taken.cpu_median, 3)
        report[f"{name}_wall_s"] = round(taken.median, 3)
        report[f"{name}_docs"] = samples[0]["docs"]
        report[f"{name}_sha256"] = sorted({str(r["sha256"]) for r in samples})
    if baseline:
        ours, base = float(str(report["ours_cpu_s"])), float(str(report["baseline_cpu_s"]))
        report["cpu_change"] = f"{(ours / base - 1) * 100:+.1f}%"
        report["same_plans"] = report["ours_sha256"] == report["baseline_sha256"]
    return report


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus-dir", type=Path, required=True, help="a generated corpus")
    parser.add_argument("--baseline-tree", type=Path, help="an unpacked tree to compare against")
    parser.add_argument("--rounds", type=int, default=5, help="interleaved rounds")
    args = parser.parse_args()
    print(json.dumps(bench(args.corpus_dir, args.baseline_tree, args.rounds), indent=1))


if __name__ == "__main__":
    main()
