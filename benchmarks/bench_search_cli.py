"""A daemon-answered ``ade search`` of two installs side by side, against ``python -c pass``.

Run: ``python -m benchmarks.bench_search_cli --install before=/tmp/v1 --install after=/tmp/v2
--project /tmp/c10 --word mifotu --word the``

Each install (a venv with ade in it, a wheel as users have it) gets its own copy of the project
(hard-linked transcripts, copied index and git folder: each daemon writes only its own), its own
``HOME`` and runtime folder, and its own daemon (``<venv>/bin/ade daemon run``). Once every
daemon has opened its project, the rounds interleave: ``python -c pass`` of the first venv, then
``ade search WORD --json`` and ``ade search WORD`` of each install in turn, from the project's
folder, stdout read through a pipe. Medians in ms and × ``pass``; no daemon of the machine's
user is used or started. Then each client under callgrind (instructions of the ``ade`` process
only: the daemon's work is another process), as ``vg`` in the journals.
"""

from __future__ import annotations

import argparse
import functools
import os
import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from benchmarks.cli_classes import project_copy
from benchmarks.timing import interleaved

WAIT_S = 60.0


def _env(base: Path) -> dict[str, str]:
    home, runtime = base / "home", base / "run"
    home.mkdir(parents=True)
    runtime.mkdir(mode=0o700)
    drop = ("ADE_DAEMON", "NO_COLOR", "ADE_SESSION_ID", "ADE_ROLE", "PYTHONDONTWRITEBYTECODE")
    env = {k: v for k, v in os.environ.items() if k not in drop and not k.startswith("XDG_")}
    # No ADE_CONFIG_DIR: a user sets none (where the client looks for it is part of its cost).
    env.update(HOME=str(home), ADE_RUNTIME_DIR=str(runtime), ADE_SEMANTIC="0")
    return env


def _start(venv: Path, env: dict[str, str], log: Path) -> subprocess.Popen[bytes]:
    command = [str(venv / "bin" / "ade"), "daemon", "run", "--log-file", str(log),
               "--backfill-delay", "3600"]  # fmt: skip
    proc = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + WAIT_S
    while "listening on" not in (log.read_text() if log.exists() else ""):
        if proc.poll() is not None or time.monotonic() > deadline:
            raise SystemExit(f"the daemon of {venv} did not start: {log}")
        time.sleep(0.05)  # its own start-up: nothing to block on
    return proc


def _search(venv: Path, env: dict[str, str], root: Path, argv: list[str]) -> None:
    done = subprocess.run([str(venv / "bin" / "ade"), "search", *argv], env=env, cwd=root,
                          capture_output=True, check=False)  # fmt: skip
    if done.returncode not in (0, 1) or b"warning: the ade daemon" in done.stderr:
        raise SystemExit(f"{venv}: ade search {argv}: {done.returncode} {done.stderr!r}")


def _instructions(venv: Path, env: dict[str, str], root: Path, argv: list[str]) -> int:
    command = ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null",
               str(venv / "bin" / "ade"), "search", *argv]  # fmt: skip
    done = subprocess.run(command, env=env, cwd=root, capture_output=True, text=True, check=False)
    for line in done.stderr.splitlines():
        if "Collected :" in line:
            return int(line.rsplit(":", 1)[1])
    raise SystemExit(f"no callgrind count: {done.stderr[-400:]}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--install", action="append", required=True, metavar="NAME=VENV")
    parser.add_argument("--project", type=Path, required=True)
    parser.add_argument("--word", action="append", required=True)
    parser.add_argument("--runs", type=int, default=21)
    parser.add_argument("--no-callgrind", action="store_true")
    args = parser.parse_args()
    installs = {n: Path(v) for n, v in (item.split("=", 1) for item in args.install)}
    base = Path(tempfile.mkdtemp(prefix="ade-bsc-", dir="/tmp"))
    procs: list[subprocess.Popen[bytes]] = []
    try:
        setups = {}
        for name, venv in installs.items():
            folder = base / name
            root = project_copy(args.project, folder / "project")
            env = _env(folder)
            procs.append(_start(venv, env, folder / "daemon.log"))
            for _ in range(3):  # the daemon opens the project, then is warm
                _search(venv, env, root, [args.word[0], "--json"])
            setups[name] = (venv, env, root)
        first = next(iter(installs.values()))
        jobs: dict[str, Callable[[], object]] = {"pass": lambda: subprocess.run([str(first / "bin" / "python"), "-c", "pass"],
                                               check=True)}  # fmt: skip
        for word in args.word:
            for form in (["--json"], []):
                for name, (venv, env, root) in setups.items():
                    label = f"{name} {word}{' --json' if form else ''}"
                    argv = [word, *form]
                    jobs[label] = functools.partial(_search, venv, env, root, argv)
        timings = interleaved(jobs, args.runs)
        base_ms = timings["pass"].median
        print(f"load {os.getloadavg()[0]:.2f}; {args.runs} interleaved rounds; medians")
        for label, timing in timings.items():
            ms = timing.median
            print(f"  {label:28s} {ms:7.1f} ms  {ms / base_ms:5.2f}x pass")
        if not args.no_callgrind:
            print("callgrind (the ade process's instructions)")
            for word in args.word:
                for form in (["--json"], []):
                    for name, (venv, env, root) in setups.items():
                        count = _instructions(venv, env, root, [word, *form])
                        label = f"{name} {word}{' --json' if form else ''}"
                        print(f"  {label:28s} {count / 1e6:7.1f} M")
            print(f"  pass {_pass_instructions(first) / 1e6:.1f} M")
    finally:
        for proc in procs:
            proc.send_signal(signal.SIGTERM)
        for proc in procs:
            proc.wait(timeout=60)
        shutil.rmtree(base, ignore_errors=True)


def _pass_instructions(venv: Path) -> int:
    command = ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null",
               str(venv / "bin" / "python"), "-c", "pass"]  # fmt: skip
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    return int(next(ln for ln in done.stderr.splitlines() if "Collected :" in ln).rsplit(":", 1)[1])


if __name__ == "__main__":
    main()
