"""What a definition line looks like (``def x``, ``#define x``, ``x =``, a C function at column
0…): one pattern text in two dialects, POSIX ERE for ``git grep -E`` (``grep_definitions`` in
``engine.delegates.files``) and Python's for ranking a line already found (``is_definition``),
so both agree on what a definition is."""

# warm path: a warm `ade search` imports this; keep its imports light (ARCHITECTURE: The warm path)

from __future__ import annotations

import functools
import re
from collections.abc import Callable

_KEYWORDS = (
    "def|class|fn|func|function|struct|union|enum|trait|interface|type|typedef|impl|module|"
    "macro|sub|proc|let|const|var|val|local"
)
"""Words that introduce a definition in common languages (Python, Rust, Go, JS/TS, C, Ruby…)."""

_MODIFIERS = (
    "export|pub|public|private|protected|internal|static|async|inline|extern|final|abstract|"
    "override|default|unsafe|declare"
)


def definition_source(words: list[str], *, ere: bool, lines: bool = False) -> str:
    """The definition-line pattern for ``words``, as POSIX ERE (for ``git grep -E``) or as a
    Python regex: one text, two dialects, so both passes agree on what a definition is.
    ``lines`` (Python only): the same pattern for many lines, each after a newline, read with
    ``re.MULTILINE``: a match starts at the newline before its line (a literal first character
    lets the search skip to the newlines) and every class keeps off the newline, so it stays
    in its line."""
    space, other = ("[[:space:]]", "[^[:alnum:]_]") if ere else (r"\s", r"[^A-Za-z0-9_]")
    if lines:
        space, other = r"[^\S\n]", r"[^A-Za-z0-9_\n]"
    no_paren, no_equals = (r"[^)\n]", r"[^=\n]") if lines else ("[^)]", "[^=]")
    blank = "[[:blank:]*]" if ere else r"[ \t*]"
    c_type = "[[:alpha:]_][[:alnum:]_[:blank:]*]*" if ere else r"[A-Za-z_][A-Za-z0-9_ \t*]*"
    forms = []
    for word in sorted(set(words), key=len, reverse=True):
        w = _ere_escape(word) if ere else re.escape(word)
        end = f"({other}|$)"
        forms += [
            # def x, class x, pub fn x, export function x, func (r *T) x, let x, const x
            f"^{space}*(({_MODIFIERS}){space}+)*({_KEYWORDS}){space}+(\\({no_paren}*\\){space}*)?{w}{end}",
            f"^{space}*#{space}*define{space}+{w}{end}",  # #define x
            f"^{space}*{w}{space}*(:{no_equals}*)?=({no_equals}|$)",  # x = …, x: T = …
            f"^{c_type}{blank}{w}{space}*\\(",  # void x(…) at column 0: a C definition
            f"^{w}{space}*\\(",  # x(…) at column 0, its type on the line above
        ]
    if lines:
        return "\n(?:" + "|".join(form.removeprefix("^") for form in forms) + ")"
    return "|".join(forms)


def _ere_escape(word: str) -> str:
    return "".join(f"\\{ch}" if ch in "\\.[]()*+?{}|^$" else ch for ch in word)


@functools.lru_cache(maxsize=32)
def definition_re(words: tuple[str, ...]) -> re.Pattern[str]:
    return re.compile(definition_source(list(words), ere=False), re.IGNORECASE)


@functools.lru_cache(maxsize=32)
def _lowereddefinition_re(words: tuple[str, ...]) -> re.Pattern[str]:
    return re.compile(definition_source(list(words), ere=False))


def is_definition(text: str, words: list[str]) -> bool:
    """Whether ``text`` is a line that defines one of ``words`` (not merely mentions it)."""
    if not words:
        return False
    if text.isascii() and all(w.isascii() for w in words):
        # The same answer at a third of the compile: every class of the pattern holds both cases
        # of a letter, so lowered ASCII text against the lowered pattern is the case-blind match.
        lowered = tuple(w.lower() for w in words)
        return _lowereddefinition_re(lowered).search(text.lower()) is not None
    return definition_re(tuple(words)).search(text) is not None


@functools.lru_cache(maxsize=32)
def _lines_re(words: tuple[str, ...], flags: int) -> re.Pattern[str]:
    return re.compile(definition_source(list(words), ere=False, lines=True), flags | re.MULTILINE)


def definition_lines(words: list[str]) -> Callable[[list[str]], list[int]]:
    """:func:`is_definition` of a file's lines at once: the indexes (ascending) of the lines of
    ``texts`` (no newline in any) that define one of ``words``, from one search of the lines
    joined (``definition_source(lines=True)``: each match starts at the newline before its
    line and stays in that line). A common word's ~100,000 file lines are ~3,000 searches."""
    if not words:
        return lambda _texts: []
    ascii_words = all(w.isascii() for w in words)
    lowered_key = tuple(w.lower() for w in words)
    key = tuple(words)
    # Each pattern compiled on the first file that needs it (a query whose words no tracked
    # file holds compiles none: ~0.4 ms a query of new words, `_lines_re` caching the rest)

    def lines(texts: list[str]) -> list[int]:
        text = "\n" + "\n".join(texts)
        if ascii_words and text.isascii():
            found = _lines_re(lowered_key, 0).finditer(text.lower())
        else:
            found = _lines_re(key, re.IGNORECASE).finditer(text)
        out: list[int] = []
        at, index = 0, -1
        for match in found:  # at a newline: the one before line `index`
            index += text.count("\n", at, match.start() + 1)
            at = match.start() + 1
            out.append(index)
        return out

    return lines
