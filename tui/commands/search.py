"""`ade search`: the scriptable search (DESIGN §7, docs/search.md).

Inline filters (``kind:``, ``lane:``, ``session:``, ``since:``, ``until:``, ``tool:``) and flags
mix; flags are the validated form for scripts. ``--`` ends the options so a query may start with ``-``.
Exit 0 with results, 1 with none, 2 on a usage error. stdout carries results only.
"""

# warm path: a warm `ade search` imports this; keep its imports light (ARCHITECTURE: The warm path)

from __future__ import annotations

from engine.errors import UsageError
from engine.kinds import MAX_LIMIT, parse_kinds

TYPE_CHECKING = False  # `typing` costs a daemon-answered search ~3 ms (the start-up budget)
if TYPE_CHECKING:
    import argparse
    from collections.abc import Sequence
    from typing import Any

    from engine.kinds import DocKind
    from engine.types import SearchQueryArgs

EXAMPLES = """\
query syntax:
  timeout backoff          every term, as a prefix (timeout finds connectTimeout too)
  "exponential backoff"    an exact phrase
  -flaky                   exclude a term            retry|backoff    either term
  kind:terminal            chat terminal pr commit branch lane file artifact linear (issue)
  lane:primary             a lane id, name, folder or branch (main = the primary lane)
  session:<id>             one session, live (its messages, chunks and artifacts)
  tool:gemini              chats of claude codex gemini opencode copilot aider (tool:a,b)
  role:system              only what an agent injected (summaries, command output, notices)
  since:24h until:2d       30m 24h 7d 2w or 2026-06-01 (until:<date> includes that day)
  exit:fail took:5s        `ade term` shell commands: exit:0|2|ok|fail, took:<1s|1s..1m,
  cwd:~/src/app            and the folder they ran in (or below it; cwd:app any such folder)

examples:
  ade search ReadTimeoutError
  ade search kind:terminal since:7d "FAILED tests"
  ade search --kind pr --kind commit backoff --json
  ade search --lane primary --limit 5 -- -flaky retry
  ade search kind:chat --sessions
  ade search --all ReadTimeoutError
  ade search --status
"""


def configure(parser: argparse.ArgumentParser) -> None:
    import argparse

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
    parser.add_argument(
        "--sessions", action="store_true",
        help="one row per chat session (title, agent, lane, messages, last activity)",
    )  # fmt: skip
    parser.add_argument(
        "--all", dest="all_projects", action="store_true",
        help="search every project ade knows (the default outside a project)",
    )  # fmt: skip
    parser.add_argument("--limit", type=int, default=20, help="hits per page (1-500, default 20)")
    parser.add_argument("--cursor", help="continue from a previous page's next-page cursor")
    parser.add_argument(
        "--offset", type=int, default=0, metavar="N",
        help="skip the first N hits (any depth: every match is reachable; not with --cursor)",
    )  # fmt: skip
    out = parser.add_mutually_exclusive_group()
    out.add_argument(
        "--text", dest="fmt", action="store_const", const="text", default="text",
        help="readable blocks, one per hit (the default; colour only on a terminal)",
    )  # fmt: skip
    out.add_argument(
        "--json", dest="fmt", action="store_const", const="json",
        help="the stable JSON wire form (items, total, nextCursor, warnings) for scripts",
    )  # fmt: skip
    parser.add_argument(
        "--explain", action="store_true", help="show why each hit ranks where it does"
    )
    parser.add_argument(
        "--exact", action="store_true",
        help="never relax the query (no spelling, word-form or fewer-words fallback)",
    )  # fmt: skip
    action = parser.add_mutually_exclusive_group()
    action.add_argument("--status", action="store_true", help="show the index status")
    action.add_argument("--rebuild", action="store_true", help="clear and re-ingest (CTO only)")
    parser.add_argument("--no-daemon", action="store_true", help="never use a running daemon")


