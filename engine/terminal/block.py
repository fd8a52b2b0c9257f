"""Sanitize a whole slice of terminal bytes at once: the chunker's fast path.

:func:`engine.terminal.sanitize.sanitize_lines` works on decoded text, line list out. This module
gives the same text for a whole slice with a handful of C-level passes over the raw bytes:

* CR LF folding, escape stripping and control stripping run as ``bytes`` operations — a byte
  regex over one-byte units is 2-4x faster than the same regex over the decoded text, which is
  two bytes a character as soon as the transcript holds one ``✓``;
* only the lines that still hold a ``\\r``, ``\\b`` or a cursor CSI after stripping go through the
  cell model, one line each; everything else is decoded once.

It applies to valid UTF-8 only: decoding with replacement and then stripping can differ from
stripping and then decoding when an escape sequence interrupts a multi-byte character, so
:func:`sanitize_block` returns ``None`` for invalid UTF-8 and the caller uses the line-by-line
path. Equality with that path is hypothesis-tested (tests/engine/test_terminal_block.py).
"""

# warm path: a warm `ade search` imports this; keep its imports light (ARCHITECTURE: The warm path)

from __future__ import annotations

import functools
import re
from collections.abc import Callable

import msgspec

from engine.terminal.sanitize import ALT_MODES, OTHER_ESC_PATTERN, resolve_stripped_line

_OTHER_ESC_BYTES_RE = re.compile(OTHER_ESC_PATTERN.encode("ascii"))
"""Escapes the cell model ignores, over raw bytes."""


def python_strip_other_escapes(raw: bytes) -> bytes:
    """``raw`` without the escapes the cell model ignores (``OTHER_ESC_PATTERN``)."""
    return _OTHER_ESC_BYTES_RE.sub(b"", raw)


def _compiled_strip_other_escapes() -> Callable[[bytes], bytes] | None:
    try:
        from engine.terminal._escapes_c import strip_other_escapes as compiled
    except ImportError:  # installed without a C compiler (README: "Compiled parts")
        return None
    return compiled


compiled_strip_other_escapes = _compiled_strip_other_escapes()
"""``engine/terminal/native/escapes.c``'s twin of :func:`python_strip_other_escapes` (the same
bytes; ``re.sub`` made a match object for each of the ~108,000 colours of a 10 MB first index's
logs), or None when the install could not compile it."""

strip_other_escapes: Callable[[bytes], bytes] = (
    compiled_strip_other_escapes or python_strip_other_escapes
)
"""What :func:`clean_bytes` strips escapes with: the compiled twin where it was built."""

_IGNORED_C0 = bytes([*range(0x00, 0x08), 0x0B, 0x0C, *range(0x0E, 0x1B), *range(0x1C, 0x20), 0x7F])
"""C0 controls and DEL the cell model ignores (all but ``\\b``, ``\\t``, ``\\n``, ``\\r``, ESC)."""

# These three are compiled on first use: the raw bytes of a search's terminal snippet rarely hold
# what they find (journal: "Regexes compiled lazily").


@functools.cache
def _ignored_control_bytes_re() -> re.Pattern[bytes]:
    """The same controls plus C1 (U+0080-U+009F, ``\\xc2\\x80``-``\\xc2\\x9f`` in UTF-8)."""
    return re.compile(rb"[" + re.escape(_IGNORED_C0) + rb"]+|\xc2[\x80-\x9f]")


@functools.cache
def _crlf_bytes_re() -> re.Pattern[bytes]:
    """Carriage returns right before a newline change nothing visible."""
    return re.compile(rb"\r+\n")


@functools.cache
def _alt_bytes_re() -> re.Pattern[bytes]:
    """A DEC private mode set/reset with an alternate-screen mode among its parameters: the span
    of ``_alt_re`` in ``engine.terminal.sanitize`` whose split parameters meet ``ALT_MODES``,
    found without visiting the cursor show/hide sequences (``ESC[?25l``) one by one in Python."""
    return re.compile(
        rb"\x1b\[\?(?:[0-9;]*;)?(?:%s)(?:;[0-9;]*)?([hl])"
        % b"|".join(sorted((mode.encode("ascii") for mode in ALT_MODES), reverse=True))
    )


class Block(msgspec.Struct, frozen=True):
    """A sanitized slice: the visible lines' text and where each came from."""

    text: str
    """Every visible line with its ``\\n`` (the unterminated last one without); hidden lines
    (alternate screen) are left out entirely."""
    runs: list[tuple[int, int]]
    """``(visible_line, raw_line)`` at each point where hidden lines were skipped, starting with
    ``(0, 0)``: visible line *v* is raw line ``raw + v - visible`` of the last run at or before
    *v*."""
    alt_screen: bool
    """Whether the slice ends inside an alternate-screen region."""


