"""The caller's context: the environment variables that change an answer travel with the request.

A daemon runs in the environment it was started from; the search it answers belongs to the
caller, whose ``HOME`` (and so its Claude, Codex, Gemini, OpenCode and Copilot folders), clock
(``ADE_NOW``), time zone, Linear key and git variables may differ. ``caller_context`` collects
what an answer depends on; the client sends it as the ``context`` parameter of every search
method and in its hello. The daemon then either answers in that context or refuses with
``ContextNotServed`` (JSON-RPC ``-32003``), and the client answers in its own process, silently.

Three kinds of variable (``docs/daemon-switches.md`` has the table):

- ``PER_REQUEST`` (``ADE_NOW``): applied to the one request (the query's clock).
- ``AGENT_FOLDERS``: where discovery looks. The daemon keeps one service per project root and
  per set of folders (``engine.rpc.services.ServicePool``, ``MAX_FOLDER_CONTEXTS`` per root), its
  discovery, warm manifest and watcher pointed at the caller's folders. git runs in the caller's
  ``HOME`` too (``current_environ``; a service's threads by ``carried``): its ``~/.gitconfig``.
- ``MATCHED`` (and every ``GIT_*``): read process-wide (the time zone by ``astimezone``, git's
  variables by every git the daemon runs, the Linear key by the delegate), so they cannot be
  applied to one request: the daemon answers only when its own values are the caller's.
  Secrets (the Linear keys) travel as digests, never as values.
"""

# warm path: a warm `ade search` imports this; keep its imports light (ARCHITECTURE: The warm path)

from __future__ import annotations

import os
from contextvars import ContextVar

from engine.errors import INVALID_PARAMS, RpcError

TYPE_CHECKING = False  # a daemon-answered search imports no `typing` nor more (start-up budget)
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping
    from contextvars import Token
    from datetime import datetime
    from typing import Any

PER_REQUEST = ("ADE_NOW",)
"""Applied per request: ``since:``, ``until:`` and relative times are computed against it."""

AGENT_FOLDERS = (
    "HOME",
    "CLAUDE_CONFIG_DIR",
    "CODEX_HOME",
    "GEMINI_CLI_HOME",
    "XDG_DATA_HOME",
    "COPILOT_HOME",
    "QWEN_RUNTIME_DIR",
    "PI_CODING_AGENT_DIR",
    "OPENCLAW_STATE_DIR",
    "GOOSE_PATH_ROOT",
    "VIBE_HOME",
    "GROK_HOME",
    "KIRO_HOME",
    "VSCODE_APPDATA",
    "CRUSH_GLOBAL_DATA",
    "VSCODE_PORTABLE",
    "CLINE_DIR",
    "CLINE_DATA_DIR",
    "CLINE_SESSION_DATA_DIR",
)
"""Where the agents keep their sessions: ``HOME`` and each agent's variable in
``engine.agent_table.AGENT_VARIABLES`` (spelled out, not imported: a daemon-answered search
imports nothing more; a test holds the two equal). A service per set."""

MATCHED = (
    "TZ",
    "ADE_HISTORY_DEPTH",
    "ADE_LINEAR_API_KEY",
    "LINEAR_API_KEY",
    "ADE_LINEAR_API_URL",
    "XDG_CONFIG_HOME",
    "ADE_SEMANTIC",
)
"""Read process-wide: served only when the daemon's own value is the caller's. ``TZ``: Aider's
history carries local times (``engine.external.aider``); every other time is UTC or carries its
zone. ``XDG_CONFIG_HOME``: git's global ignore and config (the files delegate, the origin).
``ADE_SEMANTIC``: ``0`` turns the meaning layer off (``engine.semantic.enabled``), for the
daemon's model and its writer as much as for the answer."""

MATCHED_PREFIX = "GIT_"
"""Every ``GIT_*`` variable changes what git answers (``GIT_DIR``, ``GIT_CONFIG_GLOBAL``…)."""

SECRETS = frozenset({"ADE_LINEAR_API_KEY", "LINEAR_API_KEY"})
"""Sent as a digest: equality is all the daemon needs to know."""

MAX_FOLDER_CONTEXTS = 4
"""Distinct sets of agent folders the daemon serves one project for (each set is a service of
its own: a writer, a watcher and caches); a fifth is answered by the caller in its own process."""

