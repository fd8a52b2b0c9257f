"""Transcript reads for the tailer, with the last decompressed ``.gz`` kept between passes.

``read_transcript`` inflates a whole ``.gz`` to return any slice of it, and one pass reads a few
slices (the cursor window, the head, a long line's end). A 100 MB compacted transcript read in
4 MiB passes would be inflated ~75 times; keeping the last buffer, keyed by the ``.gz`` file's
identity (inode, size, mtime), inflates it once. ``release`` drops it when a drain ends.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path

from engine.project.transcripts import (
    MAX_DECOMPRESSED_BYTES,
    TranscriptSlice,
    read_transcript,
)

_lock = threading.Lock()
_cached: tuple[tuple[str, int, int, int], TranscriptSlice] | None = None


def _gz_key(path: Path) -> tuple[str, int, int, int] | None:
    gz = path if path.name.endswith(".gz") else path.with_name(path.name + ".gz")
    try:
        st = os.stat(gz)
    except OSError:
        return None
    return (str(gz), st.st_ino, st.st_size, st.st_mtime_ns)


def read_slice(path: Path, offset: int, max_bytes: int) -> TranscriptSlice:
    """``read_transcript(path, offset, max_bytes)``, inflating a given ``.gz`` only once.

    Raises:
        TranscriptNotReady / TranscriptUnreadable: as ``read_transcript``.
    """
    global _cached
    key = _gz_key(path)
    if key is None:
        return read_transcript(path, offset, max_bytes)
    with _lock:
        hit = _cached if _cached is not None and _cached[0] == key else None
    if hit is None:
        whole = read_transcript(path, 0, MAX_DECOMPRESSED_BYTES)
        if not whole.compressed:
            return read_transcript(path, offset, max_bytes)  # garbage .gz: the plain file
        with _lock:
            _cached = (key, whole)
        hit = (key, whole)
    whole = hit[1]
    return TranscriptSlice(
        data=whole.data[offset : offset + max_bytes],
        start=offset,
        total_size=whole.total_size,
        source=whole.source,
        compressed=True,
        damage=whole.damage,
    )


def release() -> None:
    """Forget the cached buffer (memory goes back as soon as a drain is done)."""
    global _cached
    with _lock:
        _cached = None
