"""Turn raw terminal bytes into the text a reader saw, one output line per raw line.

The sanitizer is what keeps hostile bytes out of the index (RELIABILITY 8): escape sequences are
stripped (``\\x1b[31merror`` must index as ``error``, not ``31merror``), control characters are
dropped (so the snippet markers ``\\x01``/``\\x02`` can never occur in indexed text), invalid
UTF-8 decodes with replacement, ``\\r``/``\\b`` rewrites resolve to the final visible state of each
line, and the text of alternate-screen regions (vim, less, htop) is left out.

Two rules make the result independent of how the bytes were sliced, which the chunker relies on:

* An escape sequence never spans a ``\\n``. A string sequence (OSC, DCS, APC, PM, SOS) ends at its
  terminator, at any ESC, at CAN/SUB, or at the end of its line — so an unterminated or malformed
  sequence can swallow at most the rest of one line, never the transcript.
* Every raw ``\\n`` yields exactly one output line and nothing else yields one, so output line *i*
  came from raw line *i*. (UTF-8 decoding never consumes a ``\\n``: it is ASCII.)

Known limits: one code point is one cell (wide CJK characters and combining marks are not
measured), a tab is one cell, and cursor movement across lines (``ESC[nA``, used by multi-line
progress displays) is not modelled, so each redrawn frame stays as its own line.
"""

# warm path: a warm `ade search` imports this; keep its imports light (ARCHITECTURE: The warm path)

from __future__ import annotations

import functools
import re
from collections.abc import Callable

ESC_SEQ_PATTERN = (
    r"\x1b(?:"
    # CSI: parameters, intermediates, final byte. A missing final byte strips what is there.
    r"\[[0-?]*[ -/]*[@-~]?"
    # OSC, DCS, SOS, PM, APC strings: end at BEL or ST; cut short by ESC, CAN, SUB or newline.
    r"|[\]PX^_][^\x07\x1b\n\x18\x1a]*(?:\x07|\x1b\\)?"
    # nF (charset selects such as ESC ( B), Fp/Fe/Fs two-byte escapes, or a lone ESC.
    r"|[ -/]*[0-~]?"
    r")"
)
"""One grammar for every escape family; ASCII-only, so it reads bytes and decoded text alike."""

ESC_RE = re.compile(ESC_SEQ_PATTERN)
"""Escape sequences in decoded text."""


@functools.cache
def esc_bytes_re() -> re.Pattern[bytes]:
    """The same grammar over raw bytes, used to find safe cut points inside a long line.

    This and the patterns of the cell model and the alternate screen below are compiled on first
    use: a search's snippets rarely need them (journal: "Regexes compiled lazily")."""
    return re.compile(ESC_SEQ_PATTERN.encode("ascii"))


@functools.cache
def control_re() -> re.Pattern[str]:
    """C0 and C1 controls except ``\\n`` and ``\\t``: never indexed (snippet markers are
    ``\\x01``/``\\x02``). Compiled on first use: ``_may_hold_controls`` rules most text out."""
    return re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]+")


_CRLF_RE = re.compile(r"\r+\n")
"""A carriage return right before a newline changes nothing visible."""

_CURSOR_RE = re.compile(r"[\r\b]|\x1b\[[0-9;]*[KGCD`]")
"""What moves the cursor within a line or erases it: such lines need the cell model."""


@functools.cache
def _alt_re() -> re.Pattern[str]:
    """DEC private mode set/reset; the alternate screen is modes 1049, 1047 and 47."""
    return re.compile(r"\x1b\[\?([0-9;]*)([hl])")


ALT_MODES = frozenset({"1049", "1047", "47"})
"""The three private modes that switch to (``h``) or from (``l``) the alternate screen."""

OTHER_ESC_PATTERN = (
    r"\x1b(?:\[[0-9;]*m|(?!\[[0-9;]*[KGCD`])" + ESC_SEQ_PATTERN.removeprefix(r"\x1b") + ")"
)
"""Every escape sequence except the cursor CSIs the cell model obeys (ASCII: bytes or text).

A colour (SGR, ``ESC[…m``: every escape of the 10 MB corpus's terminal logs) is its first
branch, matched without the look-ahead and the alternation behind it: the same spans
(``tests/engine/test_terminal_esc_pattern.py``), a third less time stripping a terminal slice."""


@functools.cache
def _other_esc_re() -> re.Pattern[str]:
    """Escapes the cell model ignores, in decoded text."""
    return re.compile(OTHER_ESC_PATTERN)


