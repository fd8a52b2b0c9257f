"""The benchmarks' one timing harness: rounds interleave, statistics are real
samples, and every bench uses it and runs as ``python -m benchmarks.X``.

No assertion here is about how fast anything is: clocks are injected or only counted.
"""

from __future__ import annotations

import ast
import itertools
import re
from pathlib import Path

import pytest

from benchmarks.timing import Timing, best_of, interleaved, percentile, ratios, rounds, timed

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"
BENCHES = sorted(BENCHMARKS.glob("bench_*.py"))
QUALITY_ONLY = {"bench_known_items", "bench_recall"}
"""Benches that grade answers (success@k, recall against git) and read no clock."""
TIMED = [path for path in BENCHES if path.stem not in QUALITY_ONLY]


@pytest.mark.parametrize(
    ("samples", "q", "expected"),
    [
        ([5.0], 0.5, 5.0),
        ([5.0], 0.95, 5.0),
        ([3.0, 1.0, 2.0], 0.5, 2.0),
        ([float(n) for n in range(1, 21)], 0.5, 11.0),
        ([float(n) for n in range(1, 21)], 0.95, 20.0),
        ([float(n) for n in range(100, 0, -1)], 0.99, 100.0),
        ([float(n) for n in range(1, 21)], 1.0, 20.0),
        ([float(n) for n in range(1, 21)], 0.0, 1.0),
    ],
)
def test_percentile_is_a_sample_by_rank(samples: list[float], q: float, expected: float) -> None:
    assert percentile(samples, q) == expected


def test_rounds_call_every_candidate_once_per_round_in_order() -> None:
    calls: list[str] = []

    def job(name: str, value: float) -> float:
        calls.append(name)
        return value

    samples = rounds({"ours": lambda: job("ours", 2.0), "base": lambda: job("base", 1.0)}, 3)
    assert calls == ["ours", "base"] * 3
    assert samples == {"ours": [2.0] * 3, "base": [1.0] * 3}
    calls.clear()
    rounds({"ours": lambda: job("ours", 0.0), "base": lambda: job("base", 0.0)}, 2, warmup=True)
    assert calls == ["ours", "base"] * 3  # one warm-up round, not sampled


def test_interleaved_samples_every_round_after_the_warm_up() -> None:
    calls: list[str] = []
    timings = interleaved({"a": lambda: calls.append("a"), "b": lambda: calls.append("b")}, 4)
    assert calls == ["a", "b"] * 5
    assert all(len(t.wall) == len(t.cpu) == 4 for t in timings.values())
    assert all(ms >= 0 for t in timings.values() for ms in (*t.wall, *t.cpu))
    calls.clear()
    interleaved({"a": lambda: calls.append("a")}, 2, warmup=False)
    assert calls == ["a", "a"]


def test_timing_statistics_and_ratios() -> None:
    ours = Timing(wall=(30.0, 10.0, 20.0, 90.0, 40.0), cpu=(1.0, 2.0, 3.0, 4.0, 5.0))
    base = Timing(wall=(10.0, 10.0, 10.0, 10.0, 10.0), cpu=(1.0,) * 5)
    assert (ours.median, ours.p95, ours.best, ours.cpu_median) == (30.0, 90.0, 10.0, 3.0)
    assert ratios({"ours": ours, "base": base}, "base") == {"ours": 3.0, "base": 1.0}


def test_timed_and_best_of_read_the_given_clock() -> None:
    ticks = itertools.count(step=0.5)  # every reading is half a second after the last
    assert timed(lambda: "done", clock=lambda: next(ticks)) == (0.5, "done")
    readings = iter([0.0, 3.0, 10.0, 11.0, 20.0, 22.0])  # runs of 3 s, 1 s, 2 s
    results = iter(["first", "second", "third"])
    assert best_of(lambda: next(results), 3, clock=lambda: next(readings)) == (1.0, "third")


@pytest.mark.parametrize("path", TIMED, ids=lambda p: p.stem)
def test_every_bench_times_through_the_shared_harness(path: Path) -> None:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    imported = {
        node.module
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and node.module is not None
    }
    assert "benchmarks.timing" in imported
    own = {node.name for node in tree.body if isinstance(node, ast.FunctionDef)}
    assert not own & {"interleaved", "pct", "percentile", "_timed", "_ms", "_cpu_ms"}


@pytest.mark.parametrize("path", [BENCHMARKS / f"{stem}.py" for stem in sorted(QUALITY_ONLY)])
def test_quality_benches_read_no_clock(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    assert not re.search(r"perf_counter|monotonic|process_time|time\.time", text)


@pytest.mark.parametrize("path", BENCHES, ids=lambda p: p.stem)
def test_every_bench_says_how_to_run_it_as_a_module(path: Path) -> None:
    doc = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or ""
    assert f"python -m benchmarks.{path.stem}" in doc
    assert not re.search(r"\S+/bin/python|benchmarks/bench_\w+\.py", doc)


def test_results_name_no_interpreter_path() -> None:
    assert not re.search(r"\S+/bin/python", (BENCHMARKS / "RESULTS.md").read_text(encoding="utf-8"))
