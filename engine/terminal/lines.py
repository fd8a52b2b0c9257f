"""Which raw transcript line a match is on: sanitized lines mapped back to raw byte offsets.

The sanitizer yields exactly one output line per raw line (``engine.terminal.sanitize``), so the
*i*-th sanitized line of a block of raw bytes starts where the block's *i*-th raw line starts. A
chunk's link can therefore point at the line inside the chunk that holds the match instead of
at the chunk's first byte.
"""

# warm path: a warm `ade search` imports this; keep its imports light (ARCHITECTURE: The warm path)

from __future__ import annotations

from collections.abc import Iterable

from engine.terminal.sanitize import sanitize_lines


def first_matching_line(
    raw: bytes, base_offset: int, words: Iterable[str], first_piece: int | None = None
) -> int | None:
    """The raw byte offset of the first whole line of ``raw`` whose visible text contains one of
    ``words`` (case-insensitive), or None.

    Args:
        raw: transcript bytes read at ``base_offset`` (a chunk's start); an unterminated last
            line is ignored (it may be cut in the middle of a character or escape).
        base_offset: the transcript offset of ``raw[0]``.
        words: the matched words, as the snippet highlighted them.
        first_piece: bytes sanitized before the rest (default ``FIRST_PIECE_BYTES``).
    """
    wanted = [w.casefold() for w in words if w.strip()]
    end = raw.rfind(b"\n") + 1
    if not wanted or end == 0:
        return None
    alt_screen = False
    start = 0
    for stop in _piece_ends(raw, end, first_piece or FIRST_PIECE_BYTES):
        # Sanitizing is line-local given the alternate-screen state, so a piece ending at a
        # newline, with the state carried, gives the lines the whole block would: most matches
        # are in a chunk's first lines, and the rest is sanitized only when they are not.
        texts, alt_screen = sanitize_lines(raw[start:stop], alt_screen)
        line_start = start
        for text in texts[:-1]:  # the last entry is the empty text after the piece's newline
            if text is not None:
                folded = text.casefold()
                if any(word in folded for word in wanted):
                    return base_offset + line_start
            line_start = raw.index(b"\n", line_start) + 1
        start = stop
    return None


FIRST_PIECE_BYTES = 2048
"""Raw bytes sanitized before the rest of a block is: a match in a chunk's first lines (the
usual case) costs an eighth of a 16 KiB read's sanitizing."""


def _piece_ends(raw: bytes, end: int, first_piece: int) -> list[int]:
    """Where the pieces of ``raw[:end]`` end: after the first newline at or past
    ``first_piece`` bytes, then at ``end`` (every piece ends just after a newline)."""
    if end <= first_piece:
        return [end]
    first = raw.find(b"\n", first_piece - 1, end) + 1
    return [first, end] if 0 < first < end else [end]