@functools.cache
def _other_control_re() -> re.Pattern[str]:
    """Controls the cell model ignores: all but ``\\b``, ``\\t``, ``\\r`` and ESC."""
    return re.compile(r"[\x00-\x07\x0b\x0c\x0e-\x1a\x1c-\x1f\x7f-\x9f]+")


@functools.cache
def _line_token_re() -> re.Pattern[str]:
    """Tokens of a pre-stripped line: a cursor CSI, ``\\r`` or ``\\b``, or a run of text."""
    return re.compile(r"\x1b\[[0-9;]*[KGCD`]|[\r\b]|[^\x1b\r\b]+")


@functools.cache
def _cursor_csi_re() -> re.Pattern[str]:
    """The cursor CSIs the cell model obeys: erase in line, column absolute, forward, back."""
    return re.compile(r"\x1b\[([0-9;]*)([KGCD`])")


MAX_COLUMN = 1000
"""Cursor columns are clamped here so ``ESC[99999999G`` cannot allocate a huge line."""

_BLANK = "\x00"
"""An erased or skipped cell; raw NULs are stripped before text reaches the cells."""


def sanitize_lines(raw: bytes, alt_screen: bool) -> tuple[list[str | None], bool]:
    """Sanitize a block of raw bytes into one entry per raw line.

    Args:
        raw: Raw terminal bytes; any escape sequence in it is read as complete.
        alt_screen: Whether the block starts inside an alternate-screen region.

    Returns:
        ``(lines, alt_screen)``: ``len(lines) == raw.count(b"\\n") + 1``; the last entry is the
        text after the final newline. ``None`` marks a line wholly inside an alternate-screen
        region. The flag is the alternate-screen state after the block.
    """
    text = raw.decode("utf-8", "replace")
    if "\r" in text:
        text = _CRLF_RE.sub("\n", text)
    if alt_screen or ("\x1b[?" in text and _find_alt_toggle(text) is not None):
        return _sanitize_with_alt_screen(text, alt_screen)
    lines: list[str | None] = list(_clean_block(text).split("\n"))
    return lines, False


def _find_alt_toggle(text: str, start: int = 0) -> re.Match[str] | None:
    """The next private-mode CSI at or after ``start`` that switches the alternate screen."""
    for match in _alt_re().finditer(text, start):
        if not ALT_MODES.isdisjoint(match.group(1).split(";")):
            return match
    return None


def clean_text(text: str) -> str:
    """Strip escape sequences and controls (keeping ``\\n``/``\\t``) without the cell model."""
    if "\x1b" in text:
        text = ESC_RE.sub("", text)
    return control_re().sub("", text) if _may_hold_controls(text) else text


_C0_BYTES = bytes([*range(0x00, 0x09), *range(0x0B, 0x20), 0x7F])
"""``control_re``'s C0 controls and DEL, as bytes."""


def python_may_hold_controls(text: str) -> bool:
    """Whether ``control_re`` can match: a C0 control or DEL, or a ``\\xc2`` lead byte (C1
    controls are U+0080-U+009F, ``\\xc2\\x80``-``\\xc2\\x9f``). Two C loops over the bytes instead
    of ``re`` stepping through every character: 7x faster on text that holds none (journal)."""
    raw = text.encode("utf-8", "surrogatepass")
    return len(raw.translate(None, _C0_BYTES)) != len(raw) or b"\xc2" in raw


def compiled_may_hold_controls() -> Callable[[str], bool] | None:
    """``engine/terminal/native/escapes.c``'s twin of :func:`python_may_hold_controls` (the same
    answer, read off the code points in one pass: no encoding, no translated copy; ~1% of a
    first index's CPU), or None when the install could not compile it."""
    try:
        from engine.terminal._escapes_c import may_hold_controls
    except ImportError:  # installed without a C compiler (README: "Compiled parts")
        return None
    return may_hold_controls


def _bind_may_hold_controls(text: str) -> bool:
    # Bound at the first call, not at import: a warm search that sanitizes nothing never loads
    # the module (the start-up budget).
    global _may_hold_controls
    _may_hold_controls = compiled_may_hold_controls() or python_may_hold_controls
    return _may_hold_controls(text)


_may_hold_controls: Callable[[str], bool] = _bind_may_hold_controls
"""What :func:`clean_text` asks: the compiled twin where it was built."""


def sanitize_indexed_text(text: str) -> str:
    """Make chat, PR or commit text safe to index: the snippet markers can never survive.

    Drops control characters except ``\\n`` and ``\\t`` (a lone ``\\r`` becomes a newline so
    lines do not glue into one token) and strips escape sequences that pasted terminal output
    brings along, so ``\\x1b[31merror`` indexes as ``error``.
    """
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    return clean_text(text)


