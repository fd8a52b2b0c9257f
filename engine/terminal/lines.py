"""Which raw transcript line a match is on: sanitized lines mapped back to raw byte offsets.

The sanitizer yields exactly one output line per raw line (``engine.terminal.sanitize``), so the
*i*-th sanitized line of a block of raw bytes starts where the block's *i*-th raw line starts. A
chunk's link can therefore point at the line inside the chunk that holds the match instead of
at the chunk's first byte.
"""

from __future__ import annotations

from collections.abc import Iterable

from engine.terminal.sanitize import sanitize_lines


def first_matching_line(raw: bytes, base_offset: int, words: Iterable[str]) -> int | None:
    """The raw byte offset of the first whole line of ``raw`` whose visible text contains one of
    ``words`` (case-insensitive), or None.

    Args:
        raw: transcript bytes read at ``base_offset`` (a chunk's start); an unterminated last
            line is ignored (it may be cut in the middle of a character or escape).
        base_offset: the transcript offset of ``raw[0]``.
        words: the matched words, as the snippet highlighted them.
    """
    wanted = [w.casefold() for w in words if w.strip()]
    end = raw.rfind(b"\n") + 1
    if not wanted or end == 0:
        return None
    texts, _ = sanitize_lines(raw[:end], alt_screen=False)
    start = 0
    for text in texts[:-1]:  # the last entry is the empty text after the final newline
        if text is not None:
            folded = text.casefold()
            if any(word in folded for word in wanted):
                return base_offset + start
        start = raw.index(b"\n", start) + 1
    return None