_PLAIN_FLAGS: dict[str, tuple[str, object]] = {
    "--json": ("fmt", "json"),
    "--text": ("fmt", "text"),
    "--sessions": ("sessions", True),
    "--all": ("all_projects", True),
    "--explain": ("explain", True),
    "--exact": ("exact", True),
    "--status": ("status", True),
    "--rebuild": ("rebuild", True),
    "--no-daemon": ("no_daemon", True),
}
"""The flags :func:`configure` declares without a value: option → (attribute, value set)."""

_PLAIN_VALUES: dict[str, str] = {
    "--project": "project",
    "--kinds": "kinds",
    "--lane": "lane",
    "--cursor": "cursor",
    "--limit": "limit",
    "--offset": "offset",
    "--kind": "kind",
    "--tool": "tool",
}
"""The options :func:`configure` declares with one value: option → attribute."""

_PLAIN_EXCLUSIVE = (frozenset({"--json", "--text"}), frozenset({"--status", "--rebuild"}))


def _plain_defaults() -> dict[str, object]:
    return {"query": [], "project": None, "kind": [], "kinds": None, "lane": None, "tool": [],
            "sessions": False, "all_projects": False, "limit": 20, "cursor": None, "offset": 0,
            "fmt": "text", "explain": False, "exact": False, "status": False, "rebuild": False,
            "no_daemon": False}  # fmt: skip


def parse_plain(argv: Sequence[str]) -> argparse.Namespace | None:
    """The namespace argparse gives a plain ``ade search`` argv — the query words in one run,
    options spelt in full with their value in the next word — without importing argparse (~13 M
    instructions with ``gettext`` and ``locale``, the start-up budget). ``None`` for anything
    else (``--help``, ``--``, ``--opt=value``, a word or value starting with ``-``, words on both
    sides of an option, a bad number, exclusive options together), which argparse then parses
    and reports as before; ``test_plain_argv`` checks both give the same namespace."""
    values = _plain_defaults()
    words: list[str] = []
    given: set[str] = set()
    words_ended = False
    index = 0
    while index < len(argv):
        token = argv[index]
        index += 1
        if not token.startswith("-"):
            if words_ended:
                return None  # argparse: "unrecognized arguments"
            words.append(token)
            continue
        words_ended = bool(words)
        given.add(token)
        if token in _PLAIN_FLAGS:
            attribute, value = _PLAIN_FLAGS[token]
            values[attribute] = value
            continue
        if token not in _PLAIN_VALUES or index == len(argv) or argv[index].startswith("-"):
            return None
        attribute, value = _PLAIN_VALUES[token], argv[index]
        index += 1
        if attribute in ("limit", "offset"):
            try:
                values[attribute] = int(value)  # argparse's ``type=int``
            except ValueError:
                return None
        elif attribute in ("kind", "tool"):
            values[attribute] = [*values[attribute], value]  # type: ignore[misc]
        else:
            values[attribute] = value
    if any(len(group & given) > 1 for group in _PLAIN_EXCLUSIVE):
        return None
    values["query"] = words
    from types import SimpleNamespace

    # Read by attribute like argparse's Namespace, which it stands for here.
    return SimpleNamespace(**values)  # type: ignore[return-value]


def _flag_kinds(flags: Sequence[str], joined: str | None) -> tuple[DocKind, ...] | None:
    """Validate ``--kind``/``--kinds`` (:func:`engine.kinds.parse_kinds`). ``None`` = the default set."""
    return parse_kinds([*flags, *(joined.split(",") if joined else [])]) or None