def _clean_block(text: str) -> str:
    """Clean a block, sending only the lines that move the cursor through the cell model."""
    match = _CURSOR_RE.search(text)
    if match is None:
        return clean_text(text)
    parts: list[str] = []
    done = 0
    while match is not None:
        line_start = text.rfind("\n", 0, match.start()) + 1
        line_end = text.find("\n", match.end())
        if line_end < 0:
            line_end = len(text)
        parts.append(clean_text(text[done:line_start]))
        parts.append(resolve_line(text[line_start:line_end]))
        done = line_end
        match = _CURSOR_RE.search(text, line_end)
    parts.append(clean_text(text[done:]))
    return "".join(parts)


def resolve_line(line: str) -> str:
    """Replay one line (no ``\\n``) on a row of cells and return what stays visible.

    ``10%\\r20%\\r100%`` gives ``100%``; ``hello\\rHe`` gives ``Hello`` (a shorter rewrite leaves
    the tail visible, as on a real terminal); ``ab\\bc`` gives ``ac``; ``ESC[K`` erases.
    """
    return resolve_stripped_line(_other_control_re().sub("", _other_esc_re().sub("", line)))


def resolve_stripped_line(line: str) -> str:
    """:func:`resolve_line` for a line whose only escapes and controls are the ones it obeys.

    That is a line already passed through ``OTHER_ESC_PATTERN`` and the ignored controls (the
    block sanitizer in :mod:`engine.terminal.block` strips a whole slice at once).
    """
    if "\b" not in line:
        if "\x1b" not in line:
            return _overlay_frames(line.split("\r"))
        if line.count("\x1b") == 1 and line.endswith(("\x1b[K", "\x1b[0K")):
            # A progress line: frames, then erase to the end. Only the last frame stays.
            body = line[: line.rindex("\x1b")]
            return body[body.rfind("\r") + 1 :]
    cells: list[str] = []
    col = 0
    for token in _line_token_re().findall(line):
        first = token[0]
        if first == "\r":
            col = 0
        elif first == "\b":
            col = max(col - 1, 0)
        elif first == "\x1b":
            col = _apply_cursor_csi(token, cells, col)
        else:
            if col > len(cells):
                cells.extend(_BLANK * (col - len(cells)))
            cells[col : col + len(token)] = token
            col += len(token)
    return "".join(cells).rstrip(_BLANK).replace(_BLANK, " ")


def _overlay_frames(frames: list[str]) -> str:
    """Frames each written from column 0: the last one, plus what longer earlier ones leave."""
    visible = frames[-1]
    for frame in reversed(frames[:-1]):
        if len(frame) > len(visible):
            visible += frame[len(visible) :]
    return visible


def _apply_cursor_csi(token: str, cells: list[str], col: int) -> int:
    """Apply an erase or horizontal-move CSI to the cells; return the new column."""
    match = _cursor_csi_re().fullmatch(token)
    if match is None:
        return col  # any other escape is invisible and leaves the cursor alone
    param_text = match.group(1).split(";", 1)[0]
    param = min(int(param_text), MAX_COLUMN) if param_text else 0
    final = match.group(2)
    if final == "K":
        if param == 0:
            del cells[col:]
        elif param == 1:
            end = min(col + 1, len(cells))
            cells[:end] = _BLANK * end
        else:
            cells[:] = _BLANK * len(cells)
        return col
    step = max(param, 1)
    if final in "G`":
        return min(step - 1, MAX_COLUMN)
    if final == "C":
        return min(col + step, MAX_COLUMN)
    return max(col - step, 0)


def _sanitize_with_alt_screen(text: str, alt_screen: bool) -> tuple[list[str | None], bool]:
    """The slow path for blocks that touch the alternate screen: split visible from hidden."""
    pieces: list[tuple[str, bool]] = []
    done = 0
    match = _find_alt_toggle(text)
    while match is not None:
        pieces.append((text[done : match.start()], not alt_screen))
        alt_screen = match.group(2) == "h"
        done = match.end()
        match = _find_alt_toggle(text, done)
    pieces.append((text[done:], not alt_screen))
    lines: list[str | None] = []
    current: list[str] = []  # visible text of the line being built, already cleaned
    for piece, visible in pieces:
        if visible:
            # A newline the user saw ends a visible (maybe blank) line.
            *ended, last = _clean_block(piece).split("\n")
            for part in ended:
                lines.append("".join(current) + part)
                current = []
            current.append(last)
        else:
            # A hidden newline ends a visible line only if some of its text was seen.
            for _ in range(piece.count("\n")):
                lines.append("".join(current) or None)
                current = []
    lines.append("".join(current) or None)
    return lines, alt_screen
