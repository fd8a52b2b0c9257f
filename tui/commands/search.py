"""`ade search`: the scriptable search (DESIGN §7, issue 5).

Inline filters (``kind:``, ``lane:``, ``session:``, ``since:``, ``until:``, ``tool:``) and flags
mix; flags are the validated form for scripts. ``--`` ends the options so a query may start with ``-``.
Exit 0 with results, 1 with none, 2 on a usage error. stdout carries results only.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Sequence

from engine.errors import UsageError
from engine.types import ALL_KINDS, DocKind, SearchQueryArgs

MAX_LIMIT = 500

EXAMPLES = """\
query syntax:
  timeout backoff          every term, as a prefix (timeout finds connectTimeout too)
  "exponential backoff"    an exact phrase
  -flaky                   exclude a term            retry|backoff    either term
  kind:terminal            chat terminal pr commit branch lane file artifact linear (issue)
  lane:primary             a lane id, name, folder or branch (main = the primary lane)
  session:<id>             one session, live (its messages, chunks and artifacts)
  tool:gemini              chats of claude codex gemini opencode copilot aider (tool:a,b)
  since:24h until:2d       30m 24h 7d 2w or 2026-06-01 (until:<date> includes that day)

examples:
  ade search ReadTimeoutError
  ade search kind:terminal since:7d "FAILED tests"
  ade search --kind pr --kind commit backoff --json
  ade search --lane primary --limit 5 -- -flaky retry
  ade search --status
"""


def configure(parser: argparse.ArgumentParser) -> None:
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.epilog = EXAMPLES
    parser.add_argument("query", nargs="*", help="query terms, phrases and filters")
    parser.add_argument("--project", metavar="DIR", help="project folder (default: git top level)")
    parser.add_argument(
        "--kind", action="append", default=[], metavar="K", help="a kind to include (repeatable)"
    )
    parser.add_argument("--kinds", metavar="A,B", help="comma-separated kinds to include")
    parser.add_argument("--lane", metavar="LANE", help="only hits from this lane (id or name)")
    parser.add_argument(
        "--tool", action="append", default=[], metavar="T",
        help="only chats of this agent: claude codex gemini opencode copilot aider (repeatable, a,b)",
    )  # fmt: skip
    parser.add_argument("--limit", type=int, default=20, help="hits per page (1-500, default 20)")
    parser.add_argument("--cursor", help="continue from a previous page's next-page cursor")
    out = parser.add_mutually_exclusive_group()
    out.add_argument("--text", dest="fmt", action="store_const", const="text", default="text")
    out.add_argument("--json", dest="fmt", action="store_const", const="json")
    parser.add_argument(
        "--explain", action="store_true", help="show why each hit ranks where it does"
    )
    action = parser.add_mutually_exclusive_group()
    action.add_argument("--status", action="store_true", help="show the index status")
    action.add_argument("--rebuild", action="store_true", help="clear and re-ingest (CTO only)")
    parser.add_argument("--no-daemon", action="store_true", help="never use a running daemon")


def parse_kinds(flags: Sequence[str], joined: str | None) -> tuple[DocKind, ...] | None:
    """Validate ``--kind``/``--kinds``; ``issue`` means ``linear``. ``None`` = the default set."""
    names = [*flags, *(joined.split(",") if joined else [])]
    kinds: list[DocKind] = []
    for raw in names:
        name = raw.strip().lower()
        name = "linear" if name == "issue" else name
        if name not in ALL_KINDS:
            valid = ", ".join([*ALL_KINDS, "issue"])
            raise UsageError(f"unknown kind {raw!r}; valid kinds: {valid}")
        if name not in kinds:
            kinds.append(name)
    return tuple(kinds) or None


def check_rebuild_allowed(environ: dict[str, str] | os._Environ[str]) -> None:
    """Rebuilding is the CTO's: an agent's shell (``ADE_SESSION_ID`` set) needs ``ADE_ROLE=cto``."""
    if environ.get("ADE_SESSION_ID") and environ.get("ADE_ROLE", "").lower() != "cto":
        raise UsageError(
            "--rebuild is CTO-only: this shell belongs to agent session "
            f"{environ['ADE_SESSION_ID']!r} (set ADE_ROLE=cto only in the CTO's shell)"
        )


def build_args(ns: argparse.Namespace) -> SearchQueryArgs:
    if not 1 <= ns.limit <= MAX_LIMIT:
        raise UsageError(f"--limit must be between 1 and {MAX_LIMIT}, got {ns.limit}")
    if ns.lane is not None and not ns.lane.strip():
        raise UsageError("--lane needs a lane id or name")
    query = " ".join(ns.query)
    if ns.tool:  # the validated form of tool: (issue 16); an unknown name is a usage error
        from engine.query.parser import parse_tools

        tools = sorted(set().union(*(parse_tools(t.strip()) for t in ns.tool)))
        query = f"{query} tool:{','.join(tools)}".strip()
    return SearchQueryArgs(
        query=query,
        kinds=parse_kinds(ns.kind, ns.kinds),
        lane_id=ns.lane,
        limit=ns.limit,
        cursor=ns.cursor,
    )


def run(ns: argparse.Namespace) -> int:
    from tui.search_run import run_search  # deferred: --help stays instant

    return run_search(ns, build_args(ns) if not (ns.status or ns.rebuild) else None)
