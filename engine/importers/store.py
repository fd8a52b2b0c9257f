"""Atomic writes into ``.ade/`` and the session record shape (DESIGN §2).

The ingester reads these files while we write them: a temp file in the same folder renamed over
the target means it sees the old bytes or the new ones, never a torn JSON object.
"""

from __future__ import annotations

import os
import tempfile
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from engine.project.model import Project, is_valid_session_id


def write_atomic(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` via a temp file in the same folder and an atomic rename.

    The temp file is removed when anything fails, so an error leaves the target untouched.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def iso(moment: datetime | None) -> str | None:
    """An aware moment as ISO-8601 in UTC with a ``Z`` (DESIGN §2 times carry a zone)."""
    return moment.astimezone(UTC).isoformat().replace("+00:00", "Z") if moment else None


def session_record(
    sid: str,
    *,
    title: str,
    lane_id: str | None,
    created_at: datetime,
    ended_at: datetime | None,
    tool: str,
    command: str | None,
    exit_code: int | None,
    source: str,
    updated_at: datetime | None = None,
) -> dict[str, Any]:
    """A terminal session's ``.ade/sessions/<sid>.json`` object (camelCase, DESIGN §2)."""
    record: dict[str, Any] = {
        "id": sid,
        "kind": "terminal",
        "title": title,
        "laneId": lane_id,
        "createdAt": iso(created_at),
        "updatedAt": iso(updated_at or ended_at or created_at),
        "endedAt": iso(ended_at),
        "archived": False,
        "tool": tool,
        "command": command,
        "source": source,
    }
    if exit_code is not None:
        record["exitCode"] = exit_code
    return record


def session_json_path(project: Project, sid: str) -> Path:
    """``.ade/sessions/<sid>.json``; the id is validated first so no path escapes the folder."""
    if not is_valid_session_id(sid):
        raise ValueError(f"invalid session id {sid!r}")
    return project.ade_dir / "sessions" / f"{sid}.json"


def terminal_log_path(project: Project, sid: str) -> Path:
    """``.ade/terminals/<sid>.log`` (validated id)."""
    if not is_valid_session_id(sid):
        raise ValueError(f"invalid session id {sid!r}")
    return project.ade_dir / "terminals" / f"{sid}.log"
