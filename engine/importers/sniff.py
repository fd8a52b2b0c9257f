"""What a file given to ``ade import`` really is, before any of it is stored (issue 13.8).

A tmux ``pipe-pane`` log has no signature, so "not an asciicast and not a typescript" used to
mean "a tmux log": a garbage ``.cast``, a ``script`` timing file or a PNG became a terminal
session. Here a ``.cast`` must be an asciicast, a timing file is named as one, and binary data is
refused unless ``--format tmux`` insists; a gzip file is inflated first (``.log.gz``).
"""

from __future__ import annotations

import re
import zlib

from engine.importers.recording import RecordingError

GZIP_MAGIC = b"\x1f\x8b"

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


def inflate(data: bytes, name: str, limit: int) -> bytes:
    """``data`` decompressed when it is gzip (any number of members), else ``data`` itself.

    Raises:
        RecordingError: truncated or corrupt gzip, or it inflates past ``limit`` bytes.
    """
    if not data.startswith(GZIP_MAGIC):
        return data
    out: list[bytes] = []
    total = 0
    rest = data
    try:
        while rest:
            inflater = zlib.decompressobj(wbits=31)
            chunk = inflater.decompress(rest, limit + 1 - total)
            total += len(chunk)
            out.append(chunk)
            if total > limit:
                raise RecordingError(f"{name} inflates past {limit >> 30} GiB")
            if not inflater.eof:
                if inflater.unconsumed_tail:
                    raise RecordingError(f"{name} inflates past {limit >> 30} GiB")
                raise RecordingError(f"{name} is a truncated gzip file")
            rest = inflater.unused_data.lstrip(b"\0")  # members may be padded with NULs
            if rest and not rest.startswith(GZIP_MAGIC):
                break  # trailing garbage after the last member: what gzip(1) also ignores
    except zlib.error as err:
        raise RecordingError(f"{name} is not valid gzip: {err}") from None
    return b"".join(out)


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
