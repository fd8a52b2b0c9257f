"""The ``search`` action domain: the only methods the daemon serves (DESIGN §7, seed registry.ts).

An allowlist of exactly ``search.query``, ``search.indexStatus``, ``search.rebuildIndex`` and
``search.cli`` (a whole ``ade search`` answered: ``engine.search_cli``, whose queries are
``search.query``'s); anything else is "method not found". ``search.rebuildIndex`` is CTO-only: the caller's role comes
from its connection (``engine.rpc.roles``), never from a parameter. Any caller-supplied
``callerScope`` — top level or nested, in any spelling — is removed before validation, so a
session-bound agent and an unbound shell get the same project results (seed adeRpcServer.ts).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Literal, Protocol

import msgspec

from engine.basics.logs import AUDIT_LOGGER, get_logger
from engine.errors import FORBIDDEN, INVALID_PARAMS, METHOD_NOT_FOUND, RpcError
from engine.types import (
    ALL_KINDS,
    DEFAULT_LIMIT,
    MAX_LIMIT,
    IndexStatus,
    RebuildResult,
    SearchQueryArgs,
    SearchQueryResult,
    from_wire,
    to_wire,
)

Role = Literal["cto", "agent"]
"""``cto``: the human's own CLI or palette (proved with the token); ``agent``: everyone else."""

SEARCH_ACTIONS: frozenset[str] = frozenset(
    {"search.query", "search.indexStatus", "search.rebuildIndex", "search.cli"}
)
"""The allowlist; nothing else in the search domain is reachable over the socket."""

CTO_ONLY: frozenset[str] = frozenset({"search.rebuildIndex"})
"""Rebuild throws away the index and re-reads every source: only the human may ask for it."""

MAX_QUERY_CHARS = 4096
"""A query longer than this is not a search, it is a paste accident or an attack."""

MAX_TEXT_CHARS = 4096
"""Cap for cursors, lane ids and project paths (a path past PATH_MAX cannot exist anyway)."""

"""Largest page a caller may ask for; the router's per-project ceilings are separate."""

_QUERY_KEYS = frozenset(
    {"query", "kinds", "laneId", "limit", "cursor", "offset", "exact", "projectRoot", "context", "fresh",
     "sessions", "allProjects"}
)  # fmt: skip
_ROOT_ONLY_KEYS = frozenset({"projectRoot", "context"})
"""``context``: the caller's environment that changes an answer (``engine.basics.caller_env``)."""

audit_log = get_logger(AUDIT_LOGGER)


class SearchHost(Protocol):
    """What the domain needs from the daemon: the router for queries, the services for the rest."""

    def query(
        self, root: Path, args: SearchQueryArgs, *, fresh: bool = True
    ) -> SearchQueryResult: ...

    def index_status(self, root: Path) -> IndexStatus: ...

    def rebuild_index(self, root: Path) -> RebuildResult: ...


def _is_caller_scope(key: str) -> bool:
    return re.sub(r"[^a-z0-9]", "", key.lower()) == "callerscope"


def strip_caller_scope(value: Any) -> Any:
    """Return ``value`` with every ``callerScope`` key removed, at any depth and any spelling.

    ``callerScope``, ``caller_scope``, ``CallerScope``, ``CALLER-SCOPE``… all go: the key is
    compared with case and separators removed.
    """
    if isinstance(value, dict):
        return {
            key: strip_caller_scope(item)
            for key, item in value.items()
            if not _is_caller_scope(key)
        }
    if isinstance(value, list):
        return [strip_caller_scope(item) for item in value]
    return value


def _invalid(message: str) -> RpcError:
    return RpcError(INVALID_PARAMS, f"invalid params: {message}")


def _check_keys(params: dict[str, Any], allowed: frozenset[str]) -> None:
    unknown = sorted(set(params) - allowed)
    if unknown:
        raise _invalid(f"unknown parameter {unknown[0]!r} (valid: {', '.join(sorted(allowed))})")


def _optional_text(params: dict[str, Any], key: str, cap: int) -> None:
    value = params.get(key)
    if value is None:
        return
    if not isinstance(value, str):
        raise _invalid(f"{key} must be a string or null")
    if len(value) > cap or "\x00" in value:
        raise _invalid(f"{key} is longer than {cap} characters or contains NUL")


def project_root_param(params: dict[str, Any]) -> Path:
    """The required absolute ``projectRoot``, checked for type and shape (not existence)."""
    value = params.get("projectRoot")
    if not isinstance(value, str) or not value:
        raise _invalid("projectRoot (an absolute path string) is required")
    _optional_text(params, "projectRoot", MAX_TEXT_CHARS)
    path = Path(value)
    if not path.is_absolute():
        raise _invalid(f"projectRoot must be absolute, got {value!r}")
    return path


