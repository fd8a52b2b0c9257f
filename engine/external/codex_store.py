"""What Codex keeps beside its JSON-lines rollouts: thread names and the legacy whole-JSON rollout.

``$CODEX_HOME/session_index.jsonl`` (openai/codex ``codex-rs/rollout/src/session_index.rs``):
one ``{"id", "thread_name", "updated_at"}`` line appended per rename, the newest line of an id
wins and an empty name names nothing. Its names are the sessions' titles.

The legacy rollout (openai/codex ``codex-cli/src/utils/storage/save-rollout.ts``, the TypeScript
CLI): ``$CODEX_HOME/sessions/rollout-<date>-<uuid>.json``, one pretty-printed document
``{"session": {"timestamp", "id", "instructions"}, "items": [ResponseItem…]}`` rewritten whole
on every turn. It names no working folder; the ``workdir`` its shell calls ran in does (a
document without one is counted ``no cwd``, never listed silently under no lane).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from engine.external.lines import json_lines
from engine.external.session_file import read_session_file
from engine.external.skips import skip
from engine.project.safe_io import Bounds, JsonRejected, loads_json, read_regular
from engine.project.tally import WarningTally

SESSION_INDEX = "session_index.jsonl"
"""The thread names' file in ``$CODEX_HOME``."""

INDEX_LIMIT = 16 * 1024 * 1024
"""Most bytes of ``session_index.jsonl`` read (a line per rename: years of them)."""

_NAMES: dict[Path, tuple[tuple[int, int, int], dict[str, str]]] = {}
"""The names last read per index file, kept while its stat is the same (a warm listing reads
no file)."""


def thread_names(home: Path) -> dict[str, str]:
    """Each session id's newest non-empty thread name in ``home``'s ``session_index.jsonl``."""
    path = home / SESSION_INDEX
    try:
        st = path.stat()
    except OSError:
        return {}
    key = (st.st_ino, st.st_size, st.st_mtime_ns)
    known = _NAMES.get(path)
    if known is not None and known[0] == key:
        return known[1]
    try:
        data = read_regular(path, INDEX_LIMIT, Bounds([home]))
    except OSError:
        return {}
    names: dict[str, str] = {}
    lines, _ = json_lines(data, 0, "codex", WarningTally())
    for _offset, obj in lines:
        ident, name = obj.get("id"), obj.get("thread_name")
        if isinstance(ident, str) and isinstance(name, str) and name.strip():
            names[ident] = " ".join(name.split())
    _NAMES[path] = (key, names)
    return names


@dataclass
class LegacyRollout:
    """A legacy document: its session id, start time, working folder and items."""

    session_id: str | None = None
    timestamp: str | None = None
    cwd: str | None = None
    items: list[Any] = field(default_factory=list)


def read_legacy(
    path: Path, source: str, tally: WarningTally, bounds: Bounds | None = None
) -> LegacyRollout | None:
    """The legacy rollout at ``path``; None when it cannot be read or parsed now (counted under
    ``source``: a document caught half-written parses on its next change)."""
    try:
        read = read_session_file(path, document=True, bounds=bounds)
    except OSError as err:
        del err
        skip(tally, source, "unreadable")
        return None
    if read.clipped:
        skip(tally, source, "too long")
        return None
    try:
        whole = loads_json(read.data)
    except JsonRejected:
        skip(tally, source, "bad json")
        return None
    if not isinstance(whole, dict) or not isinstance(whole.get("items"), list):
        skip(tally, source, "not a session")
        return None
    raw = whole.get("session")
    session: dict[str, Any] = raw if isinstance(raw, dict) else {}
    found = LegacyRollout(items=whole["items"])
    if isinstance(session.get("id"), str) and session["id"]:
        found.session_id = session["id"]
    if isinstance(session.get("timestamp"), str):
        found.timestamp = session["timestamp"]
    found.cwd = session.get("cwd") if isinstance(session.get("cwd"), str) else _workdir(found)
    return found


def _workdir(rollout: LegacyRollout) -> str | None:
    """The first absolute ``workdir`` a shell call of the document ran in."""
    for item in rollout.items:
        if not isinstance(item, dict) or item.get("type") != "function_call":
            continue
        raw = item.get("arguments")
        try:
            args = loads_json(raw) if isinstance(raw, str) else raw
        except JsonRejected:
            continue
        workdir = args.get("workdir") if isinstance(args, dict) else None
        if isinstance(workdir, str) and os.path.isabs(workdir):
            return workdir
    return None