def sanitize_block(raw: bytes, alt_screen: bool) -> Block | None:
    """Sanitize ``raw`` like ``sanitize_lines``, as one text; ``None`` when it is not UTF-8.

    Args:
        raw: Raw terminal bytes; any escape sequence in it is read as complete.
        alt_screen: Whether the block starts inside an alternate-screen region.
    """
    if not raw.isascii():
        try:
            raw.decode("utf-8")
        except UnicodeDecodeError:
            return None
    if b"\r\n" in raw:
        raw = raw.replace(b"\r\n", b"\n")
        if b"\r\n" in raw:  # \r\r\n: the replace left one \r of each run
            raw = _crlf_bytes_re().sub(b"\n", raw)
    if alt_screen or (b"\x1b[?" in raw and _alt_toggle(raw, 0) is not None):
        return _alt_block(raw, alt_screen)
    return Block(clean_bytes(raw), [(0, 0)], False)


def clean_bytes(raw: bytes) -> str:
    """``_clean_block(raw.decode())`` for valid UTF-8 with CR LF already folded.

    Stripping the ignored escapes and controls first leaves exactly what the cell model of each
    line would start from (neither can span a ``\\n``), so lines without ``\\r``, ``\\b`` or an
    ESC left are final, and the others are resolved one by one.
    """
    if b"\x1b" in raw:
        raw = strip_other_escapes(raw)
    if len(raw.translate(None, _IGNORED_C0)) != len(raw) or b"\xc2" in raw:
        raw = _ignored_control_bytes_re().sub(b"", raw)
    text = raw.decode("utf-8")
    if "\r" in text or "\b" in text or "\x1b" in text:
        return _resolve_lines(text)
    return text


def _resolve_lines(text: str) -> str:
    """Run every line that holds a ``\\r``, ``\\b`` or ESC through the cell model."""
    parts: list[str] = []
    done = 0
    size = len(text)
    next_cr, next_bs, next_esc = text.find("\r"), text.find("\b"), text.find("\x1b")
    while True:
        hit = size
        if 0 <= next_cr < hit:
            hit = next_cr
        if 0 <= next_bs < hit:
            hit = next_bs
        if 0 <= next_esc < hit:
            hit = next_esc
        if hit == size:
            break
        start = text.rfind("\n", 0, hit) + 1
        end = text.find("\n", hit)
        if end < 0:
            end = size
        parts.append(text[done:start])
        parts.append(resolve_stripped_line(text[start:end]))
        done = end
        # Each finder moves only once passed, so every character is searched for once.
        if 0 <= next_cr < end:
            next_cr = text.find("\r", end)
        if 0 <= next_bs < end:
            next_bs = text.find("\b", end)
        if 0 <= next_esc < end:
            next_esc = text.find("\x1b", end)
    parts.append(text[done:])
    return "".join(parts)


def _alt_toggle(raw: bytes, start: int) -> re.Match[bytes] | None:
    """The next private-mode CSI at or after ``start`` that switches the alternate screen."""
    return _alt_bytes_re().search(raw, start)


def _alt_block(raw: bytes, alt_screen: bool) -> Block:
    """A block that touches the alternate screen: keep visible pieces, map lines past hidden."""
    parts: list[str] = []
    runs = [(0, 0)]
    visible_line = raw_line = 0  # the line being built
    has_text = False  # it has visible text so far (then a hidden newline still shows it)
    done = 0
    match = _alt_toggle(raw, 0)
    while True:
        piece = raw[done : match.start()] if match is not None else raw[done:]
        if not alt_screen:
            text = clean_bytes(piece)
            parts.append(text)
            ended = text.count("\n")
            visible_line += ended
            raw_line += ended
            if ended:
                has_text = not text.endswith("\n")
            elif text:
                has_text = True
        elif b"\n" in piece:
            hidden = piece.count(b"\n")
            if has_text:  # a hidden newline ends a line some of whose text was seen
                parts.append("\n")
                visible_line += 1
                raw_line += 1
                hidden -= 1
            has_text = False
            if hidden:
                raw_line += hidden
                if runs[-1][0] == visible_line:
                    runs[-1] = (visible_line, raw_line)
                else:
                    runs.append((visible_line, raw_line))
        if match is None:
            break
        alt_screen = match.group(1) == b"h"
        done = match.end()
        match = _alt_toggle(raw, done)
    return Block("".join(parts), runs, alt_screen)


