"""``session:`` takes a session id as users copy it (docs/search.md).

ade names an agent's session ``<tool>-<the agent's own id>`` (``claude-0b5e…``), but a user copies
the id the agent prints (``claude --resume 0b5e…``, Codex's rollout file name): a bare UUID. So a
``session:`` value that names no session is read, in order, as

1. the id itself (an ``.ade`` session, or any indexed session);
2. ``<tool>-<value>`` for every agent tool (the agent's own id);
3. a unique prefix of an id or of its agent part, at least ``MIN_PREFIX`` characters.

A value that still names nothing (or several sessions) stays as typed — it finds nothing — and
the answer says so, naming the sessions that look closest.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Sequence

import apsw
import msgspec

from engine.project.model import Project
from engine.project.tally import WarningTally
from engine.query.plan import QueryPlan
from engine.types import AGENT_TOOLS

MIN_PREFIX = 8
"""Shortest prefix taken as a session id: a UUID's first group, unambiguous in practice (shorter
ones, like ``ab``, would silently pick a session the user never meant)."""

CLOSE_SHOWN = 3
"""Sessions named when a value matches none."""

_PREFIXES = tuple(f"{tool}-" for tool in AGENT_TOOLS)


def _agent_part(sid: str) -> str:
    """The agent's own id inside ade's ``<tool>-<id>`` (the id itself otherwise)."""
    for prefix in _PREFIXES:
        if sid.startswith(prefix):
            return sid[len(prefix) :]
    return sid


def indexed_session_ids(conn: apsw.Connection) -> set[str]:
    """Every session id the index holds documents of (one walk of the ``docs_by_session`` index)."""
    rows = conn.execute("SELECT DISTINCT session_id FROM docs WHERE session_id IS NOT NULL")
    return {str(r[0]) for r in rows}


def own_session_ids(project: Project) -> set[str]:
    """The ids of ``.ade/sessions`` (file names only: a session written but not indexed yet)."""
    try:
        return {p.stem for p in (project.ade_dir / "sessions").glob("*.json")}
    except OSError:
        return set()


def resolve_one(value: str, known: Iterable[str]) -> tuple[list[str], str | None]:
    """The session ids ``value`` names among ``known`` and, when it names none or several, the
    warning the answer carries."""
    ids = set(known)
    if value in ids:
        return [value], None
    agent = sorted(f"{prefix}{value}" for prefix in _PREFIXES if f"{prefix}{value}" in ids)
    if agent:
        return agent, None
    if len(value) >= MIN_PREFIX:
        prefixed = sorted(s for s in ids if s.startswith(value) or _agent_part(s).startswith(value))
        if len(prefixed) == 1:
            return prefixed, None
        if prefixed:
            shown = ", ".join(prefixed[:CLOSE_SHOWN])
            more = f" and {len(prefixed) - CLOSE_SHOWN} more" if len(prefixed) > CLOSE_SHOWN else ""
            note = f"session:{value} starts {len(prefixed)} session ids ({shown}{more})"
            return [value], f"{note}: give more of it"
    return [value], _no_session(value, ids)


def _no_session(value: str, ids: set[str]) -> str:
    """ "no session X" with the ids that look closest (by the whole id or its agent part)."""
    by_part: dict[str, str] = {}
    for sid in sorted(ids):
        by_part.setdefault(_agent_part(sid), sid)
    close = difflib.get_close_matches(value, sorted(ids), n=CLOSE_SHOWN, cutoff=0.5)
    for part in difflib.get_close_matches(value, sorted(by_part), n=CLOSE_SHOWN, cutoff=0.5):
        if by_part[part] not in close:
            close.append(by_part[part])
    if not close:
        return f"no session {value!r} in this project"
    return f"no session {value!r}; close: {', '.join(close[:CLOSE_SHOWN])}"


def resolve_sessions(
    values: Sequence[str], known: set[str]
) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The session ids ``session:`` ``values`` name among ``known``, and the warnings."""
    out: list[str] = []
    notes: list[str] = []
    for value in values:
        found, note = resolve_one(value, known)
        out.extend(s for s in found if s not in out)
        if note is not None:
            notes.append(note)
    return tuple(out), tuple(notes)


def plan_with_sessions(
    plan: QueryPlan, conn: apsw.Connection, project: Project, tally: WarningTally
) -> QueryPlan:
    """``plan`` with its ``session:`` values read as session ids (the module docstring). The
    agents' folders are listed only when a value is not an id the index or ``.ade`` holds."""
    try:
        cheap = indexed_session_ids(conn) | own_session_ids(project)
    except apsw.Error:  # the index is unavailable: the answer says so already
        cheap = own_session_ids(project)
    if all(value in cheap for value in plan.sessions):
        return plan
    from engine.external.catalog import project_sessions  # reads the agents' folders

    known = cheap | {meta.id for meta in project_sessions(project, tally)}
    sessions, notes = resolve_sessions(plan.sessions, known)
    return msgspec.structs.replace(plan, sessions=sessions, warnings=(*plan.warnings, *notes))
