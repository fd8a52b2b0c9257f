"""``ade import``: a recording file → ``.ade/terminals/<id>.log`` + ``.ade/sessions/<id>.json``.

The session id is derived from the recording's bytes, so importing the same file twice writes
the same two files (and the second time, when nothing changed, writes nothing at all).
"""

from __future__ import annotations

import dataclasses
import os
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from engine.basics.digests import sha1_hex
from engine.basics.pretty_json import json_bytes
from engine.importers.asciicast import parse_asciicast
from engine.importers.recording import Recording, RecordingError
from engine.importers.same_source import SOURCE_KEY, same_source_session, source_of
from engine.importers.sniff import check_recording, inflate
from engine.importers.store import (
    session_json_path,
    session_record,
    terminal_log_path,
    write_atomic,
)
from engine.importers.typescript import STARTED, parse_script, parse_tmux_log
from engine.project.fields import read_json_object
from engine.project.model import Project
from engine.project.safe_io import read_regular
from engine.project.tally import WarningTally

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


def detect_format(data: bytes, name: str | None = None) -> str:
    """``asciicast`` for a ``.cast`` file or one starting with a JSON object, ``script`` with its
    header line, else ``tmux`` (a raw pane log has no signature at all)."""
    if name is not None and name.removesuffix(".gz").endswith(".cast"):
        return "asciicast"  # a garbage .cast is a broken asciicast, never a pane log
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
    return "import-" + sha1_hex(data)[:12]


@dataclass(frozen=True, slots=True)
class LoadedRecording:
    """A recording file read and parsed, not yet written anywhere."""

    path: Path
    data: bytes
    """The recording's bytes (inflated when the file was gzip)."""
    format: str
    recording: Recording
    torn: bool = False
    """The file ends mid-line (still being written, or the recorder died): the session is not
    marked ended, so its unterminated last line stays out of the index until it is completed."""


def load_recording(
    path: Path, *, fmt: str | None = None, timing_path: Path | None = None
) -> LoadedRecording:
    """Read and parse one recording (``fmt`` forces the format, else it is detected).

    Raises:
        RecordingError: unreadable file, unknown format, invalid or empty content.
    """
    data, damage = inflate(_read(path), path.name, MAX_RECORDING_BYTES)
    timing = None
    if timing_path is not None:
        timing, _ = inflate(_read(timing_path), timing_path.name, MAX_RECORDING_BYTES)
    chosen = fmt or detect_format(data, path.name)
    check_recording(data, path.name, chosen, forced=fmt is not None)
    try:
        recording = parse_recording(data, chosen, timing)
    except RecordingError as err:
        raise RecordingError(f"{path.name}: {err}") from None
    if not recording.output:
        raise RecordingError(f"{path.name}: the recording holds no terminal output")
    if damage is not None:
        recording = dataclasses.replace(recording, warnings=(damage, *recording.warnings))
    return LoadedRecording(path, data, chosen, recording, is_torn(data, chosen, recording))


def is_torn(data: bytes, fmt: str, recording: Recording) -> bool:
    """Whether the file stops mid-record: a torn asciicast event, or a typescript without its
    trailer / a pane log whose last line has no newline yet."""
    if fmt == "asciicast":
        return "torn last event dropped" in recording.warnings
    return not recording.finished and not data.endswith(b"\n")


def write_import(
    project: Project,
    loaded: LoadedRecording,
    lane_id: str | None,
    *,
    title: str | None = None,
    ended: bool = False,
) -> ImportResult:
    """Write a loaded recording as a terminal session of ``project``.

    The log is written before the session file so an ingester that sees the session finds its
    complete log; files whose bytes would not change are left alone. A torn recording is stored
    unended (its last line stays out of the index) unless ``ended``; importing it again once it
    has grown continues the same session. ``title`` overrides the recording's own.
    """
    recording = loaded.recording
    sid = (
        same_source_session(
            project,
            loaded.path,
            loaded.data,
            recording.output,
            lambda s: terminal_log_path(project, s),
        )
        or continued_session(project, recording.output)
        or import_session_id(loaded.data)
    )
    open_ended = loaded.torn and not ended
    try:
        mtime = datetime.fromtimestamp(loaded.path.stat().st_mtime, UTC)
    except OSError:
        mtime = recording.ended_at or datetime.now(UTC)
    created = recording.created_at or recording.ended_at or mtime
    record = session_record(
        sid,
        title=title or recording.title or loaded.path.name.removesuffix(".gz"),
        lane_id=lane_id,
        created_at=created,
        ended_at=None if open_ended else recording.ended_at or max(created, mtime),
        updated_at=max(created, mtime) if open_ended else None,
        tool=recording.tool or "import",
        command=recording.command,
        exit_code=recording.exit_code,
        source="import",
    )
    record[SOURCE_KEY] = source_of(loaded.path, loaded.data)
    log_path, session_path = terminal_log_path(project, sid), session_json_path(project, sid)
    meta_bytes = json_bytes(record)
    written = _write_log(log_path, recording.output)
    if _differs(session_path, meta_bytes):
        write_atomic(session_path, meta_bytes)
        written = True
    return ImportResult(sid, loaded.format, log_path, session_path, written, recording.warnings)


CONTINUE_SCAN_LIMIT = 256
"""Unended imports compared against a new one (each costs one log read)."""


def continued_session(project: Project, output: bytes) -> str | None:
    """The id of an unended import whose log the new ``output`` extends (a torn recording
    imported again after it grew), so it continues that session instead of starting another."""
    folder = project.ade_dir / "sessions"
    try:
        candidates = sorted(folder.glob("import-*.json"))[:CONTINUE_SCAN_LIMIT]
    except OSError:
        return None
    for path in candidates:
        record = read_json_object(path, WarningTally(), "import")
        if record is None or record.get("endedAt") is not None or record.get("source") != "import":
            continue
        try:
            log = read_regular(terminal_log_path(project, path.stem), MAX_RECORDING_BYTES)
        except (OSError, ValueError):
            continue
        if log and len(log) < len(output) and output.startswith(log):
            return path.stem
    return None


def _write_log(path: Path, output: bytes) -> bool:
    """Write ``output`` as the session's log; False when it is already there.

    A log that ``output`` extends (the same recording, grown) gets only the new tail appended in
    place, so the ingester's cursor stays valid and indexes the tail alone (idempotent re-import).
    """
    try:
        current = read_regular(path, len(output) + 1)  # a FIFO there: differs, replaced
    except OSError:
        current = None
    if current == output:
        return False
    if current and output.startswith(current) and not path.is_symlink():
        with path.open("ab") as handle:
            handle.write(output[len(current) :])
            handle.flush()
            os.fsync(handle.fileno())
        return True
    write_atomic(path, output)
    return True


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
        return read_regular(path, len(data) + 1) != data  # a FIFO there: differs, replaced
    except OSError:
        return True