CONTEXT_NOT_SERVED = -32003
"""Server-defined JSON-RPC code: this daemon cannot answer in the caller's context."""

_MAX_VALUE = 4096
_MAX_KEYS = 64


def _matched(name: str) -> bool:
    return name in MATCHED or name.startswith(MATCHED_PREFIX)


def _known(name: str) -> bool:
    return name in PER_REQUEST or name in AGENT_FOLDERS or _matched(name)


def _digest(value: str) -> str:
    from engine.basics.digests import blake2b  # only when a secret is set (start-up budget)

    return "blake2b:" + blake2b(value.encode("utf-8", "surrogateescape")).hexdigest()


def caller_context(env: Mapping[str, str] | None = None) -> dict[str, str]:
    """The variables of ``env`` (default: ours) that change an answer, as sent to the daemon;
    an unset variable is absent (so unset and set differ), a secret is a digest."""
    env = os.environ if env is None else env
    out: dict[str, str] = {}
    for name, value in env.items():
        if _known(name):
            out[name] = _digest(value) if name in SECRETS else value
    return out


class ContextNotServed(RpcError):
    """The daemon cannot answer in this context; the caller answers in its own process."""

    def __init__(self, message: str) -> None:
        super().__init__(CONTEXT_NOT_SERVED, message, {"type": "ContextNotServed"})


class Served:
    """One request's context as the daemon applies it.

    ``folders``: the agent-folder variables the caller set (the service pool's key);
    ``environ``: the daemon's environment with those in place of its own; ``now``: the caller's
    ``ADE_NOW``, or ``None`` for the real time.
    """

    __slots__ = ("environ", "folders", "now")

    def __init__(
        self, folders: tuple[tuple[str, str], ...], environ: dict[str, str], now: datetime | None
    ) -> None:
        self.folders = folders
        self.environ = environ
        self.now = now


_REQUEST: ContextVar[Served | None] = ContextVar("ade_caller_context", default=None)


def _invalid(message: str) -> RpcError:
    return RpcError(INVALID_PARAMS, f"invalid params: {message}")


def _checked(context: Any) -> dict[str, str]:
    if not isinstance(context, dict) or len(context) > _MAX_KEYS:
        raise _invalid(f"context must be an object of at most {_MAX_KEYS} strings")
    for name, value in context.items():
        if not isinstance(value, str) or len(value) > _MAX_VALUE or "\x00" in value:
            raise _invalid(f"context {name!r} must be a string without NUL")
        if not _known(name):
            raise _invalid(f"context {name!r} is not a variable that changes an answer")
    return context


class _Own:
    """The daemon's own context and environment (less the agent folders), made again only when
    ``os.environ`` changed: every request compares the two, and making them from every variable
    cost ~40 us a request. The key is a copy of ``os.environ``'s encoded table (one dict
    comparison in C); what is kept is made from that copy, so it is exactly its values."""

    __slots__ = ("base", "context", "home", "snapshot")

    def __init__(self, snapshot: dict[Any, Any], env: Mapping[str, str]) -> None:
        self.snapshot = snapshot
        self.context = caller_context(env)
        self.base = {k: v for k, v in env.items() if k not in AGENT_FOLDERS}
        self.home: str | None = None
        """The account's home (``pwd``), looked up once when a caller sets no ``HOME``."""


_OWN: list[_Own] = []


def _own() -> _Own | None:
    """The daemon's own ``_Own`` for ``os.environ`` as it is now; None where ``os.environ``
    keeps no encoded table (another Python: every request then reads ``os.environ``)."""
    table = getattr(os.environ, "_data", None)
    decode_key = getattr(os.environ, "decodekey", None)
    decode_value = getattr(os.environ, "decodevalue", None)
    if not isinstance(table, dict) or decode_key is None or decode_value is None:
        return None
    kept = _OWN[0] if _OWN else None
    if kept is not None and kept.snapshot == table:
        return kept
    snapshot = dict(table)
    own = _Own(snapshot, {decode_key(k): decode_value(v) for k, v in snapshot.items()})
    _OWN[:] = [own]
    return own


def unserved_reason(context: Any, own: Mapping[str, str] | None = None) -> str | None:
    """Why the daemon (environment ``own``, default ours) cannot answer in ``context``;
    ``None`` when it can. Raises ``RpcError`` (invalid params) for a malformed context."""
    theirs = _checked(context)
    kept = _own() if own is None else None
    mine = kept.context if kept is not None else caller_context(own)
    for name in sorted({*theirs, *mine}):
        if _matched(name) and theirs.get(name) != mine.get(name):
            return f"{name} differs from the daemon's (read process-wide, not per request)"
    return None


