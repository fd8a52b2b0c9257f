"""Helpers of the `ade` command-line tests: copying the demo, running `ade` in and out of process.

A copied demo's linked worktrees still point at the original (git stores absolute paths in
``.worktrees/<lane>/.git`` and ``.git/worktrees/<lane>/gitdir``); ``copy_demo`` rewrites both so
the copy's lanes live inside the copy, and never runs ``git worktree repair`` — that would write
into the session-scoped original.
"""

from __future__ import annotations

import ast
import json
import os
import pty
import subprocess
import sys
import sysconfig
import time
import tty
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from engine.demo.copy import copy_demo as copy_demo
from tui.cli import main

DEMO_NOW = "2026-06-15T12:00:00+00:00"
"""``engine.demo.DEMO_NOW``: relative times and ``since:`` are computed against it."""

GOLDEN = Path(__file__).parent / "golden"

ROOT = Path(__file__).resolve().parents[3]

MODULES_PROBE = """
import sys
from tui.cli import main
code = main(sys.argv[1:])
print(repr({"code": code, "modules": sorted(sys.modules)}))
"""
"""Imports nothing but what ``main`` does (``repr``, not ``json``: whether a search imports
``json`` or ``re`` is among the things checked)."""


def wait_until_listening(proc: subprocess.Popen[bytes], log: Path) -> None:
    """Until the daemon ``proc`` says in ``log`` that it listens (bounded; it must not exit)."""
    deadline = time.monotonic() + 15
    while "listening on" not in (log.read_text() if log.exists() else ""):
        assert proc.poll() is None, "the daemon exited"
        assert time.monotonic() < deadline, "the daemon did not start"
        time.sleep(0.02)  # another process binding its socket: nothing to block on


def loaded_modules(
    argv: list[str], env: dict[str, str], *, site: bool = True, cwd: Path = ROOT
) -> tuple[int, set[str]]:
    """The exit code and the modules ``ade argv`` leaves loaded, in a fresh interpreter with
    exactly ``env``. ``site=False``: as a wheel install loads them — this checkout's
    editable-install finder (``site`` runs it) imports ``pathlib`` and ``urllib.parse`` itself,
    so ``-S``, with site-packages on ``PYTHONPATH`` for the deps (and this checkout, when run in
    another folder)."""
    if not site:
        env = {**env, "PYTHONPATH": os.pathsep.join([sysconfig.get_paths()["purelib"], str(ROOT)])}
    done = subprocess.run(
        [sys.executable, *([] if site else ["-S"]), "-c", MODULES_PROBE, *argv],
        cwd=cwd,
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        check=False,
    )
    assert done.stdout, done.stderr
    report = ast.literal_eval(done.stdout.splitlines()[-1])
    return report["code"], set(report["modules"])


CLEAN_ENV = ("ADE_SESSION_ID", "ADE_ROLE", "NO_COLOR", "LINEAR_API_KEY", "ADE_LINEAR_API_URL")
"""Variables of the developer's shell that change what `ade` does; removed in every test."""


@dataclass(frozen=True)
class Run:
    """One finished `ade` invocation."""

    code: int
    out: str
    err: str


def run_main(capsys: pytest.CaptureFixture[str], argv: Sequence[str]) -> Run:
    """``tui.cli.main(argv)`` in this process, with stdout and stderr captured separately."""
    capsys.readouterr()
    code = main(list(argv))
    captured = capsys.readouterr()
    return Run(code, captured.out, captured.err)


def run_ade(argv: Sequence[str], env: dict[str, str] | None = None, cwd: Path | None = None) -> Run:
    """The real console entry point in a child process (``python -m`` avoids PATH lookups)."""
    full = {**os.environ, **(env or {})}
    for name in CLEAN_ENV:
        if env is None or name not in env:
            full.pop(name, None)
    full.setdefault("ADE_NOW", DEMO_NOW)
    done = subprocess.run(
        [sys.executable, "-c", "from tui.cli import main_entry; main_entry()", *argv],
        capture_output=True,
        text=True,
        env=full,
        cwd=cwd,
        timeout=60,
        check=False,
    )
    return Run(done.returncode, done.stdout, done.stderr)


