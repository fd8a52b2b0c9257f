"""`ade search` answered by a running daemon: one request, and the client writes what it is given.

With a daemon up, a search is one ``search.cli`` request over its socket (``engine.search_cli``):
the words after ``search``, the cwd, whether stdout takes colour, ade's release and the caller's
context. The daemon parses them, finds the project root from that cwd, catches up, queries and
renders, and answers with the texts ``ade search … --no-daemon`` would write to stdout and
stderr and its exit code; this module writes them and returns the code. Whenever the daemon's
shortcut could differ from the full path — a root only git can name, ``--status``/``--rebuild``/
``--explain``, an argv argparse must report on, another release, a context the daemon does not
serve, a daemon without a renderer — it answers ``fallback``, this module answers ``None`` and
the full path runs, so nothing here decides anything the full path would decide differently.
"""

# warm path: a warm `ade search` imports this; keep its imports light (ARCHITECTURE: The warm path)

from __future__ import annotations

import os
import sys

from engine.errors import AdeError

TYPE_CHECKING = False  # no `typing` on a daemon-answered search (start-up budget)
if TYPE_CHECKING:
    import argparse
    from collections.abc import Sequence
    from typing import Any

SEARCH_RENDERER = "tui.search_answer"
"""The module that renders a daemon's ``search.cli`` answers (``engine.search_cli``), as the
front end names it to every daemon it starts (``--renderer``)."""


def answer_from_daemon(ns: argparse.Namespace, argv: Sequence[str]) -> int | None:
    """Write the daemon's answer to ``ade search ARGV`` (parsed as ``ns``) and return its exit
    code; ``None``: run the full path (no daemon answers, or its shortcut does not apply). A
    daemon that fails the request for its own reasons is warned about, as the full path does,
    and ``ns.no_daemon`` is set so the full path answers in this process."""
    if ns.no_daemon or ns.status or ns.rebuild or ns.explain:
        return None
    try:
        cwd = os.getcwd()
        for text in (cwd, *argv):
            text.encode()  # argv bytes that are not UTF-8 (lone surrogates): the full path
    except (OSError, UnicodeEncodeError):
        return None
    from engine import RELEASE
    from engine.rpc.connection import CALL_TIMEOUT_S, ContextNotServed, call_once
    from engine.rpc.paths import UntrustedDaemon

    color = sys.stdout.isatty() and "NO_COLOR" not in os.environ
    params = {"argv": list(argv), "cwd": cwd, "color": color, "version": RELEASE}
    try:
        answered = call_once("search.cli", params, CALL_TIMEOUT_S)
        writes = None if answered is None else _writes(answered[1], color)
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
    if writes is None:
        return None
    code, texts = writes
    last = None
    for fd, text in texts:
        stream = sys.stdout if fd == 1 else sys.stderr
        if last is not None and stream is not last:
            last.flush()  # the two streams' lines in the order the full path prints them
        stream.write(text)
        last = stream
    return code


def _writes(answer: Any, color: bool) -> tuple[int, list[tuple[int, str]]] | None:
    """The exit code and the ``[fd, text]`` writes of a ``search.cli`` answer; ``None`` for a
    fallback. Raises ``MalformedReply`` for anything else (the full path then answers),
    without ``color`` an escape byte too: the daemon's output boundary leaves none in what it
    renders, so one there is a broken daemon's (docs/trust.md)."""
    if isinstance(answer, dict) and isinstance(answer.get("fallback"), str) and len(answer) == 1:
        return None
    code = answer.get("exit") if isinstance(answer, dict) else None
    texts = answer.get("writes") if isinstance(answer, dict) else None
    shaped = isinstance(texts, list) and all(
        isinstance(w, list) and len(w) == 2 and type(w[0]) is int and w[0] in (1, 2)
        and isinstance(w[1], str) and (color or not ("\x1b" in w[1] or "\x9b" in w[1]))
        for w in texts
    )  # fmt: skip
    if type(code) is int and 0 <= code <= 2 and shaped and isinstance(texts, list):
        return code, [(w[0], w[1]) for w in texts]
    from engine.rpc.connection import MalformedReply

    raise MalformedReply("the ade daemon's answer to search.cli is not of its shape")


def warn_untrusted(err: AdeError) -> None:
    """The one line a search prints when it will not use the daemon it found
    (``engine.rpc.paths.UntrustedDaemon``); it answers in process."""
    from tui.printable import printable  # the message names a path someone else may have made

    print(f"warning: not using the ade daemon: {printable(str(err))}; searching in this process",
          file=sys.stderr)  # fmt: skip
