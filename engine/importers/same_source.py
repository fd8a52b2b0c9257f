"""Which earlier import a recording continues: the same file, grown (idempotent re-import).

A recording is identified by where it was imported from and a fingerprint of its start: the
path, and the hash of its first bytes (as many as the earlier import had, up to ``HEAD_BYTES``).
Re-importing a pane log or a cast that grew finds that session and appends only the new tail to
its log, so the ingester indexes only the tail; the same file imported twice writes nothing.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from engine.basics.digests import sha256_hex
from engine.project.fields import read_json_object
from engine.project.model import Project
from engine.project.safe_io import read_regular
from engine.project.tally import WarningTally

HEAD_BYTES = 64 * 1024
"""Bytes of a recording's start that fingerprint it: past any header, short of a big read."""

SCAN_LIMIT = 256
"""Earlier imports compared against a new one (each costs one small JSON read)."""

SOURCE_KEY = "importedFrom"
"""The session record's field naming the imported file: ``{"path", "headBytes", "head"}``."""


def source_of(path: Path, data: bytes) -> dict[str, Any]:
    """The fingerprint stored with an import of ``data`` (the recording's bytes) from ``path``."""
    size = min(len(data), HEAD_BYTES)
    return {"path": str(_absolute(path)), "headBytes": size, "head": _digest(data[:size])}


def same_source_session(
    project: Project, path: Path, data: bytes, output: bytes, log_of: Any
) -> str | None:
    """The id of an earlier import of the file at ``path`` whose start ``data`` still has, and
    whose stored log ``output`` extends (or equals): that session continues.

    ``log_of(sid)`` is the session's log path. A file rewritten from scratch (another start, or
    a log that is no prefix of the new output) is a new recording: ``None``.
    """
    wanted = str(_absolute(path))
    folder = project.ade_dir / "sessions"
    try:
        candidates = sorted(folder.glob("import-*.json"))[:SCAN_LIMIT]
    except OSError:
        return None
    for record_path in candidates:
        record = read_json_object(record_path, WarningTally(), "import")
        source = record.get(SOURCE_KEY) if record is not None else None
        if not isinstance(source, dict) or source.get("path") != wanted:
            continue
        size = source.get("headBytes")
        if not isinstance(size, int) or isinstance(size, bool) or not 0 < size <= len(data):
            continue
        if source.get("head") != _digest(data[:size]):
            continue
        try:
            log = read_regular(log_of(record_path.stem), len(output) + 1)
        except (OSError, ValueError):
            continue
        if output.startswith(log):
            return record_path.stem
    return None


def _digest(data: bytes) -> str:
    return sha256_hex(data)[:32]


def _absolute(path: Path) -> Path:
    try:
        return path.resolve()
    except OSError:
        return path.absolute()