def fresh_param(params: dict[str, Any]) -> bool:
    """``fresh`` (default true): catch up with every write made before the request first
    (docs/freshness.md); the palette sends false while its user types."""
    fresh = params.get("fresh", True)
    if not isinstance(fresh, bool):
        raise _invalid("fresh must be true or false")
    return fresh


def query_args_param(params: dict[str, Any]) -> SearchQueryArgs:
    """Validate ``search.query`` params (already stripped) into ``SearchQueryArgs``."""
    _check_keys(params, _QUERY_KEYS)
    query = params.get("query", "")
    if not isinstance(query, str) or len(query) > MAX_QUERY_CHARS:
        raise _invalid(f"query must be a string of at most {MAX_QUERY_CHARS} characters")
    kinds = params.get("kinds")
    if kinds is not None:
        if not isinstance(kinds, list) or not kinds or len(kinds) > len(ALL_KINDS):
            raise _invalid(f"kinds must be a non-empty list of: {', '.join(ALL_KINDS)}")
        bad = [k for k in kinds if k not in ALL_KINDS]
        if bad:
            raise _invalid(f"unknown kind {bad[0]!r} (valid: {', '.join(ALL_KINDS)})")
    limit = params.get("limit", DEFAULT_LIMIT)
    if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= MAX_LIMIT:
        raise _invalid(f"limit must be an integer from 1 to {MAX_LIMIT}")
    offset = params.get("offset", 0)
    if isinstance(offset, bool) or not isinstance(offset, int) or offset < 0:
        raise _invalid("offset must be an integer of 0 or more")
    _optional_text(params, "laneId", MAX_TEXT_CHARS)
    _optional_text(params, "cursor", MAX_TEXT_CHARS)
    wire = {k: v for k, v in params.items() if k not in ("projectRoot", "context", "fresh")}
    try:
        return from_wire(wire, SearchQueryArgs)
    except msgspec.ValidationError as err:  # belt and braces: msgspec re-checks every type
        raise _invalid(str(err)) from None


class SearchDomain:
    """Dispatch one allowlisted action to the host, enforcing roles and parameter rules.

    Args:
        host: the daemon's router and services.
        renderer: the module that renders ``search.cli`` answers (``engine.search_cli``);
            ``None``: that method answers fallback.
    """

    def __init__(self, host: SearchHost, renderer: str | None = None) -> None:
        from engine.search_cli import CliAnswers

        self._host = host
        self._cli = CliAnswers(renderer)

    def call(self, method: str, params: dict[str, Any], role: Role, peer: str = "?") -> Any:
        """Run ``method`` for a caller of ``role``; return the JSON-ready result.

        Raises:
            RpcError: method not found, invalid params, or forbidden (with an audit line).
            engine.errors.AdeError: from the engine; the server maps it to a code.
        """
        if method not in SEARCH_ACTIONS:
            raise RpcError(METHOD_NOT_FOUND, f"method not found: {method!r}")
        if method in CTO_ONLY and role != "cto":
            # Refused before params are even read: an agent gets no side effect at all.
            audit_log.warning("refused %s for role=%s peer=%s: CTO only", method, role, peer)
            raise RpcError(FORBIDDEN, f"forbidden: {method} is CTO-only (caller role: {role})")
        clean = strip_caller_scope(params)
        from engine.basics.caller_env import serving

        if method == "search.query":
            args = query_args_param(clean)
            root = project_root_param(clean)
            with serving(clean.get("context")):  # the caller's environment, not the daemon's
                return to_wire(self._host.query(root, args, fresh=fresh_param(clean)))
        if method == "search.cli":  # served in the caller's context, which it carries
            return self._cli.answer(clean, self._cli_query)
        _check_keys(clean, _ROOT_ONLY_KEYS)
        root = project_root_param(clean)
        with serving(clean.get("context")):
            if method == "search.indexStatus":
                return to_wire(self._host.index_status(root))
            audit_log.info("rebuild of %s by role=%s peer=%s", root, role, peer)
            return to_wire(self._host.rebuild_index(root))

    def _cli_query(self, root: str, params: dict[str, Any]) -> SearchQueryResult:
        """``search.query`` for a ``search.cli`` answer, already in the caller's context: the
        same checks, catch-up (read your writes) and router."""
        params = {**strip_caller_scope(params), "projectRoot": root}
        args = query_args_param(params)
        return self._host.query(project_root_param(params), args, fresh=fresh_param(params))
