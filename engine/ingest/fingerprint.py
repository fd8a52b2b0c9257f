"""Transcript fingerprints: is the file still the one our byte cursor points into? (RELIABILITY 4)

Size alone misses a file rewritten and grown past the cursor while nobody watched, and another file
renamed onto the path. The fingerprint keeps the device and inode plus a hash of the head and of
the bytes just before the cursor; any mismatch means "reindex this session from zero".

A ``.gz`` compaction is a different file holding the same bytes, so for compressed sources only
the content hashes count: the cursor stays valid and nothing is reindexed (RELIABILITY 5).
"""

from __future__ import annotations

import json

import msgspec

from engine.basics.digests import blake2b

HEAD_BYTES = 4096
"""Bytes hashed at the start of the stream: covers the first records, which a rewrite changes."""

TAIL_BYTES = 4096
"""Bytes hashed just before the cursor: the region a rewrite-then-grow is most likely to change."""


def digest(data: bytes) -> str:
    """A short stable hash of ``data``."""
    return blake2b(data, digest_size=12).hexdigest()


class Fingerprint(msgspec.Struct, frozen=True):
    """What the cursor was taken against. ``cursor == 0`` fingerprints match anything. (A
    ``msgspec.Struct``, not a dataclass: see ``engine.ingest.tailing.PassOutput``.)"""

    dev: int = 0
    ino: int = 0
    compressed: bool = False
    head: str = ""
    tail: str = ""

    def to_json(self) -> str:
        """Compact JSON for ``SourceRow.identity``."""
        fields = {name: getattr(self, name) for name in self.__struct_fields__}
        return json.dumps(fields, separators=(",", ":"), sort_keys=True)

    @classmethod
    def from_json(cls, text: str) -> Fingerprint:
        """Parse ``SourceRow.identity``; anything unreadable yields the empty fingerprint."""
        try:
            raw = json.loads(text)
            return cls(
                dev=int(raw.get("dev", 0)),
                ino=int(raw.get("ino", 0)),
                compressed=bool(raw.get("compressed", False)),
                head=str(raw.get("head", "")),
                tail=str(raw.get("tail", "")),
            )
        except (ValueError, TypeError, AttributeError):
            return cls()


def window_start(cursor: int) -> int:
    """Where a pass starts reading so the bytes hashed into ``tail`` come with the slice."""
    return max(0, cursor - TAIL_BYTES)


def take(
    data: bytes, data_start: int, cursor: int, dev: int, ino: int, compressed: bool, head: str
) -> Fingerprint:
    """The fingerprint for ``cursor`` given bytes ``data`` starting at ``data_start``.

    ``data`` must hold ``[window_start(cursor), cursor)``; ``head`` is the hash of the first
    ``min(cursor, HEAD_BYTES)`` bytes.
    """
    lo = window_start(cursor) - data_start
    return Fingerprint(dev, ino, compressed, head, digest(data[lo : cursor - data_start]))


def matches(
    stored: Fingerprint,
    cursor: int,
    data: bytes,
    data_start: int,
    dev: int,
    ino: int,
    compressed: bool,
    head_bytes: bytes | None,
) -> bool:
    """True when the file still holds, before ``cursor``, the bytes the cursor was taken on.

    Args:
        stored: the fingerprint saved with the cursor.
        cursor: the saved byte cursor.
        data: bytes read from ``data_start`` (must cover ``[window_start(cursor), cursor)``).
        dev: device of the file read now.
        ino: inode of the file read now.
        compressed: whether the file read now is the ``.gz`` sibling.
        head_bytes: the first ``min(cursor, HEAD_BYTES)`` bytes of the stream now.
    """
    if cursor == 0:
        return True
    if len(data) < cursor - data_start:
        return False  # shorter than the cursor: rewritten
    # Same kind of file, different inode: another file was renamed onto the path. A plain file
    # compacted to .gz (or the reverse) is a new inode by design; the hashes decide then.
    if not compressed and not stored.compressed and (stored.dev, stored.ino) != (dev, ino):
        return False
    lo = window_start(cursor) - data_start
    if digest(data[lo : cursor - data_start]) != stored.tail:
        return False
    return head_bytes is None or digest(head_bytes[: min(cursor, HEAD_BYTES)]) == stored.head