def _validated(
    ns: argparse.Namespace,
) -> tuple[str, tuple[DocKind, ...] | None, str | None, int, str | None, int]:
    """The query, kinds, lane, limit, cursor and offset of the flags, checked (UsageError
    otherwise)."""
    if not 1 <= ns.limit <= MAX_LIMIT:
        raise UsageError(f"--limit must be between 1 and {MAX_LIMIT}, got {ns.limit}")
    if ns.offset < 0:
        raise UsageError(f"--offset must be 0 or more, got {ns.offset}")
    if ns.offset and ns.cursor is not None:
        raise UsageError("--offset and --cursor do not go together: give one")
    if ns.lane is not None and not ns.lane.strip():
        raise UsageError("--lane needs a lane id or name")
    from engine.basics.text import replace_surrogates

    # argv bytes that are not UTF-8 arrive as lone surrogates: text, with U+FFFD.
    query = replace_surrogates(" ".join(ns.query))
    if ns.tool:  # --tool is tool: in the query (docs/agents.md); the engine names the known tools
        tools = [t.strip() for t in ns.tool]
        if any(not t or any(ch.isspace() for ch in t) for t in tools):
            raise UsageError("--tool takes tool names like claude or claude,codex")
        query = f"{query} tool:{','.join(tools)}".strip()
    lane = None if ns.lane is None else replace_surrogates(ns.lane)
    cursor = None if ns.cursor is None else replace_surrogates(ns.cursor)
    return query, _flag_kinds(ns.kind, ns.kinds), lane, ns.limit, cursor, ns.offset


def build_args(ns: argparse.Namespace) -> SearchQueryArgs:
    from engine.types import SearchQueryArgs

    query, kinds, lane, limit, cursor, offset = _validated(ns)
    return SearchQueryArgs(query=query, kinds=kinds, lane_id=lane, limit=limit, cursor=cursor,
                           offset=offset, exact=bool(getattr(ns, "exact", False)), **_modes(ns))  # fmt: skip


def _modes(ns: argparse.Namespace) -> dict[str, bool]:
    """``sessions`` and ``allProjects`` when asked for (left off the wire otherwise)."""
    modes = {"sessions": bool(getattr(ns, "sessions", False)),
             "all_projects": bool(getattr(ns, "all_projects", False))}  # fmt: skip
    return {k: True for k, v in modes.items() if v}


def wire_params(ns: argparse.Namespace) -> dict[str, Any]:
    """``build_args`` as the daemon's ``search.query`` params (camelCase, no ``None``), built
    without the wire types: what ``DaemonClient.query`` sends."""
    query, kinds, lane, limit, cursor, offset = _validated(ns)
    params = {"query": query, "kinds": None if kinds is None else list(kinds), "laneId": lane,
              "limit": limit, "cursor": cursor, "offset": offset or None}  # fmt: skip
    modes = _modes(ns)
    params.update(sessions=modes.get("sessions"), allProjects=modes.get("all_projects"))
    if getattr(ns, "exact", False):  # sent only when set: the default answers as before
        params["exact"] = True
    return {k: v for k, v in params.items() if v is not None}


def run_with_argv(ns: argparse.Namespace, argv: Sequence[str]) -> int:
    """``run``, given the words ``ns`` was parsed from: a running daemon answers the whole
    search (``tui.daemon_search``), with nothing of the engine imported here (the start-up
    budget); else, or when its shortcut does not apply, the full path."""
    if not (ns.status or ns.rebuild or ns.no_daemon or ns.explain):
        from tui.daemon_search import answer_from_daemon

        code = answer_from_daemon(ns, argv)
        if code is not None:
            return code
    return run(ns)


def run(ns: argparse.Namespace) -> int:
    from tui.lean_msgspec import import_msgspec_lean

    import_msgspec_lean()  # before the engine's first `import msgspec`
    if ns.all_projects and not (ns.status or ns.rebuild):
        from tui.search_everywhere import search_everywhere

        return search_everywhere(ns, build_args(ns))
    from engine.rpc.project_marker import NotAProject
    from tui.search_run import run_search  # deferred: --help stays instant

    try:
        return run_search(ns, build_args(ns) if not (ns.status or ns.rebuild) else None)
    except NotAProject:
        if ns.project is not None or ns.status or ns.rebuild:
            raise
    # No project here (said before anything was printed): every project ade knows.
    from tui.search_everywhere import search_everywhere

    return search_everywhere(ns, build_args(ns))
