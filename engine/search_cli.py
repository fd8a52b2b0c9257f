"""``search.cli``: the daemon answers a whole plain ``ade search`` — its stdout, stderr and exit
code — so a client only writes what it is given (docs/daemon.md has the wire).

The request carries the client's argv (after ``search``), cwd, colour decision, release and
context; the answer is ``{"exit": N, "writes": [[fd, text], …]}``, what ``ade search …
--no-daemon`` would write in that cwd and environment, or ``{"fallback": reason}`` when the
plain shortcut does not apply and the client runs its full path.

The engine does not know how a command line is parsed or printed (those are the front end's):
the *renderer* is a module named on the daemon's command line (``--renderer MODULE``, set by the
front end that starts the daemon), imported on the first ``search.cli`` and called as
``MODULE.answer_cli(request)`` with a ``CliRequest``. A daemon without one answers fallback.
A context the daemon does not serve is the ``ContextNotServed`` error (-32003), as for
``search.query``: the client answers in its own process.
Its queries take the ``search.query`` path: the same parameter checks, catch-up and router,
in the caller's context (``engine.basics.caller_env``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import datetime
from typing import Any

from engine import RELEASE
from engine.errors import INVALID_PARAMS, RpcError, UsageError
from engine.types import SearchQueryResult

CLI_METHOD = "search.cli"

MAX_ARGV = 256
"""More words than any plain search has; the rest is refused as invalid params."""

_MAX_TEXT = 4096
_KEYS = frozenset({"argv", "cwd", "color", "version", "context"})

QueryRunner = Callable[[str, dict[str, Any]], SearchQueryResult]
"""``query(root, params)``: ``search.query`` with these params (``projectRoot`` is ``root``)."""


class CliRequest:
    """One ``search.cli`` request as the renderer reads it, in the caller's context.

    ``argv``: the words after ``search``; ``cwd``: the caller's working folder (absolute);
    ``color``: whether the client's stdout takes colour; ``environ``: the environment the request
    is answered in (the caller's agent folders and ``HOME``, ``engine.basics.caller_env``);
    ``now``: the caller's clock (its ``ADE_NOW``, else the time); ``query``: runs a query.
    """

    __slots__ = ("argv", "color", "cwd", "environ", "now", "query")

    def __init__(
        self,
        argv: list[str],
        cwd: str,
        color: bool,
        environ: Mapping[str, str],
        now: datetime,
        query: QueryRunner,
    ) -> None:
        self.argv = argv
        self.cwd = cwd
        self.color = color
        self.environ = environ
        self.now = now
        self.query = query


Renderer = Callable[[CliRequest], dict[str, Any]]


def fallback(reason: str) -> dict[str, Any]:
    """The answer that sends the client down its full path."""
    return {"fallback": reason}


class CliAnswers:
    """``search.cli`` of one daemon: the renderer module's name (``None``: always fallback),
    imported on first use (a daemon that serves only the palette never loads it)."""

    def __init__(self, renderer: str | None) -> None:
        self._name = renderer
        self._renderer: Renderer | None = None

    def _loaded(self) -> Renderer:
        if self._renderer is None:
            assert self._name is not None
            module = __import__(self._name, fromlist=["answer_cli"])
            self._renderer = module.answer_cli
        return self._renderer

    def answer(self, params: dict[str, Any], query: QueryRunner) -> dict[str, Any]:
        """The answer to ``params`` (stripped of any caller scope).

        Raises:
            RpcError: malformed params.
            engine.errors.AdeError: the engine failed (the client then answers in process).
        """
        argv, cwd, color, version, context = _checked(params)
        if version != RELEASE:
            return fallback(f"another version (the daemon runs {RELEASE})")
        from engine.basics.caller_env import request_clock, serving
        from engine.basics.clock import system_clock

        # A context this daemon does not serve raises ContextNotServed (-32003), as for every
        # search method: the client answers in its own process and starts no daemon beside this.
        try:
            applied = serving(context)
        except UsageError as err:  # the caller's ADE_NOW: its own process says so
            return fallback(str(err))
        if self._name is None:
            return fallback("this daemon has no renderer")
        renderer = self._loaded()
        with applied as served:
            assert served is not None
            request = CliRequest(
                argv, cwd, color, served.environ, request_clock(system_clock)(), query
            )
            return renderer(request)


def _invalid(message: str) -> RpcError:
    return RpcError(INVALID_PARAMS, f"invalid params: {message}")


def _checked(params: dict[str, Any]) -> tuple[list[str], str, bool, str, dict[str, Any]]:
    unknown = sorted(set(params) - _KEYS)
    if unknown:
        raise _invalid(f"unknown parameter {unknown[0]!r} (valid: {', '.join(sorted(_KEYS))})")
    argv, cwd = params.get("argv"), params.get("cwd")
    color, version, context = params.get("color"), params.get("version"), params.get("context")
    words_ok = all(isinstance(a, str) and len(a) <= _MAX_TEXT for a in argv or ())
    if not isinstance(argv, list) or len(argv) > MAX_ARGV or not words_ok:  # a NUL is a query's
        raise _invalid(f"argv must be a list of at most {MAX_ARGV} strings")
    if not isinstance(cwd, str) or not _text(cwd) or not cwd.startswith("/"):
        raise _invalid("cwd must be an absolute path")
    if not isinstance(color, bool):
        raise _invalid("color must be true or false")
    if not isinstance(version, str) or not _text(version):
        raise _invalid("version must be a string")
    if not isinstance(context, dict):
        raise _invalid("context must be an object")
    return argv, cwd, color, version, context


def _text(value: Any) -> bool:
    return isinstance(value, str) and len(value) <= _MAX_TEXT and "\x00" not in value
