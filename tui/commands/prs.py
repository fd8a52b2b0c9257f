"""`ade prs sync`: fill ``.ade/prs/`` from the GitHub CLI so PRs are searchable.

Needs ``gh`` installed and logged in (``gh auth login``); otherwise one line and exit 2, and
nothing changes. Run it again any time: unchanged PRs are not rewritten.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from engine.errors import UsageError
from engine.importers.github_prs import sync_prs
from engine.project.locate import open_project

DEFAULT_PR_LIMIT = 200
"""PRs fetched per sync: recent ones are what people search; --limit raises it."""


def configure(parser: argparse.ArgumentParser) -> None:
    actions = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    sync = actions.add_parser("sync", help="fetch PRs with `gh pr list` into .ade/prs/")
    sync.add_argument("--limit", type=int, default=DEFAULT_PR_LIMIT, help="most recent N PRs")
    sync.add_argument("--project", metavar="DIR", help="project folder (default: git top level)")


def run(args: argparse.Namespace) -> int:
    if args.limit < 1:
        raise UsageError("--limit must be at least 1")
    project = open_project(Path(args.project) if args.project else None)
    result = sync_prs(project, args.limit, env=os.environ)
    print(
        f"ade prs sync: {result.written} written, {result.unchanged} unchanged "
        f"in {project.ade_dir / 'prs'}",
        file=sys.stderr,
    )
    if result.note:
        print(f"ade prs sync: {result.note}", file=sys.stderr)
    return 0
