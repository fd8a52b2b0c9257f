"""Split raw terminal transcript bytes into newline-aligned, sanitized chunks keyed by byte offset.

A terminal transcript is an append-only file of raw PTY bytes. The ingestion reads it from a byte
cursor in slices; each slice goes through :func:`chunk_terminal_bytes`, which

* consumes only whole lines (up to the last ``\\n``) unless ``force`` says the session ended, so a
  torn tail, a split UTF-8 character or a split escape sequence is re-read with the next slice;
* groups lines into chunks of about ``target_chars`` characters of sanitized text, never cutting a
  line — except a line whose raw bytes exceed the hard cap (``LINE_CAP_FACTOR * target_chars``),
  which is cut at a raw byte position outside any UTF-8 sequence or escape sequence, preferring
  the byte after a space or ``\\r``;
* keys each chunk by the raw byte offset of the first line that produced its text, so a deep link
  ``ade://terminal/<sid>?offset=<byte>`` lands exactly;
* carries a tiny :class:`ChunkerState` (are we inside an alternate-screen region?) across slices.

Chunk boundaries depend on where slices ended, the text does not: feeding the same bytes in any
slicing yields the same sequence of non-blank lines (hypothesis-tested). Leading blank or hidden
lines of a chunk are skipped, so a chunk never starts with whitespace and its offset points at
real text.
"""

# warm path: a warm `ade search` imports this; keep its imports light (ARCHITECTURE: The warm path)

from __future__ import annotations

import bisect
import json

import msgspec

from engine.terminal.block import chunk_block
from engine.terminal.sanitize import esc_bytes_re, sanitize_lines

DEFAULT_TARGET_CHARS = 4096
"""About 4 KiB of text a chunk: snippet() re-tokenizes the whole chunk for every hit, so its cost
grows linearly with chunk size, while smaller chunks multiply rows (measured in
benchmarks/bench_chunking.py: 4 KiB keeps snippet under ~0.1 ms a hit and insert near its best)."""

LINE_CAP_FACTOR = 2
"""A single line is cut only when its raw bytes exceed twice the target: long enough that ordinary
wide lines stay whole, short enough that one chunk stays within a few target sizes."""


class TerminalChunk(msgspec.Struct, frozen=True):
    """One indexed piece of a terminal transcript."""

    offset: int
    """Raw byte offset of the chunk's first byte in the transcript."""
    text: str
    """Sanitized text (no escapes, no controls but ``\\n``/``\\t``), possibly ending in ``\\n``."""


class ChunkerState(msgspec.Struct, frozen=True):
    """What the chunker must remember between slices, persisted beside the byte cursor."""

    alt_screen: bool = False
    """The consumed bytes ended inside an alternate-screen region (its text is not indexed)."""

    def to_json(self) -> str:
        """Encode for storage beside the cursor, e.g. ``{"altScreen":false}``."""
        return json.dumps({"altScreen": self.alt_screen}, separators=(",", ":"))

    @classmethod
    def from_json(cls, text: str | bytes) -> ChunkerState:
        """Decode what :meth:`to_json` stored.

        Raises:
            ValueError: The text is not a stored chunker state.
        """
        try:
            value = json.loads(text)
        except (json.JSONDecodeError, UnicodeDecodeError) as error:
            raise ValueError(f"invalid chunker state: {error}") from None
        if not isinstance(value, dict) or not isinstance(value.get("altScreen"), bool):
            raise ValueError(f"invalid chunker state: {text!r:.80}")
        return cls(alt_screen=value["altScreen"])


FRESH_STATE = ChunkerState()
"""A transcript's start: outside any alternate-screen region."""


class ChunkResult(msgspec.Struct, frozen=True):
    """The outcome of chunking one slice."""

    chunks: list[TerminalChunk]
    """Chunks in transcript order, offsets strictly increasing."""
    consumed: int
    """Bytes consumed from ``data``: the next slice starts at ``base_offset + consumed``."""
    state: ChunkerState
    """State after the consumed bytes; pass it with the next slice."""


