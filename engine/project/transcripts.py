"""Chat and terminal transcripts: byte slices from plain or ``.gz`` files, chat line parsing.

A transcript is one logical byte stream: ``<sid>.jsonl`` (chat) or ``<sid>.log`` (terminal),
losslessly compacted at some point into a ``.gz`` sibling holding the same bytes. Byte offsets are
offsets into that stream, so a cursor stays valid across compaction (DESIGN §4, RELIABILITY 5).
"""

# warm path: a warm `ade search` imports this; keep its imports light (ARCHITECTURE: The warm path)

from __future__ import annotations

import errno
import os
import stat
import time
from pathlib import Path
from typing import cast

import msgspec

from engine.project.bounds import project_bounds
from engine.project.fields import parse_aware_time
from engine.project.model import (
    CHAT_EVENT_TYPES,
    ChatEvent,
    ChatEventType,
    Project,
    SessionKind,
    is_valid_session_id,
)
from engine.project.safe_io import (
    JsonRejected,
    UnsafeFile,
    file_type_name,
    is_regular_file,
    loads_json,
    open_regular,
)
from engine.project.tally import WarningTally

MAX_DECOMPRESSED_BYTES = 1 << 30
"""Refuse a ``.gz`` that inflates past 1 GiB: far beyond any real transcript, stops a gzip bomb."""

LIVE_TAIL_BYTES = 8 * 1024 * 1024
"""Most bytes read live per session and query (a session's unindexed tail, ``.ade`` or external):
two ingestion slices, a bounded query cost."""

CUT_GZ_GRACE_S = 120.0
"""A cut ``.gz`` younger than this may still be being written (retried); an older one is damaged
and read up to the cut with a warning, so its session never stays ``indexing`` (docs/reliability-faults.md)."""

_SUFFIX: dict[SessionKind, tuple[str, str]] = {
    "chat": ("chats", ".jsonl"),
    "terminal": ("terminals", ".log"),
}


class TranscriptError(Exception):
    """Base of transcript read failures."""


class TranscriptNotReady(TranscriptError):
    """Transient: a ``.gz`` is empty or truncated (being written). Consume nothing, retry later."""


class TranscriptUnreadable(TranscriptError):
    """The transcript cannot be read (permissions, garbage ``.gz`` without a plain file)."""


class TranscriptMissing(TranscriptUnreadable):
    """Neither the plain file nor its ``.gz`` sibling exists."""


class TranscriptSlice(msgspec.Struct, frozen=True):
    """Bytes ``[start, start + len(data))`` of a transcript whose full length is ``total_size``."""

    data: bytes
    start: int
    total_size: int
    source: Path
    compressed: bool
    damage: str | None = None
    """A damaged ``.gz`` (cut, corrupt, trailing bytes) read up to the damage: what to warn."""

    @property
    def end(self) -> int:
        """Offset just past ``data``."""
        return self.start + len(self.data)


def transcript_file(project: Project, kind: SessionKind, sid: str) -> Path | None:
    """The file holding a session's transcript: the ``.gz`` sibling when present and readable,
    else the plain file when present, else ``None``. An invalid ``sid`` → ``None`` (no path built).

    Only regular files count, and a symlink only when it stays inside the project (or a lane git
    lists as a worktree): a transcript linked to ``~/.ssh/id_rsa`` is no transcript.
    """
    if kind not in _SUFFIX or not is_valid_session_id(sid):
        return None
    folder, suffix = _SUFFIX[kind]
    plain = project.ade_dir / folder / f"{sid}{suffix}"
    gz = _gz_sibling(plain)
    bounds = project_bounds(project.root)
    if is_regular_file(gz, bounds) and os.access(gz, os.R_OK):
        return gz
    return plain if is_regular_file(plain, bounds) else None


def refused_transcript(project: Project, kind: SessionKind, sid: str) -> str | None:
    """Why ``transcript_file`` found none although something is there (a FIFO, a socket, a
    directory, a symlink out of the project), or ``None`` when nothing is there at all."""
    if kind not in _SUFFIX or not is_valid_session_id(sid):
        return None
    folder, suffix = _SUFFIX[kind]
    plain = project.ade_dir / folder / f"{sid}{suffix}"
    for path in (_gz_sibling(plain), plain):
        try:
            mode = os.stat(path).st_mode
        except OSError:
            continue
        if not stat.S_ISREG(mode):
            return f"refused {path.name}: is {file_type_name(mode)}"
        if not project_bounds(project.root).allows(path):
            return f"refused {path.name}: links outside the project"
    return None


def _gz_sibling(plain: Path) -> Path:
    return plain.with_name(plain.name + ".gz")


def _plain_of(path: Path) -> Path:
    return path.with_name(path.name.removesuffix(".gz"))


