"""Helpers of the `ade` command-line tests: copying the demo, running `ade` in and out of process.

A copied demo's linked worktrees still point at the original (git stores absolute paths in
``.worktrees/<lane>/.git`` and ``.git/worktrees/<lane>/gitdir``); ``copy_demo`` rewrites both so
the copy's lanes live inside the copy, and never runs ``git worktree repair`` — that would write
into the session-scoped original.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import pytest

from engine.demo.copy import copy_demo as copy_demo
from tui.cli import main

DEMO_NOW = "2026-06-15T12:00:00+00:00"
"""``engine.demo.DEMO_NOW``: relative times and ``since:`` are computed against it."""

GOLDEN = Path(__file__).parent / "golden"

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


def search_argv(root: Path, *rest: str) -> list[str]:
    """``search --project ROOT --no-daemon …``: tests never talk to a daemon someone else runs."""
    return ["search", "--project", str(root), "--no-daemon", *rest]
