"""A daemon-answered search's pieces in one process: the catch-up, the whole request, the query.

The daemon's objects as ``engine.rpc.daemon`` wires them (the service pool of
``embedded_factory``, ``DaemonHost``, ``MachineRouter``, ``SearchDomain``), each piece timed by
``time.thread_time`` (this thread's CPU, system calls included: the catch-up's cost is mostly
``stat``), best of three rounds::

    PYTHONPATH=<tree> HOME=$(mktemp -d) ADE_SEMANTIC=0 \\
        python -m benchmarks.bench_daemon_request PROJECT [--query Q] [--calls N]

Run each tree on its own copy of the project (journal 2026-12-07-default-path.md).
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from pathlib import Path

from benchmarks.timing import best_of


def best_us(call: Callable[[], object], calls: int) -> float:
    """The best of three rounds of ``calls`` calls, in CPU microseconds a call."""
    for _ in range(20):
        call()

    def round_of_calls() -> None:
        for _ in range(calls):
            call()

    seconds, _ = best_of(round_of_calls, 3, clock=time.thread_time)
    return seconds / calls * 1e6


def main() -> None:
    import msgspec

    from engine.actions import SearchDomain
    from engine.basics.caller_env import caller_context
    from engine.project.lane_memo import one_listing
    from engine.rpc.registry import registry_path
    from engine.rpc.router import MachineRouter
    from engine.rpc.services import DaemonHost, ServicePool, embedded_factory, frozen_after_open
    from engine.rpc.validation import result_object
    from engine.types import SearchQueryArgs

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("project", type=Path)
    parser.add_argument("--query", default="biharhu", help="a rare word of the scale corpus")
    parser.add_argument("--calls", type=int, default=300)
    ns = parser.parse_args()
    root = ns.project.resolve()
    pool = ServicePool(frozen_after_open(embedded_factory(3600.0)))
    domain = SearchDomain(DaemonHost(pool, MachineRouter(pool.client_for, registry_path()).query))
    service = pool.client_for(root).service  # type: ignore[attr-defined]
    params = {"query": ns.query, "limit": 20, "projectRoot": str(root), "context": caller_context()}

    def catch_up() -> None:
        with one_listing():
            service.catch_up_for_answer()

    def request() -> bytes:
        return msgspec.json.encode(result_object(1, domain.call("search.query", params, "agent")))

    def query() -> object:
        return service.query(SearchQueryArgs(query=ns.query, limit=20))

    try:
        caught, whole, alone = (best_us(f, ns.calls) for f in (catch_up, request, query))
    finally:
        pool.close_all()
    print(f"{root.name}: catch-up {caught:.0f} us | whole request (domain.call + encode)"
          f" {whole:.0f} us | service.query alone {alone:.0f} us | the rest {whole - alone:.0f} us")  # fmt: skip


if __name__ == "__main__":
    main()
