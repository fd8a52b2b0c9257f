"""``ade demo [DIR] [--force]``: build the deterministic demo project and say what it holds."""

from __future__ import annotations

import argparse
import os
import shlex
import time
from collections.abc import Mapping
from datetime import UTC, datetime
from pathlib import Path

from engine.demo import build_demo

DEFAULT_DIR = "ade-demo"
"""Where ``ade demo`` builds when no folder is given (relative to the working directory)."""


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "dir",
        nargs="?",
        default=DEFAULT_DIR,
        metavar="DIR",
        help=f"folder to build the demo in (default: ./{DEFAULT_DIR}); must be empty or missing",
    )
    parser.add_argument(
        "--force",
        action="store_true",
        help="replace the demo in a non-empty folder (a previous demo, or loose files)",
    )


def demo_now(environ: Mapping[str, str]) -> datetime:
    """``ADE_NOW`` when set (scripts and tests pin the demo with it), else midnight UTC of
    today: the demo is dated relative to the day it is built (times tell the truth)."""
    from engine.basics.clock import ADE_NOW_ENV, parse_fixed_now
    from engine.demo import build_day

    pinned = environ.get(ADE_NOW_ENV)
    if pinned:
        return parse_fixed_now(pinned)
    return build_day(datetime.now(UTC))


def run(args: argparse.Namespace) -> int:
    started = time.perf_counter()
    summary = build_demo(Path(args.dir), force=args.force, now=demo_now(os.environ))
    elapsed = time.perf_counter() - started
    project = shlex.quote(args.dir)
    print(f"Built the ade demo project in {summary.root} ({elapsed:.1f}s)")
    print(f"  git:        {summary.commit_count} commits on {len(summary.branches)} branches")
    print(f"  lanes:      {', '.join(summary.lanes)}")
    print(f"  chats:      {len(summary.chat_sessions)} sessions")
    print(f"  terminals:  {len(summary.terminal_sessions)} sessions")
    print(f"  PRs:        {', '.join(f'#{n}' for n in summary.prs)}")
    print(f"  artifacts:  {len(summary.artifacts)}")
    print("Try:")
    print(f"  ade palette --project {project}")
    print(f"  ade search --project {project} timeout")
    return 0
