"""``ade import``: a recording file → ``.ade/terminals/<id>.log`` + ``.ade/sessions/<id>.json``.

The session id is derived from the recording's bytes, so importing the same file twice writes
the same two files (and the second time, when nothing changed, writes nothing at all).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from engine.importers.asciicast import parse_asciicast
from engine.importers.recording import Recording, RecordingError
from engine.importers.store import (
    json_bytes,
    session_json_path,
    session_record,
    terminal_log_path,
    write_atomic,
)
from engine.importers.typescript import STARTED, parse_script, parse_tmux_log
from engine.project.model import Project

FORMATS = ("asciicast", "script", "tmux")
"""What ``--format`` accepts; auto-detection picks one of these."""

MAX_RECORDING_BYTES = 1 << 30
"""Refuse recordings past 1 GiB: they are read whole into memory to hash and parse."""


@dataclass(frozen=True, slots=True)
class ImportResult:
    """Where an import landed; ``written`` is False when the same import already existed."""

    session_id: str
    format: str
    log_path: Path
    session_path: Path
    written: bool
    warnings: tuple[str, ...] = ()


def detect_format(data: bytes) -> str:
    """``asciicast`` when it starts with a JSON object, ``script`` with its header line, else
    ``tmux`` (a raw pane log has no signature at all)."""
    head = data[:64].lstrip(b"\xef\xbb\xbf \t\r\n")
    if head.startswith(b"{"):
        return "asciicast"
    if head.startswith(STARTED):
        return "script"
    return "tmux"


def parse_recording(data: bytes, fmt: str, timing: bytes | None = None) -> Recording:
    """Parse ``data`` as ``fmt`` (one of ``FORMATS``).

    Raises:
        RecordingError: the bytes are not a valid recording of that format.
    """
    if fmt == "asciicast":
        return parse_asciicast(data)
    if fmt == "script":
        return parse_script(data, timing)
    if fmt == "tmux":
        return parse_tmux_log(data)
    raise RecordingError(f"unknown format {fmt!r}; valid formats: {', '.join(FORMATS)}")


def import_session_id(data: bytes) -> str:
    """``import-`` and the first 12 hex digits of the recording's SHA-1."""
    return "import-" + hashlib.sha1(data, usedforsecurity=False).hexdigest()[:12]


@dataclass(frozen=True, slots=True)
class LoadedRecording:
    """A recording file read and parsed, not yet written anywhere."""

    path: Path
    data: bytes
    format: str
    recording: Recording


def load_recording(
    path: Path, *, fmt: str | None = None, timing_path: Path | None = None
) -> LoadedRecording:
    """Read and parse one recording (``fmt`` forces the format, else it is detected).

    Raises:
        RecordingError: unreadable file, unknown format, invalid or empty content.
    """
    data = _read(path)
    timing = _read(timing_path) if timing_path is not None else None
    chosen = fmt or detect_format(data)
    recording = parse_recording(data, chosen, timing)
    if not recording.output:
        raise RecordingError(f"{path.name}: the recording holds no terminal output")
    return LoadedRecording(path, data, chosen, recording)


def write_import(project: Project, loaded: LoadedRecording, lane_id: str | None) -> ImportResult:
    """Write a loaded recording as a terminal session of ``project``.

    The log is written before the session file so an ingester that sees the session finds its
    complete log; files whose bytes would not change are left alone.
    """
    recording, sid = loaded.recording, import_session_id(loaded.data)
    try:
        mtime = datetime.fromtimestamp(loaded.path.stat().st_mtime, UTC)
    except OSError:
        mtime = recording.ended_at or datetime.now(UTC)
    created = recording.created_at or recording.ended_at or mtime
    record = session_record(
        sid,
        title=recording.title or loaded.path.name,
        lane_id=lane_id,
        created_at=created,
        ended_at=recording.ended_at or max(created, mtime),
        tool=recording.tool or "import",
        command=recording.command,
        exit_code=recording.exit_code,
        source="import",
    )
    log_path, session_path = terminal_log_path(project, sid), session_json_path(project, sid)
    meta_bytes = json_bytes(record)
    written = False
    if _differs(log_path, recording.output):
        write_atomic(log_path, recording.output)
        written = True
    if _differs(session_path, meta_bytes):
        write_atomic(session_path, meta_bytes)
        written = True
    return ImportResult(sid, loaded.format, log_path, session_path, written, recording.warnings)


def _read(path: Path) -> bytes:
    try:
        with path.open("rb") as handle:
            data = handle.read(MAX_RECORDING_BYTES + 1)
    except OSError as err:
        raise RecordingError(f"cannot read {path}: {err.strerror or err}") from None
    if len(data) > MAX_RECORDING_BYTES:
        raise RecordingError(f"{path.name} is larger than 1 GiB")
    return data


def _differs(path: Path, data: bytes) -> bool:
    try:
        return path.read_bytes() != data
    except OSError:
        return True
