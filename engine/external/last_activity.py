"""When an external chat last said something: the timestamp of its last message (times tell the truth).

A transcript's mtime is not that: Claude Code appends summaries and file-history snapshots to
old sessions, so a chat whose messages are a day old would read "just now". The last
``TAIL_BYTES`` are read (once per file version, remembered in memory) and scanned backwards for
a message line's ``timestamp``; a tail without one (a single huge tool result) falls back to
the mtime.
"""

from __future__ import annotations

import json
import os
import threading
from datetime import datetime
from pathlib import Path

from engine.project.fields import parse_aware_time

TAIL_BYTES = 64 << 10
"""Read from the end of a transcript: a few messages, whatever the file's size."""

MESSAGE_TYPES = frozenset({"user", "assistant", "response_item", "event_msg"})
"""Line types that are a conversation's messages (Claude Code; Codex rollouts)."""

_MEMO: dict[tuple[str, int, int, int], datetime | None] = {}
_LOCK = threading.Lock()


def last_message_time(path: Path, st: os.stat_result) -> datetime | None:
    """The last message's time in the transcript at ``path`` (as ``st`` describes it), or None."""
    key = (str(path), st.st_ino, st.st_size, st.st_mtime_ns)
    with _LOCK:
        if key in _MEMO:
            return _MEMO[key]
    found = _scan_tail(path, st.st_size)
    with _LOCK:
        if len(_MEMO) > 4096:  # one entry per file version: bounded in a long-lived daemon
            _MEMO.clear()
        _MEMO[key] = found
    return found


def _scan_tail(path: Path, size: int) -> datetime | None:
    try:
        with path.open("rb") as handle:
            handle.seek(max(0, size - TAIL_BYTES))
            data = handle.read(TAIL_BYTES)
    except OSError:
        return None
    for raw in reversed(data.split(b"\n")):
        line = raw.strip()
        if not line.startswith(b"{"):
            continue
        try:
            record = json.loads(line)
        except ValueError:
            continue  # a torn last line, or the cut first one
        if isinstance(record, dict) and record.get("type") in MESSAGE_TYPES:
            moment = parse_aware_time(record.get("timestamp"))
            if moment is not None:
                return moment
    return None
