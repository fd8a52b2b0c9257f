"""`ade search` answered by a running daemon, importing no engine beyond the wire (start-up budget).

With a daemon up, the shell's answer is one request over its socket: this module finds the
project root with plain file-system checks, forwards the query and prints the answer exactly as
``tui.search_run`` prints a daemon's answer (same JSON, same text, same exit codes). The daemon
does the catch-up it always does. Whenever a shortcut could differ from the full path — a root
only git can name (a linked worktree, a submodule, ``GIT_DIR``…), a folder whose project status
needs git or the registry, ``--status``/``--rebuild``/``--explain`` — it answers ``None`` and the
full path runs, so nothing here decides anything the full path would decide differently.
"""

# warm path: a warm `ade search` imports this; keep its imports light (ARCHITECTURE: The warm path)

from __future__ import annotations

import os
import sys

from engine.errors import AdeError, ProjectError, UsageError

TYPE_CHECKING = False  # no `typing` nor `pathlib` on a daemon-answered search (start-up budget)
if TYPE_CHECKING:
    import argparse
    from typing import Any

SEARCH_RENDERER = "tui.search_answer"
"""The module that renders a daemon's ``search.cli`` answers (``engine.search_cli``), as the
front end names it to every daemon it starts (``--renderer``)."""

_HEAD_START = b'{"jsonrpc":"2.0","id":'
_HEAD_END = b',"result":'
"""How the daemon's answer line starts (``validation.result_object``): the start, the request's
id (ASCII digits), the end; the rest is the result."""


def _result_start(line: bytes) -> int | None:
    """Where the result begins in an answer line of the plain shape, or ``None`` (no ``re``
    on a daemon-answered search: the start-up budget)."""
    if not line.startswith(_HEAD_START):
        return None
    digits = len(_HEAD_START)
    end = line.find(_HEAD_END, digits)
    if end <= digits or not line[digits:end].isdigit():  # bytes.isdigit: ASCII digits only
        return None
    return end + len(_HEAD_END)


def answer_from_daemon(ns: argparse.Namespace, params: dict[str, Any]) -> int | None:
    """Print the daemon's answer to ``params`` (``search.query``'s) and return the exit code;
    ``None``: run the full path (no daemon answers, or the shortcut does not apply). A daemon
    that fails the request for its own reasons is warned about, as the full path does, and
    ``ns.no_daemon`` is set so the full path answers in this process."""
    if ns.no_daemon or ns.status or ns.rebuild or ns.explain:
        return None
    root = _project_root(ns.project)
    if root is None:
        return None
    from engine.rpc.connection import CALL_TIMEOUT_S, ContextNotServed, call_once
    from engine.rpc.paths import UntrustedDaemon

    try:
        answered = call_once("search.query", {**params, "projectRoot": str(root)}, CALL_TIMEOUT_S,
                             meanwhile=_answer_imports)  # fmt: skip
        if answered is not None:
            from engine.rpc.reply_check import check_search_result

            check_search_result(answered[1])  # before any of it reaches stdout
    except (UsageError, ProjectError):
        raise
    except UntrustedDaemon as err:
        warn_untrusted(err)
        ns.no_daemon = True
        return None
    except ContextNotServed:  # another HOME, TZ, git variable…: answered here, nothing said
        ns.no_daemon = True
        return None
    except AdeError as err:
        from tui.printable import printable

        print(f"warning: the ade daemon failed ({printable(str(err))}); searching in this process",
              file=sys.stderr)  # fmt: skip
        ns.no_daemon = True
        return None
    if answered is None:
        return None
    line, result = answered
    wire = _wire_json(line, result)
    if wire is None or ns.fmt != "json":
        return _print_decoded(ns, params, result)
    from tui.printable import printable, printable_json

    for warning in result["warnings"]:
        print(f"warning: {printable(warning)}", file=sys.stderr)
    print(printable_json(wire))
    return 0 if result["items"] else 1


def _answer_imports() -> None:
    """What checking and printing the answer imports, loaded while the daemon answers (the
    request is already sent: the two processes work side by side)."""
    import engine.rpc.reply_check  # noqa: F401
    import tui.printable  # noqa: F401


def warn_untrusted(err: AdeError) -> None:
    """The one line a search prints when it will not use the daemon it found
    (``engine.rpc.paths.UntrustedDaemon``); it answers in process."""
    from tui.printable import printable  # the message names a path someone else may have made

    print(f"warning: not using the ade daemon: {printable(str(err))}; searching in this process",
          file=sys.stderr)  # fmt: skip


def _wire_json(line: bytes, result: Any) -> str | None:
    """The result's JSON exactly as the daemon encoded it — what ``to_json`` of the decoded
    result prints, as both are msgspec's compact form of the same value — or ``None`` when
    the answer is not the plain shape (then it is decoded and re-encoded)."""
    start = _result_start(line)
    if start is None or not line.endswith(b"}") or not isinstance(result, dict):
        return None
    warnings, items = result.get("warnings"), result.get("items")
    if not isinstance(items, list) or not isinstance(warnings, list):
        return None
    if not all(isinstance(w, str) for w in warnings):
        return None
    return line[start:-1].decode()


def _print_decoded(ns: argparse.Namespace, params: dict[str, Any], raw: Any) -> int:
    """The full path's printing of a daemon answer (``search_run._query``), from views of the
    checked answer (``tui.wire_views``: the wire types and msgspec stay unimported)."""
    from tui.search_format import format_results_json, format_warnings
    from tui.wire_views import ResultView

    result = ResultView(raw)  # checked by reply_check.check_search_result before this
    for line in format_warnings(result):
        print(line, file=sys.stderr)
    if ns.fmt == "json":
        from engine.types import SearchQueryResult, from_wire

        print(format_results_json(from_wire(raw, SearchQueryResult)))
    else:
        from engine.basics.clock import clock_from_env
        from tui.search_format import format_results_text

        color = sys.stdout.isatty() and "NO_COLOR" not in os.environ
        cursor = params.get("cursor")
        if cursor:  # the cursor's reader (with json and the digests) only for a later page
            from engine.query.cursor import cursor_seen

            first = cursor_seen(cursor) + params.get("offset", 0) + 1
        else:
            first = params.get("offset", 0) + 1
        print(format_results_text(result, clock_from_env()(), color=color, first=first))
    return 0 if result.items else 1


def _project_root(project: str | None) -> str | None:
    """The root ``open_project`` would name, when plain checks can tell, else ``None``.

    An explicit folder is the root as given (resolved); it is a project without asking git
    when it holds ``.ade/``. Without one, the cwd's nearest ``.git`` folder (not a file: a
    linked worktree or a submodule needs git) names the main worktree, ours by ownership
    (git refuses another user's repository).
    """
    if project is not None:
        try:
            # Path.resolve(strict=True) is this realpath (3.11); the strings are the same
            root = os.path.realpath(os.path.expanduser(project) or ".", strict=True)
        except (OSError, RuntimeError):
            return None
        ok = (
            os.path.isdir(root)
            and os.access(root, os.R_OK | os.X_OK)
            and os.path.isdir(os.path.join(root, ".ade"))
        )
        return root if ok else None
    try:
        here = os.getcwd()  # what Path.cwd() names, as a string: no pathlib (the start-up budget)
    except OSError:
        return None
    from engine.project.plain_repo import plain_main_worktree_above  # only without --project

    return plain_main_worktree_above(here)
