"""What the auto-start backoff costs a search and what it saves (``engine.rpc.start_backoff``).

Run: ``python -m benchmarks.bench_autostart_backoff [--rounds 15] [--checks 2001]``.

* **Check**: the backoff's check on the path of every search that starts a daemon (the marker's
  path, one ``stat``), with no marker and with a fresh one, interleaved with a bare ``os.stat``
  of a missing file: best of ``--checks`` runs each, in microseconds.
* **Saved**: CPU of one auto-started daemon that cannot start (a file at the socket path), the
  cost every search paid before the backoff, interleaved with a bare ``python -c pass`` start;
  medians of ``--rounds``.

Each in a private temporary folder; no daemon is left running (each one fails and exits).
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from benchmarks.timing import best_of, interleaved
from engine.rpc.autostart import daemon_command
from engine.rpc.start_backoff import failure_marker, may_start, record_failure


def _check_us(base: Path, checks: int) -> dict[str, float]:
    env = {"ADE_CONFIG_DIR": str(base / "cfg"), "HOME": str(base)}
    marked = str(base / "marked" / "daemon.sock")
    record_failure(failure_marker(marked, env), "benchmark", None)
    clear = str(base / "clear" / "daemon.sock")
    missing = str(base / "missing")

    def bare() -> object:
        try:
            return os.stat(missing)
        except OSError:
            return None

    candidates = {
        "no marker": lambda: may_start(failure_marker(clear, env)),
        "fresh marker": lambda: may_start(failure_marker(marked, env)),
        "bare stat": bare,
    }
    return {name: best_of(fn, checks)[0] * 1e6 for name, fn in candidates.items()}


def _saved_ms(base: Path, rounds: int) -> dict[str, tuple[float, float]]:
    runtime = base / "run"
    runtime.mkdir(mode=0o700)
    (runtime / "daemon.sock").write_text("not a socket\n")
    env = {**os.environ, "ADE_RUNTIME_DIR": str(runtime), "ADE_CONFIG_DIR": str(base / "cfg")}
    marker = failure_marker(str(runtime / "daemon.sock"), env)

    def run(argv: list[str]) -> None:
        subprocess.run(argv, env=env, cwd="/", stdin=subprocess.DEVNULL,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)  # fmt: skip

    timings = interleaved(
        {
            "failing daemon": lambda: run(daemon_command(marker=marker)),
            "python -c pass": lambda: run([sys.executable, "-P", "-c", "pass"]),
        },
        rounds,
    )
    return {name: (t.median, t.cpu_median) for name, t in timings.items()}


def main() -> None:
    """Print both figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--checks", type=int, default=2001)
    args = parser.parse_args()
    base = Path(tempfile.mkdtemp(prefix="ade-bo-", dir="/tmp"))
    try:
        for name, us in _check_us(base, args.checks).items():
            print(f"check, {name:>14}: best {us:7.1f} us")
        for name, (wall, cpu) in _saved_ms(base, args.rounds).items():
            print(f"start, {name:>14}: median wall {wall:7.1f} ms, CPU {cpu:7.1f} ms")
    finally:
        shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    main()
