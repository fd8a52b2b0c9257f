"""Issue 33.5: a `search` call through `ade mcp` against the CLI's own `ade search --json`.

Same project, same run, interleaved: each round runs the CLI once (a fresh process, as an agent's
shell runs it) and asks the already-started MCP server once (over stdio, through the SDK's own
client), both in process (``--no-daemon``). Target: the MCP call's p95 within the CLI's p95 plus
a few milliseconds.

    .venv/bin/python -m benchmarks.bench_mcp --runs 30            # the demo
    .venv/bin/python -m benchmarks.bench_mcp --runs 30 --mb 100   # the generated ~100 MB corpus
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from mcp import Client
from mcp.client.stdio import StdioServerParameters

from benchmarks.bench_cli import corpus_project, demo_project, index_once

ENTRY = "from tui.cli import main_entry; main_entry()"


def p95(samples: list[float]) -> float:
    return statistics.quantiles(samples, n=20)[-1] if len(samples) > 1 else samples[0]


async def measure(root: Path, term: str, runs: int, env: dict[str, str]) -> tuple[list[float], ...]:
    cli_argv = [sys.executable, "-c", ENTRY, "search", "--json", "--no-daemon"]
    cli_argv += ["--project", str(root), term]
    params = StdioServerParameters(
        command=sys.executable,
        args=["-c", ENTRY, "mcp", "--no-daemon", "--project", str(root)],
        env=env,
    )
    cli, mcp = [], []
    async with Client(params, read_timeout_seconds=120) as client:
        await client.call_tool("search", {"query": term})  # warm: the first call opens the index
        for _ in range(runs):
            start = time.perf_counter()
            # blocking on purpose: nothing else runs in the loop meanwhile
            subprocess.run(cli_argv, env=env, check=True, capture_output=True)  # noqa: ASYNC221
            cli.append(time.perf_counter() - start)
            start = time.perf_counter()
            result = await client.call_tool("search", {"query": term})
            mcp.append(time.perf_counter() - start)
            assert not result.is_error
    return cli, mcp


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--mb", type=int, help="the generated corpus of this size, not the demo")
    parser.add_argument("--term", default="timeout")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        root = corpus_project(args.mb) if args.mb else demo_project(Path(folder))
        env = {**os.environ, "HOME": folder}
        env.pop("ADE_SESSION_ID", None)
        index_once(root)
        cli, mcp = asyncio.run(measure(root, args.term, args.runs, env))
    label = f"~{args.mb} MB corpus" if args.mb else "demo project"
    print(f"{label}, {args.runs} interleaved rounds, term {args.term!r}, in process")
    for name, samples in (("ade search --json", cli), ("mcp search call", mcp)):
        ms = [s * 1000 for s in samples]
        print(f"  {name:18} p50 {statistics.median(ms):7.1f} ms  p95 {p95(ms):7.1f} ms")
    print(f"  MCP p95 - CLI p95: {(p95(mcp) - p95(cli)) * 1000:+.1f} ms")


if __name__ == "__main__":
    main()
