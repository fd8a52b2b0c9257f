"""``ade projects add|list|remove``: the registry multi-project search spans (docs/daemon.md).

The daemon answers every query for the asking project and adds chat hits from every other
registered project. The registry is ``projects.json`` in the user's config folder
(``ADE_CONFIG_DIR`` overrides it).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from engine.rpc.registry import (
    add_project,
    registry_path,
    remove_project,
    require_registry_ok,
)


def configure(parser: argparse.ArgumentParser) -> None:
    """Sub-commands of ``ade projects``."""
    sub = parser.add_subparsers(dest="action", metavar="ACTION")
    add = sub.add_parser("add", help="register a project (default: the current one)")
    add.add_argument("root", nargs="?", type=Path, default=None, help="project folder")
    listing = sub.add_parser("list", help="show the registered projects")
    listing.add_argument("--json", action="store_true", help="as JSON")
    remove = sub.add_parser("remove", help="unregister a project by id, name or root")
    remove.add_argument("key", help="the project's id, name or root folder")


def run(args: argparse.Namespace) -> int:
    """Exit 0 ok; 1 when ``list`` finds nothing; 2 on a usage error."""
    from tui.printable import printable  # a cloned project's .ade/project.json names it

    path = registry_path()
    if args.action == "add":
        entry = add_project(path, args.root)
        print(printable(f"registered {entry.name} ({entry.id}) at {entry.root}"))
        return 0
    if args.action == "remove":
        entry = remove_project(path, args.key)
        print(printable(f"removed {entry.name} ({entry.id}) at {entry.root}"))
        return 0
    projects = require_registry_ok(path)
    if getattr(args, "json", False):
        rows = [{"id": p.id, "name": p.name, "root": str(p.root)} for p in projects]
        print(json.dumps(rows, indent=2))
        return 0 if projects else 1
    if not projects:
        print(
            f"no projects registered ({path}); add one with `ade projects add DIR`", file=sys.stderr
        )
        return 1
    for p in projects:
        missing = "" if p.root.is_dir() else "  (missing)"
        print(printable(f"{p.id}  {p.name}  {p.root}{missing}"))
    return 0