class CliPath:
    """Which path the CLI-level test now running answers on (set by the ``cli_path`` fixture of
    tests/conftest.py): in this process, or through an auto-started daemon of the test module's
    own. Tests never talk to a daemon someone else runs."""

    daemon: bool = False


def no_daemon_flag() -> list[str]:
    """``--no-daemon`` on the in-process path, nothing through the daemon."""
    return [] if CliPath.daemon else ["--no-daemon"]


def search_argv(root: Path, *rest: str) -> list[str]:
    """``search --project ROOT …`` on the path the test runs on (``--no-daemon`` in process)."""
    return ["search", "--project", str(root), *no_daemon_flag(), *rest]


def zero_docs_pages(index: Path) -> None:
    """Zero 40 KiB of the ``docs`` table's leaf pages: damage the open check cannot see."""
    from engine.index.db import PAGE_SIZE, connect

    conn = connect(index)
    try:
        conn.pragma("wal_checkpoint", "TRUNCATE")
        pages = [int(r[0]) for r in conn.execute(
            "SELECT pageno FROM dbstat WHERE name = 'docs' AND pagetype = 'leaf' ORDER BY pageno"
        )]  # fmt: skip
    finally:
        conn.close()
    with index.open("r+b") as f:
        f.seek((pages[len(pages) // 2] - 1) * PAGE_SIZE)
        f.write(b"\0" * 40 * 1024)


def found_and_opened(
    capsys: pytest.CaptureFixture[str], root: Path, tool: str, words: Sequence[str], said: str
) -> list[dict[str, Any]]:
    """The hits of ``tool:TOOL WORDS`` in ``root`` (all the agent's), the first opened by
    ``ade open`` and showing ``said``; returns the hits."""
    run = run_main(capsys, search_argv(root, f"tool:{tool}", *words, "--json"))
    assert run.code == 0, run.err
    items: list[dict[str, Any]] = json.loads(run.out)["items"]
    assert items
    assert {item["tool"] for item in items} == {tool}
    opened = run_main(capsys, ["open", "--project", str(root), items[0]["deepLink"]])
    assert opened.code == 0, opened.err
    assert said in opened.out, opened.out
    return items


def never_found(capsys: pytest.CaptureFixture[str], root: Path, *words: str) -> None:
    """Each of ``words`` finds nothing in ``root`` (exit 1, no hits)."""
    for word in words:
        run = run_main(capsys, search_argv(root, word, "--json"))
        assert (run.code, json.loads(run.out)["items"]) == (1, []), word


def status_line(capsys: pytest.CaptureFixture[str], root: Path, tool: str) -> str:
    """The line of ``--status`` that speaks of agent ``tool``."""
    run = run_main(capsys, search_argv(root, "--status"))
    assert run.code == 0, run.err
    return next(ln for ln in run.out.splitlines() if ln.startswith(tool))


ADE_ENTRY = "from tui.cli import main_entry; main_entry()"
"""``python -c ADE_ENTRY …``: the `ade` command in a child interpreter of the test's own."""


def on_a_terminal(
    command: list[str], env: dict[str, str], cwd: Path | None = None, *, raw: bool = False
) -> tuple[int, bytes, bytes]:
    """``command`` with its stdout on a terminal (a pty; ``raw``: no newline translation), as a
    user sees it: its exit code, what it wrote there and its stderr."""
    main_end, terminal = pty.openpty()
    if raw:
        tty.setraw(terminal)
    proc = subprocess.Popen(command, env=env, cwd=cwd, stdin=subprocess.DEVNULL, stdout=terminal,
                            stderr=subprocess.PIPE)  # fmt: skip
    os.close(terminal)
    chunks = []
    while True:
        try:
            chunk = os.read(main_end, 65536)
        except OSError:  # EIO: every writer closed the terminal
            break
        if not chunk:
            break
        chunks.append(chunk)
    os.close(main_end)
    assert proc.stderr is not None
    err = proc.stderr.read()
    return proc.wait(timeout=60), b"".join(chunks), err