def chunk_terminal_bytes(
    data: bytes,
    base_offset: int,
    *,
    force: bool = False,
    state: ChunkerState = FRESH_STATE,
    target_chars: int = DEFAULT_TARGET_CHARS,
) -> ChunkResult:
    """Chunk one slice of a terminal transcript.

    Args:
        data: Raw bytes read at ``base_offset`` (the unconsumed rest of the last slice + new bytes).
        base_offset: Transcript byte offset of ``data[0]``.
        force: The session ended: consume everything, including an unterminated last line.
        state: The state returned for the previous slice.
        target_chars: Aim for chunks of about this many characters of text.

    Returns:
        The chunks, how many bytes were consumed, and the state to carry to the next slice.
    """
    if target_chars < 1:
        raise ValueError("target_chars must be positive")
    end = len(data) if force else data.rfind(b"\n") + 1
    cap = target_chars * LINE_CAP_FACTOR
    fast = chunk_block(data, end, base_offset, state.alt_screen, target_chars, cap)
    if fast is not None:
        chunks = [TerminalChunk(offset, text) for offset, text in fast[0]]
        return ChunkResult(chunks=chunks, consumed=end, state=ChunkerState(fast[1]))
    return _chunk_by_lines(data, end, base_offset, state, target_chars)


def _chunk_by_lines(
    data: bytes, end: int, base_offset: int, state: ChunkerState, target_chars: int
) -> ChunkResult:
    """The general path: line by line, cutting over-long lines (and any bytes, valid or not)."""
    starts, texts, alt_screen = _units(data, end, state.alt_screen, target_chars * LINE_CAP_FACTOR)
    chunks = _assemble(starts, texts, base_offset, target_chars)
    return ChunkResult(chunks=chunks, consumed=end, state=ChunkerState(alt_screen))


def _units(
    data: bytes, end: int, alt_screen: bool, cap: int
) -> tuple[list[int], list[str | None], bool]:
    """Sanitize ``data[:end]`` into units: lines, or pieces of lines longer than ``cap`` bytes.

    Returns:
        Parallel lists — each unit's raw start index and its text including its ``\\n``
        (``None`` when hidden in an alternate-screen region) — and the state after ``end``.
    """
    bounds = _line_bounds(data, end)
    starts: list[int] = []
    texts: list[str | None] = []
    run_start = 0  # first line of the current run of ordinary lines
    for index in range(len(bounds) - 1):
        if bounds[index + 1] - bounds[index] <= cap:
            continue
        alt_screen = _ordinary_units(data, bounds, run_start, index, alt_screen, starts, texts)
        alt_screen = _long_line_units(
            data, bounds[index], bounds[index + 1], cap, alt_screen, starts, texts
        )
        run_start = index + 1
    alt_screen = _ordinary_units(
        data, bounds, run_start, len(bounds) - 1, alt_screen, starts, texts
    )
    return starts, texts, alt_screen


def _line_bounds(data: bytes, end: int) -> list[int]:
    """Start of every line in ``data[:end]``, then ``end``: line *i* is ``bounds[i]:bounds[i+1]``."""
    bounds = [0]
    position = data.find(b"\n", 0, end)
    while position >= 0:
        bounds.append(position + 1)
        position = data.find(b"\n", position + 1, end)
    if bounds[-1] < end:
        bounds.append(end)  # the unterminated tail, consumed only when forced
    return bounds


def _ordinary_units(
    data: bytes,
    bounds: list[int],
    first: int,
    stop: int,
    alt_screen: bool,
    starts: list[int],
    texts: list[str | None],
) -> bool:
    """Append lines ``first:stop`` (none over the cap) with one sanitizer call; return the state."""
    if first >= stop:
        return alt_screen
    raw = data[bounds[first] : bounds[stop]]
    lines, alt_screen = sanitize_lines(raw, alt_screen)
    if raw.endswith(b"\n"):
        lines.pop()  # the empty text after the final newline
    last = len(lines) - 1
    starts.extend(bounds[first:stop])
    texts.extend(
        line if line is None or (index == last and not raw.endswith(b"\n")) else line + "\n"
        for index, line in enumerate(lines)
    )
    return alt_screen