def served(context: Any) -> Served:
    """The daemon's application of ``context``.

    Raises:
        ContextNotServed: a process-wide variable differs.
        RpcError: the context is malformed (invalid params).
        UsageError: the caller's ``ADE_NOW`` is no zoned ISO-8601 time (as in process).
    """
    reason = unserved_reason(context)
    if reason is not None:
        raise ContextNotServed(f"context not served: {reason}")
    from engine.basics.clock import parse_fixed_now

    folders = tuple(sorted((k, v) for k, v in context.items() if k in AGENT_FOLDERS))
    kept = _own()
    if kept is not None:
        environ = dict(kept.base)  # a copy: the request's own
    else:
        environ = {k: v for k, v in os.environ.items() if k not in AGENT_FOLDERS}
    environ.update(folders)
    if "HOME" not in environ:  # the caller's `~` is then the account's, never the daemon's HOME
        home = kept.home if kept is not None else None
        if home is None:
            import pwd

            home = pwd.getpwuid(os.getuid()).pw_dir
            if kept is not None:
                kept.home = home
        environ["HOME"] = home
    text = context.get("ADE_NOW")
    return Served(folders, environ, parse_fixed_now(text) if text else None)


class _Serving:
    """``serving``'s context manager (a class, not ``contextlib``'s decorator: this module is on
    a daemon-answered search's path, and ``contextlib`` brings ``functools`` and ``collections``)."""

    def __init__(self, applied: Served | None) -> None:
        self._applied = applied
        self._token: Token[Served | None] | None = None

    def __enter__(self) -> Served | None:
        self._token = _REQUEST.set(self._applied)
        return self._applied

    def __exit__(self, *exc_info: object) -> None:
        assert self._token is not None
        _REQUEST.reset(self._token)


def serving(context: Any) -> _Serving:
    """Answer the request on this thread in ``context`` (``with serving(context) as applied``);
    ``None`` (an older client that sends none): in the daemon's own. A malformed or unserved
    context raises here, before the block."""
    return _Serving(None if context is None else served(context))


_WORKS_FOR: ContextVar[Mapping[str, str] | None] = ContextVar("ade_works_for", default=None)
"""The environment of the request or service a thread of its own works for (``carried``)."""


def current_environ() -> Mapping[str, str]:
    """The environment the current request is answered in; on a thread ``carried`` from a
    request or a service, theirs (a service's writer and watcher: the folders it serves); else
    the process's. git runs in it (``engine.project.git``): ``~/.gitconfig`` is the caller's."""
    applied = _REQUEST.get()
    if applied is not None:
        return applied.environ
    works_for = _WORKS_FOR.get()
    return os.environ if works_for is None else works_for


def carried(target: Callable[..., None]) -> Callable[..., None]:
    """``target`` to run on another thread in this thread's ``current_environ`` (a thread starts
    in an empty context, where it would be the daemon's own): a service's threads, opened by a
    request, keep its caller's environment for their background work. Only the environment is
    carried, not the request (its clock, its per-request memos)."""
    applied = _REQUEST.get()
    environ = applied.environ if applied is not None else _WORKS_FOR.get()
    if environ is None:  # the process's own: nothing to carry
        return target

    def run(*args: Any, **kwargs: Any) -> None:
        _WORKS_FOR.set(environ)  # the new thread's own context
        target(*args, **kwargs)

    return run


def folders_key() -> tuple[tuple[str, str], ...]:
    """The agent folders of the current request (the process's own outside a request)."""
    applied = _REQUEST.get()
    if applied is not None:
        return applied.folders
    return tuple(sorted((k, v) for k, v in os.environ.items() if k in AGENT_FOLDERS))


def request_clock(fallback: Callable[[], datetime]) -> Callable[[], datetime]:
    """A service clock that answers the current request's time (its ``ADE_NOW``, else the real
    time) and ``fallback`` outside a request (the writer's and the watcher's threads)."""
    from engine.basics.clock import system_clock

    def now() -> datetime:
        applied = _REQUEST.get()
        if applied is None:
            return fallback()
        return applied.now if applied.now is not None else system_clock()

    return now
