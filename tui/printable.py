"""The output boundary: text other people wrote, made safe to print on a terminal.

PR titles, commit subjects, branch names, file lines, chat titles and scrollback are written by
whoever opened the PR, authored the commit or added the file. Printed raw, their control bytes
are commands to the reader's terminal: OSC 52 writes the clipboard, OSC 8 hides a link behind
text, OSC 0 retitles the window, ``CSI 2J`` clears the screen, and a C1 ``U+009B`` is a CSI on
terminals that read 8-bit controls. Every text the CLI and the palette show passes one of these
functions (RELIABILITY 26; docs/output-safety.md):

* :func:`printable` — escape sequences are removed with the grammar the indexer strips them with
  (``engine.terminal.sanitize.ESC_SEQ_PATTERN``: a string sequence never runs past its line), every
  other control but tab and newline is shown in caret notation (BEL ``^G``, a lone ``\\r`` ``^M``,
  DEL ``^?``, C1 ``U+009B`` ``^[[``: its 7-bit spelling), and bidi embeddings, overrides and
  isolates (U+202A-202E, U+2066-2069), which make text read in another order than it runs
  ("Trojan Source"), are dropped.
* :func:`printable_spans` — the same for a snippet with match ranges, ranges moved to fit.
* :func:`printable_colour` — ``ade open --raw``: SGR colours kept, everything else as above.
* :func:`printable_json` — JSON keeps the text; what is left raw by JSON encoders (DEL, C1, the
  bidi controls, U+2028/2029) is written as a ``\\uXXXX`` escape, so the same value decodes and
  no raw control reaches a terminal that shows the JSON.
* :func:`printable_input` — a pasted query: controls become spaces, bidi controls go.

Text with none of these characters is returned as is (``str.isprintable``, then a compiled-regex
scan where that refuses a harmless character: both in C): the boundary costs nothing on
ordinary output.
"""

# warm path: a warm `ade search` imports this; keep its imports light (ARCHITECTURE: The warm path)

from __future__ import annotations

from engine.basics.text import compiled_on_first_use

TYPE_CHECKING = False  # `typing` costs a daemon-answered search ~3 ms (the start-up budget)
if TYPE_CHECKING:
    import re
    from collections.abc import Iterable

_BIDI = "\u202a-\u202e\u2066-\u2069"
"""Bidi embeddings and overrides (LRE RLE PDF LRO RLO) and isolates (LRI RLI FSI PDI)."""


_unsafe_re = compiled_on_first_use(f"[\x00-\x08\x0b-\x1f\x7f-\x9f{_BIDI}]")
"""Anything :func:`printable` changes: C0 but tab and newline, DEL, C1, bidi controls. Each is
of a Unicode category ``str.isprintable`` refuses (Cc, Cf), so printable text needs no scan, nor
``re`` (a daemon-answered search's start-up budget). A class mixing code points above U+00FF
with Latin-1 ones costs ~0.4 ms to compile: every pattern here is compiled on first use."""


def _caret(code: int) -> str:
    """``cat -v``'s spelling of a control: ``^G`` for BEL, ``^?`` for DEL, ``^[[`` for C1 CSI."""
    if code == 0x7F:
        return "^?"
    if code >= 0x80:  # a C1 control is ESC plus the byte 0x40 lower: U+009B is ESC [
        return "^[" + chr(code - 0x40)
    return "^" + chr(code + 0x40)


_VISIBLE: dict[int, str | None] = {
    **{code: _caret(code) for code in (*range(0x00, 0x09), *range(0x0B, 0x20), 0x7F)},
    **{code: _caret(code) for code in range(0x80, 0xA0)},
    **dict.fromkeys((*range(0x202A, 0x202F), *range(0x2066, 0x206A))),
}
"""The ``str.translate`` table of :func:`printable` (after escape sequences are removed)."""


def _without_escapes(text: str) -> str:
    """``text`` without its escape sequences, by the indexer's grammar (imported on first use:
    a daemon-answered ``ade search --json`` prints with nothing of the engine loaded)."""
    from engine.terminal.sanitize import ESC_RE

    return ESC_RE.sub("", text)


