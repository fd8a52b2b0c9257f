from __future__ import annotations

import sys
import threading

from engine.project.tally import MAX_REASONS_PER_SOURCE, WarningTally


def test_counts_per_source_and_total() -> None:
    tally = WarningTally()
    tally.add("chat:a", "malformed json line")
    tally.add("chat:a", "unknown event type", 2)
    tally.add("prs", "bad json 3.json")
    tally.add("prs", "ignored", 0)
    assert tally.snapshot() == {"chat:a": 3, "prs": 1}
    assert tally.total() == 4
    assert tally.reasons("chat:a") == {"malformed json line": 1, "unknown event type": 2}


def test_snapshot_is_a_copy() -> None:
    tally = WarningTally()
    tally.add("x", "r")
    snap = tally.snapshot()
    snap["x"] = 99
    assert tally.snapshot() == {"x": 1}


def test_reasons_are_bounded_but_counts_exact() -> None:
    tally = WarningTally()
    for i in range(MAX_REASONS_PER_SOURCE + 5):
        tally.add("s", f"reason {i}")
    assert len(tally.reasons("s")) == MAX_REASONS_PER_SOURCE
    assert tally.snapshot() == {"s": MAX_REASONS_PER_SOURCE + 5}


def test_concurrent_adds_are_exact() -> None:
    tally = WarningTally()
    barrier = threading.Barrier(4)

    def work() -> None:
        barrier.wait()
        for _ in range(20000):
            tally.add("shared", "r")

    # A tiny switch interval makes the interpreter swap threads inside `+=`, where an unlocked
    # counter loses updates.
    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        threads = [threading.Thread(target=work) for _ in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    finally:
        sys.setswitchinterval(old)
    assert tally.total() == 80000
    assert tally.reasons("shared") == {"r": 80000}
