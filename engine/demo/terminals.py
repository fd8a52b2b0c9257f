"""Write the demo's terminal sessions: raw PTY bytes in ``.ade/terminals/<id>.log``.

Three kinds of source, all real terminal output:
* ``program``: a seeded program (``programs.py``) run on a PTY now;
* ``git``: ``git log --graph --color`` of the demo repository, run on a PTY now;
* ``recording``: bytes recorded once by ``record.py`` (pytest and a Python traceback, whose
  output depends on tools and versions a user's machine may not have) and shipped as package data.
"""

from __future__ import annotations

import os
import sys
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from engine.demo.clock import DEMO_SEED, ago, iso
from engine.demo.pty_capture import capture, capture_env
from engine.demo.repo import git_env
from engine.demo.store import gzip_exact, write, write_json

PROGRAMS = Path(__file__).with_name("programs.py")
"""The seeded programs run on a PTY."""

RECORDINGS = Path(__file__).with_name("recordings")
"""Shipped recordings (package data), made by ``python -m engine.demo.record``."""

GIT_LOG = ("git", "--no-pager", "log", "--graph", "--color", "--decorate", "--oneline", "--all")
"""The git command captured; ``--no-pager`` because a PTY would otherwise start ``less``."""


@dataclass(frozen=True)
class TerminalPlan:
    """One terminal session: where its bytes come from and its metadata."""

    id: str
    title: str
    lane_id: str
    command: str
    source: str
    """``program:<mode>``, ``git`` or ``recording:<name>``."""
    days_ago: float
    minutes: float
    """How long it ran (or has been running so far)."""
    exit_code: int | None = 0
    running: bool = False
    compacted: bool = False


TERMINALS: tuple[TerminalPlan, ...] = (
    TerminalPlan(
        "term-pytest-retry",
        "pytest tests/test_gateway_retry.py",
        "abc-123-retry",
        "python -m pytest --color=yes tests/test_gateway_retry.py",
        "recording:pytest-failure",
        3.0,
        0.2,
        exit_code=1,
    ),
    TerminalPlan(
        "term-git-graph", "git log --graph", "primary", " ".join(GIT_LOG), "git", 0.1, 0.1
    ),
    TerminalPlan(
        "term-settle-traceback",
        "python -m payments_api.worker",
        "primary",
        "python -m payments_api.worker",
        "recording:python-traceback",
        6.3,
        0.3,
        exit_code=1,
        compacted=True,
    ),
    TerminalPlan(
        "term-ledger-backfill",
        "Backfill ledger entries",
        "primary",
        "python scripts/backfill_ledger.py --batch-size 500",
        "program:progress",
        5.0,
        2.5,
    ),
    TerminalPlan(
        "term-wheel-build",
        "Build wheelhouse from source",
        "primary",
        "pip wheel --no-binary :all: -r requirements.lock -w wheelhouse",
        "program:buildlog",
        2.2,
        11.0,
        exit_code=1,
    ),
    TerminalPlan(
        "term-dev-server",
        "uvicorn --reload (webhooks lane)",
        "webhooks",
        "uvicorn payments_api.app:app --reload --port 8080",
        "program:devserver",
        0.05,
        70.0,
        exit_code=None,
        running=True,
    ),
    TerminalPlan(
        "term-pr41-shell",
        "bash: PR #41 review",
        "abc-123-retry",
        "bash",
        "program:screens",
        0.4,
        6.0,
    ),
)
"""Every terminal session of the demo."""


def capture_bytes(plan: TerminalPlan, root: Path, seed: int) -> bytes:
    """The raw bytes of one session (runs a PTY unless it is a recording)."""
    kind, _, name = plan.source.partition(":")
    if kind == "recording":
        return (RECORDINGS / f"{name}.log").read_bytes()
    if kind == "git":
        env = capture_env({k: v for k, v in git_env().items() if k.startswith("GIT_")})
        return capture(GIT_LOG, cwd=root, env=env)[0]
    argv = [sys.executable, "-I", "-B", str(PROGRAMS), name, str(seed)]
    return capture(argv, cwd=root, env=capture_env())[0]


def session_meta(plan: TerminalPlan) -> dict[str, Any]:
    """The ``.ade/sessions/<id>.json`` object of a terminal session."""
    start = ago(days=plan.days_ago)
    end = start + timedelta(minutes=plan.minutes)
    return {
        "id": plan.id,
        "kind": "terminal",
        "title": plan.title,
        "laneId": plan.lane_id,
        "createdAt": iso(start),
        "updatedAt": iso(end),
        "endedAt": None if plan.running else iso(end),
        "archived": False,
        "tool": "shell",
        "command": plan.command,
        "exitCode": plan.exit_code,
    }


def write_terminals(ade: Path, root: Path) -> tuple[str, ...]:
    """Capture and write every terminal session; ``root`` is the demo repository (the PTY cwd)."""
    seeds = [DEMO_SEED + 10 + n for n in range(len(TERMINALS))]
    # Captures are independent processes: run them side by side (the build log dominates).
    with ThreadPoolExecutor(max_workers=4) as pool:
        outputs = list(pool.map(lambda p, s: capture_bytes(p, root, s), TERMINALS, seeds))
    for plan, data in zip(TERMINALS, outputs, strict=True):
        name = f"{plan.id}.log.gz" if plan.compacted else f"{plan.id}.log"
        write(ade / "terminals" / name, gzip_exact(data) if plan.compacted else data)
        meta = session_meta(plan)
        write_json(ade / "sessions" / f"{plan.id}.json", meta)
        # A transcript was last written when its session last printed: a running session's age
        # is read from this mtime (engine.project.sessions), so it follows the demo's clock.
        last = datetime.fromisoformat(str(meta["updatedAt"]).replace("Z", "+00:00")).timestamp()
        os.utime(ade / "terminals" / name, (last, last))
    return tuple(plan.id for plan in TERMINALS)
