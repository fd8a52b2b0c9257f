"""The daemon's renderer of a whole ``ade search`` (``search.cli``, ``engine.search_cli``).

A daemon started by the front end (``ade daemon run``, the search that auto-starts one, the
palette restarting one) is named this module (``--renderer``: ``tui.daemon_search``'s
``SEARCH_RENDERER``); on the first ``search.cli`` it imports it and calls ``answer_cli`` with the client's argv, cwd, colour and context. The answer
is what ``ade search … --no-daemon`` writes in that cwd and environment — the same parsing
(``tui.commands.search.parse_plain``), the same root, the same query path as ``search.query``
and the same printing (``tui.search_run.print_result``'s formatters) — or a fallback wherever
the plain shortcut could differ from the full path: an argv argparse would print about (help,
an error), ``--status``/``--rebuild``/``--explain``/``--no-daemon``, a root only git can name.
An argv ``parse_plain`` leaves to argparse (``--limit=5``, ``-- -flaky``) is parsed by argparse
here, quietly.

Nothing here reads the daemon's own environment or process: the cwd, ``HOME`` (for ``~``),
the clock and the colour decision come with the request.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse
    from typing import Any, NoReturn

    from _typeshed import SupportsWrite

    from engine.search_cli import CliRequest


def answer_cli(request: CliRequest) -> dict[str, Any]:
    """``{"exit": N, "writes": [[fd, text], …]}`` for ``request``, or ``{"fallback": reason}``.

    Raises:
        engine.errors.AdeError: the engine failed (the client says so and answers in process).
    """
    from engine.errors import ProjectError, UsageError
    from engine.search_cli import fallback
    from tui.commands.search import parse_plain, wire_params

    ns = parse_plain(request.argv)
    if ns is None:
        ns = _parsed_quietly(request.argv)
    if ns is None:
        return fallback("argparse has something to say about these arguments (help, an error)")
    if ns.no_daemon or ns.status or ns.rebuild or ns.explain:
        return fallback("--no-daemon, --status, --rebuild and --explain run in process")
    try:
        params = wire_params(ns)
    except UsageError as err:
        return _usage_error(err)
    root = plain_project_root(ns.project, request.cwd, request.environ["HOME"])
    if root is None:
        return fallback("no project root plain checks can name (git names it)")
    try:
        result = request.query(root, params)
    except (UsageError, ProjectError) as err:  # CursorError is a UsageError
        return _usage_error(err)
    from tui.search_format import format_results_json, format_results_text, format_warnings

    stderr = "".join(f"{line}\n" for line in format_warnings(result))
    if ns.fmt == "json":
        stdout = format_results_json(result)
    else:
        cursor = params.get("cursor")
        first = params.get("offset", 0) + 1
        if cursor:  # the cursor's reader only for a later page
            from engine.query.cursor import cursor_seen

            first += cursor_seen(cursor)
        stdout = format_results_text(result, request.now, color=request.color, first=first)
    writes = [[2, stderr]] if stderr else []
    writes.append([1, f"{stdout}\n"])
    return {"exit": 0 if result.items else 1, "writes": writes}


class _Said(Exception):
    """argparse would have printed something (help, usage, an error): the client's says it."""


def _parsed_quietly(argv: list[str]) -> argparse.Namespace | None:
    """The namespace ``ade search``'s argparse gives ``argv``, or ``None`` where it would print
    (``--help``, an error: the client's own parser prints it, in its terminal's width)."""
    from tui.cli_parser import OneLineParser
    from tui.commands.search import configure

    class Quiet(OneLineParser):
        def error(self, message: str) -> NoReturn:
            raise _Said(message)

        def exit(self, status: int = 0, message: str | None = None) -> NoReturn:
            raise _Said(f"exit {status}: {message}")

        def print_help(self, file: SupportsWrite[str] | None = None) -> None:  # noqa: ARG002
            raise _Said("--help")

    parser = Quiet(prog="ade search")
    configure(parser)
    try:
        return parser.parse_args(argv)
    except _Said:
        return None


def _usage_error(err: Exception) -> dict[str, Any]:
    """What ``tui.cli.main`` writes for an ``AdeError`` of ``ade search``: one line, exit 2."""
    from tui.printable import printable

    return {"exit": 2, "writes": [[2, f"ade search: {printable(str(err))}\n"]]}


def plain_project_root(project: str | None, cwd: str, home: str) -> str | None:
    """The root ``open_project`` would name for a caller in ``cwd`` whose ``HOME`` is ``home``,
    when plain checks can tell, else ``None`` (ask git: the full path).

    An explicit folder is the root as given (``~`` expanded with ``home``, relative to ``cwd``,
    resolved); it is a project without asking git when it holds ``.ade/``. Without one, the
    cwd's nearest ``.git`` folder (not a file: a linked worktree or a submodule needs git)
    names the main worktree, ours by ownership (git refuses another user's repository).
    """
    if project is not None:
        try:
            path = os.path.join(cwd, _expand_user(project, home) or ".")
            root = os.path.realpath(path, strict=True)  # what Path.resolve(strict=True) names
        except (OSError, RuntimeError):
            return None
        ok = (
            os.path.isdir(root)
            and os.access(root, os.R_OK | os.X_OK)
            and os.path.isdir(os.path.join(root, ".ade"))
        )
        return root if ok else None
    from engine.project.plain_repo import plain_main_worktree_above

    return plain_main_worktree_above(cwd)


def _expand_user(path: str, home: str) -> str:
    """``os.path.expanduser`` with ``home`` as ``HOME`` (``~other`` is the account database's,
    as there)."""
    if path != "~" and not path.startswith("~/"):
        return os.path.expanduser(path)
    return (home.rstrip("/") + path[1:]) or "/"