def read_transcript(path: Path, offset: int, max_bytes: int) -> TranscriptSlice:
    """Read up to ``max_bytes`` from ``offset`` of the transcript at ``path`` (plain or ``.gz``).

    ``path`` and its sibling are one source: the ``.gz`` is canonical when it exists and
    decompresses; a garbage or damaged ``.gz`` falls back to the plain file. An empty or freshly
    cut ``.gz`` (a compactor still writing) also falls back to the plain file if it is still
    there, and otherwise raises ``TranscriptNotReady``. Without a plain file, a ``.gz`` cut longer
    than ``CUT_GZ_GRACE_S`` ago, corrupt further on, or followed by trailing bytes is read up to
    the damage, which ``damage`` names (docs/reliability-faults.md).
    ``offset`` past the end yields empty data; the caller compares ``total_size`` to its cursor.

    Raises:
        TranscriptNotReady: transient, retry later and consume nothing.
        TranscriptMissing: neither file exists.
        TranscriptUnreadable: permissions, or a garbage ``.gz`` with no plain file.
    """
    if offset < 0 or max_bytes < 0:
        raise ValueError("offset and max_bytes must be >= 0")
    plain = _plain_of(path)
    gz = _gz_sibling(plain)
    try:
        buffer, damage = _decompress(gz)
    except FileNotFoundError:
        return _read_plain(plain, offset, max_bytes)
    except TranscriptError as err:
        try:
            return _read_plain(plain, offset, max_bytes)
        except TranscriptMissing:
            raise err from None
    if damage is not None and os.path.lexists(plain):
        return _read_plain(plain, offset, max_bytes)  # the plain file is whole: it wins
    return TranscriptSlice(
        data=buffer[offset : offset + max_bytes],
        start=offset,
        total_size=len(buffer),
        source=gz,
        compressed=True,
        damage=damage,
    )


def _decompress(gz: Path) -> tuple[bytes, str | None]:
    """The inflated ``.gz`` and, when it is damaged, why (what precedes the damage is kept)."""
    if not os.path.lexists(gz):  # no compacted copy (most transcripts): nothing to inflate
        raise FileNotFoundError(errno.ENOENT, "no such file", str(gz))
    # Only a compacted transcript loads the inflater: a warm search never does.
    from engine.project.gzip_read import InflateLimit, inflate_readable

    try:
        with open_regular(gz) as raw:
            st = os.fstat(raw.fileno())
            if st.st_size == 0:
                raise TranscriptNotReady(f"{gz.name} is empty (being written)")
            inflated = inflate_readable(raw.read, MAX_DECOMPRESSED_BYTES)
    except FileNotFoundError:
        raise
    except InflateLimit:
        raise TranscriptUnreadable(f"{gz.name} inflates past the size limit") from None
    except UnsafeFile as err:
        raise TranscriptUnreadable(str(err)) from None
    except OSError as err:
        raise TranscriptUnreadable(f"{gz.name}: {err.strerror or err}") from None
    damage = inflated.damage
    if damage is None:
        return inflated.data, None
    if "cut short" in damage and time.time() - st.st_mtime < CUT_GZ_GRACE_S:
        # A compactor may still be writing it: retry, and never shrink to a partial read.
        raise TranscriptNotReady(f"{gz.name} is truncated (being written)")
    if not inflated.data:
        raise TranscriptUnreadable(f"{gz.name}: {damage}; nothing in it could be read")
    return inflated.data, f"{gz.name}: {damage}; indexed what precedes it"


def _read_plain(plain: Path, offset: int, max_bytes: int) -> TranscriptSlice:
    try:
        with open_regular(plain) as handle:
            size = os.fstat(handle.fileno()).st_size
            # Read no further than the size we report, so data and total_size agree even while
            # a writer appends.
            want = max(0, min(max_bytes, size - offset))
            handle.seek(offset)
            data = handle.read(want) if want else b""
    except FileNotFoundError:
        raise TranscriptMissing(f"{plain.name}: no transcript") from None
    except OSError as err:
        raise TranscriptUnreadable(f"{plain.name}: {err.strerror or err}") from None
    return TranscriptSlice(data=data, start=offset, total_size=size, source=plain, compressed=False)


def parse_chat_lines(
    data: bytes, base_offset: int, source: str, tally: WarningTally
) -> tuple[list[ChatEvent], int]:
    """Parse the complete lines of ``data`` (which starts at byte ``base_offset``).

    Returns the events and the number of bytes consumed: every byte up to and including the last
    ``\\n``. The torn last line is never consumed. Blank lines are skipped silently; malformed
    JSON, non-objects, unknown ``type`` and a missing or invalid ``seq`` are skipped and counted
    under ``source``; an invalid ``ts`` is counted and the event kept with ``ts=None``.
    Invalid UTF-8 is decoded with replacement.
    """
    consumed = data.rfind(b"\n") + 1
    events: list[ChatEvent] = []
    pos = 0
    while pos < consumed:
        end = data.index(b"\n", pos)
        line = data[pos:end]
        if line.strip():
            event = _parse_line(line, base_offset + pos, source, tally)
            if event is not None:
                events.append(event)
        pos = end + 1
    return events, consumed


def _parse_line(line: bytes, offset: int, source: str, tally: WarningTally) -> ChatEvent | None:
    try:
        obj = loads_json(line)
    except JsonRejected as err:
        tally.add(source, "json nested too deep" if "deep" in str(err) else "malformed json line")
        return None
    if not isinstance(obj, dict):
        tally.add(source, "line is not a JSON object")
        return None
    kind = obj.get("type")
    if not isinstance(kind, str) or kind not in CHAT_EVENT_TYPES:
        tally.add(source, "unknown event type")
        return None
    seq = obj.get("seq")
    if isinstance(seq, bool) or not isinstance(seq, int) or seq < 0:
        tally.add(source, "missing or invalid seq")
        return None
    ts = parse_aware_time(obj.get("ts"))
    if ts is None and obj.get("ts") is not None:
        tally.add(source, "invalid ts")
    return ChatEvent(seq=seq, ts=ts, type=cast(ChatEventType, kind), offset=offset, data=obj)
