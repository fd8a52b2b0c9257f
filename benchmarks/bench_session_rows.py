"""What chat hits linked to a message, ``--sessions`` and search from anywhere cost a query.

On copies of the demo, one warm in-process service each, interleaved rounds of: a chat page
with its session rows linked to a message (``engine.service.chat_anchor``) and the same page
with the step switched off (the baseline); a title-only page and a filter-only listing both
ways; ``--sessions`` pages; and one query over every known project (two demo copies, through
``engine.machine.everywhere``) against the same query on one project. Ratios are medians over
the baseline's median in the same rounds.

Run: ``python -m benchmarks.bench_session_rows [--runs 41] [--work DIR]``.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import engine.service.answer as answer_module
from benchmarks.timing import interleaved, ratios
from engine.demo import build_demo
from engine.demo.copy import copy_demo
from engine.embedded import EmbeddedClient
from engine.machine.everywhere import query_everywhere
from engine.types import SearchQueryArgs


def _unlinked(*parts: Any) -> Any:
    """``anchor_session_rows`` switched off: the page as the query gave it."""
    return parts[-1]


def _page(
    client: EmbeddedClient, query: str, *, anchored: bool = True, **extra: bool
) -> Callable[[], object]:
    args = SearchQueryArgs(query=query, limit=20, **extra)  # type: ignore[arg-type]
    real = answer_module.anchor_session_rows  # type: ignore[attr-defined]

    def run() -> object:
        if anchored:
            return client.query(args)
        answer_module.anchor_session_rows = _unlinked  # type: ignore[attr-defined,assignment]
        try:
            return client.query(args)
        finally:
            answer_module.anchor_session_rows = real  # type: ignore[attr-defined]

    return run


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=41)
    parser.add_argument("--work", type=Path, default=Path("/tmp/bench-session-rows"))
    options = parser.parse_args()
    shutil.rmtree(options.work, ignore_errors=True)
    os.environ["HOME"] = str(options.work / "home")  # no agent sessions of this machine
    demo = options.work / "demo"
    build_demo(demo)
    other = copy_demo(demo, options.work / "other")
    clients = {root: EmbeddedClient.open(root, start_worker=False) for root in (demo, other)}
    for client in clients.values():
        client.service.catch_up()
    one = clients[demo]

    def everywhere() -> object:
        args = SearchQueryArgs(query="backoff", limit=20, all_projects=True)
        return query_everywhere(args, clients.__getitem__, environ={"HOME": os.environ["HOME"]},
                                registered=[demo, other])  # fmt: skip

    jobs: dict[str, Callable[[], object]] = {
        "chat page, rows not linked (baseline)": _page(one, "kind:chat backoff", anchored=False),
        "chat page, rows linked to a message": _page(one, "kind:chat backoff"),
        "title-only page, not linked": _page(one, '"Address review comments"', anchored=False),
        "title-only page, linked": _page(one, '"Address review comments"'),
        "kind:chat listing, not linked": _page(one, "kind:chat", anchored=False),
        "kind:chat listing, linked": _page(one, "kind:chat"),
        "kind:chat --sessions": _page(one, "kind:chat", sessions=True),
        "backoff --sessions": _page(one, "backoff", sessions=True),
        "backoff, one project": _page(one, "backoff"),
        "backoff, every project (2)": everywhere,
    }
    timings = interleaved(jobs, options.runs)
    base = "chat page, rows not linked (baseline)"
    shown = {name: {"median_ms": round(t.median, 2), "p95_ms": round(t.p95, 2),
                    "ratio": round(r, 2)}
             for (name, t), r in zip(timings.items(), ratios(timings, base).values(), strict=True)}  # fmt: skip
    print(json.dumps(shown, indent=1))
    for client in clients.values():
        client.close()


if __name__ == "__main__":
    main()
