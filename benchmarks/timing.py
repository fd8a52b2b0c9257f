"""The one timing harness of every ``bench_*`` module: interleaved rounds, medians, p95, ratios.

The machine is shared (2 cores, other jobs come and go), so a candidate and its baseline are
timed *interleaved* — one run of each per round — and load changes hit both alike; a ratio of
two medians from the same rounds is what a benchmark reports, never an absolute figure alone.
"""

from __future__ import annotations

import resource
import statistics
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from types import TracebackType
from typing import TypeVar

T = TypeVar("T")


def percentile(samples: Sequence[float], q: float) -> float:
    """The sample at quantile ``q`` (0..1) by rank: a real measurement, never an interpolation."""
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def cpu_ms() -> float:
    """CPU time (user + sys) of this process and of its waited-for children, in ms."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime) * 1000


class Stopwatch:
    """``with Stopwatch() as watch: …`` then ``watch.ms``: wall milliseconds of the block (works
    around ``await`` too, where a callable cannot be handed over)."""

    def __init__(self) -> None:
        self.ms = 0.0
        self._start = 0.0

    def __enter__(self) -> Stopwatch:
        self._start = time.perf_counter()
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self.ms = (time.perf_counter() - self._start) * 1000


def timed(fn: Callable[[], T], clock: Callable[[], float] = time.perf_counter) -> tuple[float, T]:
    """Seconds ``fn`` took on ``clock`` (``time.process_time`` for CPU), and its result."""
    start = clock()
    out = fn()
    return clock() - start, out


def best_of(
    fn: Callable[[], T], repeats: int, clock: Callable[[], float] = time.perf_counter
) -> tuple[float, T]:
    """Fewest seconds of ``repeats`` runs of ``fn`` on ``clock``, and the last result: for
    micro-measurements, where noise only ever adds time."""
    best, out = timed(fn, clock)
    for _ in range(repeats - 1):
        took, out = timed(fn, clock)
        best = min(best, took)
    return best, out


@dataclass(frozen=True)
class Timing:
    """Samples of one candidate, in ms: wall clock and CPU (this process and its children)."""

    wall: tuple[float, ...]
    cpu: tuple[float, ...]

    @property
    def median(self) -> float:
        return statistics.median(self.wall)

    @property
    def p95(self) -> float:
        return percentile(self.wall, 0.95)

    @property
    def best(self) -> float:
        return min(self.wall)

    @property
    def cpu_median(self) -> float:
        return statistics.median(self.cpu)


def rounds(
    jobs: Mapping[str, Callable[[], float]], runs: int, *, warmup: bool = False
) -> dict[str, list[float]]:
    """``runs`` rounds of one call of every job, in order; each call returns its own sample
    (a figure a child process printed, a probe's reading). ``warmup`` first calls each once."""
    if warmup:
        for job in jobs.values():
            job()
    samples: dict[str, list[float]] = {name: [] for name in jobs}
    for _ in range(runs):
        for name, job in jobs.items():
            samples[name].append(job())
    return samples


def interleaved(
    jobs: Mapping[str, Callable[[], object]], runs: int, *, warmup: bool = True
) -> dict[str, Timing]:
    """Wall and CPU time of every job over ``runs`` interleaved rounds (after one warm-up call
    each, unless ``warmup=False``)."""
    cpu: dict[str, list[float]] = {name: [] for name in jobs}

    def measured(name: str, job: Callable[[], object]) -> Callable[[], float]:
        def run() -> float:
            before = cpu_ms()
            with Stopwatch() as watch:
                job()
            cpu[name].append(cpu_ms() - before)
            return watch.ms

        return run

    if warmup:
        for job in jobs.values():
            job()
    wall = rounds({name: measured(name, job) for name, job in jobs.items()}, runs)
    return {name: Timing(tuple(wall[name]), tuple(cpu[name])) for name in jobs}


def ratios(timings: Mapping[str, Timing], baseline: str) -> dict[str, float]:
    """Each candidate's median over the ``baseline`` candidate's median (same rounds)."""
    base = timings[baseline].median
    return {name: timing.median / base for name, timing in timings.items()}