def printable(text: str) -> str:
    """``text`` as it may reach a terminal (see the module docstring); the same object if safe."""
    if text.isprintable() or _unsafe_re().search(text) is None:
        return text
    if "\x1b" in text:
        text = _without_escapes(text)
    if "\r\n" in text:
        text = text.replace("\r\n", "\n")  # a CRLF file's lines are not shown ending in ^M
    return text.translate(_VISIBLE)


_sgr_re = compiled_on_first_use(r"(\x1b\[[0-9;:]*m)")
"""Select Graphic Rendition: colours and bold, the only escape ``--raw`` keeps."""


def printable_colour(text: str) -> str:
    """:func:`printable`, keeping SGR colour sequences (``ade open --raw``)."""
    if text.isprintable() or _unsafe_re().search(text) is None:
        return text
    pieces = _sgr_re().split(text)  # even items: text; odd items: the SGR sequences between
    return "".join(piece if index % 2 else printable(piece) for index, piece in enumerate(pieces))


def printable_spans(
    text: str, spans: Iterable[tuple[int, int]]
) -> tuple[str, list[tuple[int, int]]]:
    """:func:`printable` of a text with highlighted ``(start, end)`` spans, spans moved to fit.

    Each piece between span edges is made printable on its own, so a span still covers exactly
    what it covered (an escape sequence cut by a span edge is removed piecewise: what is left of
    it is plain text). Spans are clamped to the text, sorted, and overlaps dropped.
    """
    ordered = sorted(spans)
    if text.isprintable() or _unsafe_re().search(text) is None:
        return text, _clamped(ordered, len(text))
    out: list[str] = []
    moved: list[tuple[int, int]] = []
    done = 0
    length = 0
    for start, end in ordered:
        start, end = max(start, done), min(end, len(text))
        if start >= end:
            continue
        before = printable(text[done:start])
        inner = printable(text[start:end])
        out += (before, inner)
        length += len(before)
        if inner:
            moved.append((length, length + len(inner)))
        length += len(inner)
        done = end
    out.append(printable(text[done:]))
    return "".join(out), moved


def _clamped(spans: list[tuple[int, int]], size: int) -> list[tuple[int, int]]:
    kept: list[tuple[int, int]] = []
    done = 0
    for start, end in spans:
        start, end = max(start, done), min(end, size)
        if start < end:
            kept.append((start, end))
            done = end
    return kept


_JSON_WIDE = ("\u2028", "\u2029", *map(chr, (*range(0x202A, 0x202F), *range(0x2066, 0x206A))))
"""The characters above U+00FF a JSON encoder leaves raw that must not reach a terminal: the
JavaScript line separators and the bidi controls."""


_json_narrow_re = compiled_on_first_use("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")
"""C0 (raw only in a hand-made or hostile line: encoders escape it), DEL and C1. Latin-1
only, so it compiles in ~0.07 ms; the wide characters are looked for with ``in``."""

_json_unsafe_re = compiled_on_first_use(f"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f{_BIDI}\u2028\u2029]")
"""Everything :func:`printable_json` escapes, for the rare document that holds some."""


def _json_escape(match: re.Match[str]) -> str:
    return f"\\u{ord(match.group()):04x}"


def printable_json(document: str) -> str:
    """Encoded JSON with every terminal-unsafe character written as a ``\\uXXXX`` escape.

    Such characters can only occur inside JSON strings (outside them JSON is ASCII), where the
    escape decodes to the same character: the value is unchanged, the bytes are safe.
    """
    if document.isprintable():  # every character it escapes is Cc, Cf, Zl or Zp
        return document
    if _json_narrow_re().search(document) is None and (
        document.isascii() or not any(wide in document for wide in _JSON_WIDE)
    ):
        return document
    return _json_unsafe_re().sub(_json_escape, document)


_INPUT_DROP: dict[int, str | None] = {
    **dict.fromkeys((*range(0x00, 0x20), 0x7F, *range(0x80, 0xA0)), " "),
    **dict.fromkeys((*range(0x202A, 0x202F), *range(0x2066, 0x206A))),
}
"""A pasted query: controls (newlines too: a query is one line) become spaces, bidi goes."""


def printable_input(text: str) -> str:
    """A pasted or typed query safe to echo in the palette's input line."""
    if "\x1b" in text:
        text = _without_escapes(text)
    return text.translate(_INPUT_DROP)
