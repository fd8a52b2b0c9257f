"""External sessions remembered across runs, so discovery does not forget.

Discovery looks where this run's environment points (``HOME``, ``CLAUDE_CONFIG_DIR``,
``CODEX_HOME``). A run with another ``HOME`` finds none of the project's Claude or Codex sessions;
that must not mean they are gone. Every session discovered is remembered in
``.ade/cache/external-sessions.json`` with the root it was found under; a remembered session whose
transcript file still exists stays listed (and indexed, and followed) until the file is deleted.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import msgspec

from engine.project.fields import parse_aware_time
from engine.project.model import Project, SessionMeta, is_valid_session_id

MEMORY_FILE = "external-sessions.json"
"""File name under ``.ade/cache/`` (the watcher ignores that folder)."""

MEMORY_VERSION = 1


@dataclass(frozen=True)
class Remembered:
    """One remembered session: its listing, and the discovery root it was found under."""

    meta: SessionMeta
    root: str


def memory_path(project: Project) -> Path:
    """Where the project's remembered external sessions are kept."""
    return project.cache_dir / MEMORY_FILE


def load_memory(project: Project) -> list[Remembered]:
    """The remembered sessions (none when the file is missing or damaged)."""
    try:
        raw = json.loads(memory_path(project).read_bytes())
        if raw.get("version") != MEMORY_VERSION:
            return []
        entries = raw["sessions"]
    except (OSError, ValueError, TypeError, KeyError, AttributeError):
        return []
    out: list[Remembered] = []
    for entry in entries if isinstance(entries, list) else []:
        remembered = _entry(entry)
        if remembered is not None:
            out.append(remembered)
    return out


def _entry(entry: object) -> Remembered | None:
    if not isinstance(entry, dict):
        return None
    sid, source, path = entry.get("id"), entry.get("source"), entry.get("path")
    title, lane, root = entry.get("title"), entry.get("laneId"), entry.get("root", "")
    created = parse_aware_time(entry.get("createdAt"))
    if not (isinstance(sid, str) and is_valid_session_id(sid) and isinstance(source, str)):
        return None
    if not (isinstance(path, str) and os.path.isabs(path) and created is not None):
        return None
    meta = SessionMeta(
        id=sid, kind="chat", title=title if isinstance(title, str) else sid,
        lane_id=lane if isinstance(lane, str) else None, created_at=created, updated_at=created,
        tool=source, source=source, transcript_path=Path(path),
    )  # fmt: skip
    return Remembered(meta, root if isinstance(root, str) else "")


def still_there(
    remembered: Iterable[Remembered], known: set[str], searched: Mapping[str, Path]
) -> list[Remembered]:
    """The remembered sessions this run's discovery could not have seen — not in ``known`` and
    found under another root than the one ``searched`` for their source — whose transcript still
    exists, their update time refreshed from the file. Under the searched root, discovery is the
    authority: a file whose cwd left the project is dropped with its documents."""
    out: list[Remembered] = []
    for entry in remembered:
        path = entry.meta.transcript_path
        root = searched.get(entry.meta.source)
        if entry.meta.id in known or path is None or root is None or entry.root == str(root):
            continue  # listed, or discovery searched where it was found, or not a remembered source
        try:
            mtime = datetime.fromtimestamp(path.stat().st_mtime, UTC)
        except OSError:
            continue  # the file is gone: so is the session
        updated = max(entry.meta.created_at, mtime)
        out.append(Remembered(msgspec.structs.replace(entry.meta, updated_at=updated), entry.root))
    return out


def save_memory(project: Project, entries: Iterable[Remembered]) -> None:
    """Write the remembered sessions when they changed (atomically; best-effort)."""
    payload = {
        "version": MEMORY_VERSION,
        "sessions": sorted(
            (
                {"id": e.meta.id, "source": e.meta.source, "path": str(e.meta.transcript_path),
                 "title": e.meta.title, "laneId": e.meta.lane_id,
                 "createdAt": e.meta.created_at.isoformat(), "root": e.root}
                for e in entries
                if e.meta.transcript_path is not None
            ),
            key=lambda d: str(d["id"]),
        ),
    }  # fmt: skip
    text = json.dumps(payload, separators=(",", ":"))
    path = memory_path(project)
    with contextlib.suppress(OSError):
        if path.read_text(encoding="utf-8") == text:
            return
    tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, path)
    except OSError:
        with contextlib.suppress(OSError):
            tmp.unlink()
