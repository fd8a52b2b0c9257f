"""A gzip reader that stops cleanly at damage (docs/reliability-faults.md).

``gzip.GzipFile`` raises on a cut file (``EOFError``) and on bytes after the last member
(``BadGzipFile``), and what it inflated before the damage is lost with the exception. A cut or
padded ``.gz`` recording or transcript still holds a readable beginning: this keeps it and says
what stopped the read, so the caller can import or index it with a warning instead of refusing
the whole file (or retrying it forever).
"""

from __future__ import annotations

import zlib
from collections.abc import Callable

GZIP_MAGIC = b"\x1f\x8b"

_INPUT_STEP = 64 * 1024
"""Compressed bytes fed per step: damage loses at most what one step inflated to."""


class InflateLimit(Exception):
    """The data inflates past the caller's limit (a gzip bomb, or a file far beyond any real one)."""


class Inflated:
    """What could be read, and why the read stopped early (``None``: the file is whole). A plain
    class, not a dataclass: ``dataclasses`` costs a search ~9 ms of imports."""

    __slots__ = ("damage", "data")

    def __init__(self, data: bytes, damage: str | None = None) -> None:
        self.data = data
        self.damage = damage


def inflate_readable(read: Callable[[int], bytes], limit: int) -> Inflated:
    """Inflate every gzip member ``read`` yields (``read(n)``: up to ``n`` more bytes, ``b""`` at
    the end), stopping at the first damage: a cut member, corrupt deflate data, or trailing bytes
    that are no gzip member (NUL padding between members is skipped, as gzip(1) does).

    Raises:
        InflateLimit: more than ``limit`` bytes would come out.
    """
    out: list[bytes] = []
    total = 0
    pending = read(_INPUT_STEP)
    while True:
        pending = pending.lstrip(b"\0")
        while not pending:
            more = read(_INPUT_STEP)
            if not more:
                return Inflated(b"".join(out))
            pending = more.lstrip(b"\0")
        if len(pending) < 2:
            pending += read(1)
        if not pending.startswith(GZIP_MAGIC):
            reason = "not gzip data" if not out else "trailing bytes that are not gzip"
            return Inflated(b"".join(out), reason)
        member = zlib.decompressobj(wbits=31)
        while not member.eof:
            if not pending:
                pending = read(_INPUT_STEP)
                if not pending:
                    return Inflated(b"".join(out), "cut short (truncated gzip data)")
            try:
                chunk = member.decompress(pending)
            except zlib.error as err:
                return Inflated(b"".join(out), f"damaged gzip data ({err})")
            pending = b""
            total += len(chunk)
            if total > limit:
                raise InflateLimit(f"inflates past {limit} bytes")
            out.append(chunk)
        pending = member.unused_data


def inflate_bytes(data: bytes, limit: int) -> Inflated:
    """``inflate_readable`` over bytes in memory."""
    view = memoryview(data)
    position = 0

    def read(size: int) -> bytes:
        nonlocal position
        piece = bytes(view[position : position + size])
        position += len(piece)
        return piece

    return inflate_readable(read, limit)