_BLANK_LINES_RE = re.compile(r"(?:[^\S\n]*+\n)*+")
"""Whole lines of whitespace only (``\\s`` is exactly ``str.isspace``): a chunk never starts there."""

_SKIP_POWERS = 17


@functools.cache
def _skip_lines_re(power: int) -> re.Pattern[bytes]:
    """Skip 2**power raw lines in one C-level match: a chunk's raw offset without a per-line
    loop (compiled when first needed: a snippet needs a few of the 17, start-up none)."""
    return re.compile(rb"(?:[^\n]*+\n){%d}" % (1 << power))


@functools.lru_cache(maxsize=8)
def _long_line_re(cap: int) -> re.Pattern[bytes]:
    """A newline followed by ``cap`` bytes that are not one: a line the chunker must cut."""
    return re.compile(rb"\n[^\n]{%d}" % cap)


def may_hold_a_long_line(data: bytes, end: int, cap: int) -> bool:
    """Whether ``data[:end]`` may hold a run of ``cap`` bytes without a newline; False only
    when it holds none.

    Such a run holds a whole window ``[k * w, (k + 1) * w)`` of ``w = cap // 2`` bytes (a run of
    ``2 * w - 1`` bytes already does), so a newline in every window rules it out: a few
    ``bytes.find`` calls that stop at a window's first newline, instead of ``_long_line_re``
    walking every line to its end (0.2 against 4.5 ms over the 10 MB corpus's 6.3 MB of logs).
    """
    width = cap // 2
    if width < 1:
        return True
    return not all(data.find(b"\n", at, at + width) >= 0 for at in range(0, end - width + 1, width))


def chunk_block(
    data: bytes, end: int, base_offset: int, alt_screen: bool, target_chars: int, cap: int
) -> tuple[list[tuple[int, str]], bool] | None:
    """Chunk ``data[:end]`` as ``engine.terminal.chunking`` does, or ``None`` to fall back.

    Falls back (``None``) when a line is longer than ``cap`` bytes (it must be cut, which the
    line-by-line path does) or the bytes are not UTF-8.

    Returns:
        ``(offset, text)`` of every chunk, and the alternate-screen state after ``end``.
    """
    first = data.find(b"\n", 0, end)
    if (first + 1 if first >= 0 else end) > cap or (
        may_hold_a_long_line(data, end, cap) and _long_line_re(cap).search(data, 0, end)
    ):
        return None
    raw = data if end == len(data) else data[:end]
    block = sanitize_block(raw, alt_screen)
    if block is None:
        return None
    return _assemble(block, raw, base_offset, target_chars), block.alt_screen


def _assemble(block: Block, raw: bytes, base_offset: int, target: int) -> list[tuple[int, str]]:
    """Greedy chunks of whole lines up to ``target`` characters, each from a non-blank line.

    The same rule as the line-by-line assembly: a chunk takes its first line whatever its length
    and then every following line while the total stays within ``target``.
    """
    text, runs = block.text, block.runs
    size = len(text)
    chunks: list[tuple[int, str]] = []
    pos = _skip_blank(text, 0)
    line = text.count("\n", 0, pos)  # visible line index of ``pos``
    run = 0
    raw_pos = raw_line = 0  # a raw line start and its index, moved forward only
    while pos < size:
        limit = pos + target
        if limit >= size:
            stop = size
        else:
            newline = text.rfind("\n", pos, limit)
            if newline < 0:  # the first line alone is longer than the target
                newline = text.find("\n", limit)
            stop = size if newline < 0 else newline + 1
        while run + 1 < len(runs) and runs[run + 1][0] <= line:
            run += 1
        wanted = runs[run][1] + line - runs[run][0]
        raw_pos = _skip_lines(raw, raw_pos, wanted - raw_line)
        raw_line = wanted
        chunks.append((base_offset + raw_pos, text[pos:stop]))
        following = _skip_blank(text, stop)
        line += text.count("\n", pos, following)
        pos = following
    return chunks


def _skip_blank(text: str, pos: int) -> int:
    """The start of the first non-blank line at or after ``pos`` (``len(text)`` if none)."""
    pos = _BLANK_LINES_RE.match(text, pos).end()  # type: ignore[union-attr]  # always matches
    if text.find("\n", pos) < 0 and (pos == len(text) or text[pos:].isspace()):
        return len(text)
    return pos


def _skip_lines(raw: bytes, pos: int, count: int) -> int:
    """The position after the ``count``-th newline at or after ``pos``."""
    while count > 0:
        power = min(count.bit_length() - 1, _SKIP_POWERS - 1)
        pos = _skip_lines_re(power).match(raw, pos).end()  # type: ignore[union-attr]
        count -= 1 << power
    return pos
