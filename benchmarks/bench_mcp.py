"""A `search` call through `ade mcp` against the CLI's own `ade search --json`.

Same project, same run, interleaved: each round runs the CLI once (a fresh process, as an agent's
shell runs it) and asks the already-started MCP server once (over stdio, through the SDK's own
client), both in process (``--no-daemon``) or, with ``--daemon``, both through one daemon
started by hand in a runtime folder of the run's own (the default path). Target: the MCP call's p95 within the CLI's p95 plus
a few milliseconds.

    python -m benchmarks.bench_mcp --runs 30            # the demo
    python -m benchmarks.bench_mcp --runs 30 --mb 100   # the generated ~100 MB corpus
    python -m benchmarks.bench_mcp --runs 30 --daemon   # both through a daemon
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
from benchmarks.timing import percentile

ENTRY = "from tui.cli import main_entry; main_entry()"


def p95(samples: list[float]) -> float:
    return percentile(samples, 0.95)


async def measure(
    root: Path, term: str, runs: int, env: dict[str, str], local: list[str]
) -> tuple[list[float], ...]:
    cli_argv = [sys.executable, "-c", ENTRY, "search", "--json", *local]
    cli_argv += ["--project", str(root), term]
    params = StdioServerParameters(
        command=sys.executable,
        args=["-c", ENTRY, "mcp", *local, "--project", str(root)],
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
    parser.add_argument("--daemon", action="store_true", help="both through a daemon")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(dir="/tmp") as folder:
        root = corpus_project(args.mb) if args.mb else demo_project(Path(folder))
        env = {**os.environ, "HOME": folder, "ADE_RUNTIME_DIR": f"{folder}/run",
               "ADE_CONFIG_DIR": f"{folder}/cfg"}  # fmt: skip
        for name in ("ADE_SESSION_ID", "ADE_DAEMON"):
            env.pop(name, None)
        index_once(root)
        daemon = None
        if args.daemon:
            daemon = subprocess.Popen([sys.executable, "-c", ENTRY, "daemon", "run"], env=env,
                                      stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)  # fmt: skip
            while not Path(folder, "run", "daemon.sock").exists():
                time.sleep(0.05)  # another process binding its socket: nothing to wait on
        try:
            local = [] if args.daemon else ["--no-daemon"]
            cli, mcp = asyncio.run(measure(root, args.term, args.runs, env, local))
        finally:
            if daemon is not None:
                daemon.terminate()
                daemon.wait()
    label = f"~{args.mb} MB corpus" if args.mb else "demo project"
    path = "through a daemon" if args.daemon else "in process"
    print(f"{label}, {args.runs} interleaved rounds, term {args.term!r}, {path}")
    for name, samples in (("ade search --json", cli), ("mcp search call", mcp)):
        ms = [s * 1000 for s in samples]
        print(f"  {name:18} p50 {statistics.median(ms):7.1f} ms  p95 {p95(ms):7.1f} ms")
    print(f"  MCP p95 - CLI p95: {(p95(mcp) - p95(cli)) * 1000:+.1f} ms")


if __name__ == "__main__":
    main()
