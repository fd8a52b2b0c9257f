"""What a file given to ``ade import`` really is, before any of it is stored.

A tmux ``pipe-pane`` log has no signature, so "not an asciicast and not a typescript" used to
mean "a tmux log": a garbage ``.cast``, a ``script`` timing file or a PNG became a terminal
session. Here a ``.cast`` must be an asciicast, a timing file is named as one, and binary data is
refused unless ``--format tmux`` insists; a gzip file is inflated first (``.log.gz``).
"""

from __future__ import annotations

import re

from engine.importers.recording import RecordingError
from engine.project.gzip_read import GZIP_MAGIC, InflateLimit, inflate_bytes

_TIMING_LINE = re.compile(rb"\d+(?:\.\d+)? \d+|[OIS] \d+(?:\.\d+)? .*|H \d+(?:\.\d+)? \S+ .*")
"""A classic ``<delay> <bytes>`` line, or an advanced-format ``O/I/S/H`` line."""

SNIFF_BYTES = 64 * 1024
BINARY_MAGICS = (
    b"\x89PNG",
    b"GIF8",
    b"\xff\xd8\xff",
    b"PK\x03\x04",
    b"%PDF",
    b"\x7fELF",
    b"SQLite format 3\x00",
    b"\x28\xb5\x2f\xfd",  # zstd
    b"BZh",
    b"\xfd7zXZ",
)


def inflate(data: bytes, name: str, limit: int) -> tuple[bytes, str | None]:
    """``data`` decompressed when it is gzip (any number of members), else ``data`` itself, and
    a warning when the gzip is damaged: a cut file, corrupt data or trailing bytes stop the read
    there, and what came before is kept (docs/reliability-faults.md) — a recorder killed mid-compression still
    left a readable beginning.

    Raises:
        RecordingError: nothing at all could be inflated, or it inflates past ``limit`` bytes.
    """
    if not data.startswith(GZIP_MAGIC):
        return data, None
    try:
        inflated = inflate_bytes(data, limit)
    except InflateLimit:
        raise RecordingError(f"{name} inflates past {limit >> 30} GiB") from None
    if inflated.damage is None:
        return inflated.data, None
    if not inflated.data:
        raise RecordingError(f"{name}: {inflated.damage}; nothing in it could be read")
    return inflated.data, f"{inflated.damage}; imported what precedes it"


def looks_like_timing(data: bytes) -> bool:
    """Every non-empty line among the first hundred is a ``script`` timing line."""
    lines = [line.strip() for line in data[:SNIFF_BYTES].splitlines()[:100]]
    lines = [line for line in lines if line]
    return bool(lines) and all(_TIMING_LINE.fullmatch(line) for line in lines)


def binary_reason(data: bytes) -> str | None:
    """Why ``data`` is no terminal output (a known file signature, NULs, not text), or None.

    Terminal output is text with escapes: a pane that printed a binary still holds mostly text.
    """
    head = data[:SNIFF_BYTES]
    for magic in BINARY_MAGICS:
        if head.startswith(magic):
            return "it is a binary file (image, archive, executable or database)"
    if not head:
        return None
    if head.count(0) * 100 > len(head):
        return "it holds binary data (NUL bytes)"
    text = head.decode("utf-8", errors="replace")
    if text.count("\ufffd") * 10 > len(text):
        return "it is not text"
    return None


def check_recording(data: bytes, name: str, fmt: str, forced: bool) -> None:
    """Refuse what is no recording of ``fmt`` (``forced``: the user chose the format).

    Raises:
        RecordingError: one line naming the file and what it is instead.
    """
    if looks_like_timing(data):
        raise RecordingError(
            f"{name} is a script timing file, not a recording; "
            f"import the typescript with --timing {name}"
        )
    if fmt == "tmux" and not forced:
        reason = binary_reason(data)
        if reason is not None:
            raise RecordingError(
                f"{name} is not a terminal recording: {reason} (--format tmux imports it anyway)"
            )