def _long_line_units(
    data: bytes,
    start: int,
    stop: int,
    cap: int,
    alt_screen: bool,
    starts: list[int],
    texts: list[str | None],
) -> bool:
    """Append the pieces of one over-long line ``data[start:stop]``; return the state after it."""
    terminated = data[stop - 1 : stop] == b"\n"
    content_end = stop - 1 if terminated else stop
    cuts = _cut_points(data, start, content_end, cap)
    for index, cut in enumerate(cuts):
        piece_end = cuts[index + 1] if index + 1 < len(cuts) else content_end
        (text,), alt_screen = sanitize_lines(data[cut:piece_end], alt_screen)
        if terminated and index == len(cuts) - 1:
            text = "\n" if text is None else text + "\n"  # the newline itself is seen
        starts.append(cut)
        texts.append(text)
    return alt_screen


def _cut_points(data: bytes, start: int, stop: int, cap: int) -> list[int]:
    """Where to cut ``data[start:stop]`` (no newline inside) into pieces of about ``cap`` bytes.

    A cut never falls inside an escape sequence or a valid UTF-8 sequence; it prefers the byte
    after a space or ``\\r`` in the last half of the window, so words and progress frames stay
    whole.
    """
    spans = [(m.start(), m.end()) for m in esc_bytes_re().finditer(data, start, stop)]
    escape_starts = [span[0] for span in spans]
    cuts = [start]
    position = start
    while stop - position > cap:
        limit = position + cap
        soft = max(
            data.rfind(b" ", position + cap // 2, limit),
            data.rfind(b"\r", position + cap // 2, limit),
        )
        wanted = soft + 1 if soft >= 0 else limit
        cut = _safe_before(data, spans, escape_starts, wanted, position)
        if cut <= position:
            cut = _safe_after(data, spans, escape_starts, wanted, stop)
        if cut >= stop:
            break
        cuts.append(cut)
        position = cut
    return cuts


def _covering_escape(
    spans: list[tuple[int, int]], escape_starts: list[int], at: int
) -> tuple[int, int] | None:
    """The escape sequence strictly containing position ``at`` (a cut there would split it)."""
    index = bisect.bisect_left(escape_starts, at) - 1
    if index >= 0 and spans[index][1] > at:
        return spans[index]
    return None


def _utf8_start(data: bytes, at: int, floor: int) -> tuple[int, int] | None:
    """``(lead, length)`` of the valid-looking UTF-8 sequence strictly containing ``at``."""
    if at >= len(data) or not 0x80 <= data[at] < 0xC0:
        return None
    for back in (1, 2, 3):
        lead_at = at - back
        if lead_at < floor:
            return None
        lead = data[lead_at]
        if 0x80 <= lead < 0xC0:
            continue
        if lead < 0xC0:
            return None
        length = 2 if lead < 0xE0 else 3 if lead < 0xF0 else 4
        return (lead_at, length) if length > back else None
    return None


def _safe_before(
    data: bytes, spans: list[tuple[int, int]], escape_starts: list[int], at: int, floor: int
) -> int:
    """``at`` moved back to the start of the escape or UTF-8 sequence it would split."""
    escape = _covering_escape(spans, escape_starts, at)
    if escape is not None:
        return escape[0]
    sequence = _utf8_start(data, at, floor)
    return sequence[0] if sequence is not None else at


def _safe_after(
    data: bytes, spans: list[tuple[int, int]], escape_starts: list[int], at: int, stop: int
) -> int:
    """``at`` moved forward past the escape or UTF-8 sequence it would split."""
    escape = _covering_escape(spans, escape_starts, at)
    if escape is not None:
        return escape[1]
    sequence = _utf8_start(data, at, 0)
    return min(sequence[0] + sequence[1], stop) if sequence is not None else at


def _assemble(
    starts: list[int], texts: list[str | None], base_offset: int, target_chars: int
) -> list[TerminalChunk]:
    """Group units into chunks of about ``target_chars``; a chunk never starts with a blank."""
    chunks: list[TerminalChunk] = []
    count = len(texts)
    index = 0
    while index < count:
        first = texts[index]
        index += 1
        if not first or first.isspace():
            continue  # hidden or blank: the next chunk starts at real text
        chunk_start = starts[index - 1]
        parts = [first]
        size = len(first)
        while index < count:
            text = texts[index]
            if text:
                if size + len(text) > target_chars:
                    break
                parts.append(text)
                size += len(text)
            index += 1
        chunks.append(TerminalChunk(base_offset + chunk_start, "".join(parts)))
    return chunks
