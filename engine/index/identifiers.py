"""Identifier-aware index terms: the camelCase parts that ``unicode61`` cannot see.

``unicode61`` already splits on ``_``, ``.``, ``:``, ``-`` and ``/``, so ``connect_timeout``,
``foo.py:42`` and ``ABC-123`` are several tokens and a phrase query finds them. What it cannot do is
split inside a run of letters: ``TypeError`` is the single token ``typeerror``, so ``error`` (a
prefix query) never reaches it. We therefore index, in a third FTS column ``parts``, the distinct
camelCase parts of every identifier that has an internal case boundary (``Type Error``,
``Read Timeout Error``, ``connect Timeout``, ``HTTP Server``). The column is weighted apart from
the body so a document with the exact token ranks above one that only has it inside an identifier
(see ``engine.query.run``).

Measured cost (benchmarks/journal/waves-1-to-3.md): a class-mapping pass over the text at insert time and a
small column (each part stored once per document).
"""

# warm path: a warm `ade search` imports this; keep its imports light (ARCHITECTURE: The warm path)

from __future__ import annotations

import re
from typing import Protocol

_IDENT_PATTERN = r"(?<![A-Za-z0-9])[A-Za-z0-9]*?(?:[a-z0-9][A-Z]|[A-Z][A-Z][a-z])[A-Za-z0-9]*"
"""The definition: an ASCII word with a lower→Upper boundary or an ``ABc`` acronym boundary.

``identifiers`` finds exactly these matches without running the regex (the tests compare them),
so it is never compiled here.
"""

_PART_RE = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?=[A-Z][a-z])|[A-Z]+|[0-9]+")
"""Splits ``HTTPServerError2`` into ``HTTP``, ``Server``, ``Error``, ``2``.

The commonest part (``Server``, ``read``) is the first branch; it and the acronym branch never
both match at one place (the acronym's second letter is uppercase, a word part's lowercase), so
their order changes no split: the 110,970 parts of a 10 MB first index in 8.2 ms, not 10.1."""


def split_identifier(word: str) -> list[str]:
    """The camelCase parts of one identifier, in order (``readTimeout`` → ``read``, ``Timeout``)."""
    return _PART_RE.findall(word)


_CLASSES = bytes(
    ord("a") if 97 <= b <= 122 or 48 <= b <= 57 else ord("A") if 65 <= b <= 90 else 32
    for b in range(256)
)
"""``bytes.translate`` table: ASCII lowercase and digit → ``a``, uppercase → ``A``, else space."""

_PART_BYTES_RE = re.compile(_PART_RE.pattern.encode("ascii"))
"""``_PART_RE`` over the ASCII bytes of identifiers."""


def _identifier_words(raw: bytes) -> list[bytes]:
    """Every identifier of ``_IDENT_PATTERN`` in the UTF-8 ``raw``, in order (repeats included).

    An identifier is a maximal ASCII letter/digit run holding a case boundary: ``[a-z0-9][A-Z]``
    (``aA`` in class letters) or ``[A-Z][A-Z][a-z]`` (``AAa``, its last letter checked in
    ``raw``: digits share the class of lowercase letters). Instead of running the regex over
    every character (~12 MB/s in ``re``), the text is mapped to character classes with
    ``bytes.translate`` and the boundaries are found with ``bytes.find`` (C loops over the whole
    text); Python only visits the words. Each finder starts again after the word just found, so
    a word's other boundaries are never visited (``readTimeoutError`` is one step, not two; the
    10 MB corpus has 72,440 ``aA`` boundaries in 38,388 words). Non-ASCII bytes are separators,
    as for the regex.
    """
    cls = raw.translate(_CLASSES)
    lower = cls.find(b"aA")
    upper = _acronym_end(raw, cls, 0)
    words: list[bytes] = []
    while lower >= 0 or upper >= 0:
        at = upper if lower < 0 or 0 <= upper < lower else lower
        start = cls.rfind(b" ", 0, at) + 1
        end = cls.find(b" ", at)
        if end < 0:
            words.append(raw[start:])
            break
        words.append(raw[start:end])
        # The word ends at a space, so no boundary of it lies past ``end``; a finder already
        # past the word stays where it is.
        if 0 <= lower < end:
            lower = cls.find(b"aA", end)
        if 0 <= upper < end:
            upper = _acronym_end(raw, cls, end)
    return words


_ACRONYM_RE = re.compile(b"AAa")
"""The ``AAa`` boundary in class letters. ``re``'s literal-prefix search finds it in a text's
classes (all ``a``, ``A`` and spaces, where ``bytes.find``'s skip seldom skips) in 2.6x less
time than ``bytes.find``: 3.7 against 9.8 ms over the 8,090 bodies of a 10 MB first index,
nearly all of them without one."""


def _acronym_end(raw: bytes, cls: bytes, start: int) -> int:
    """The first ``AAa`` boundary at or after ``start`` whose last letter is a lowercase letter
    (not a digit), or -1."""
    found = _ACRONYM_RE.search(cls, start)
    while found is not None:
        at = found.start()
        if 97 <= raw[at + 2] <= 122:
            return at
        found = _ACRONYM_RE.search(cls, at + 1)
    return -1


def identifiers(text: str) -> list[str]:
    """Every identifier ``_IDENT_PATTERN`` finds in ``text``, in order (repeats included)."""
    return [word.decode("ascii") for word in _identifier_words(_utf8(text))]


def _utf8(text: str) -> bytes:
    return text.encode("utf-8", "surrogatepass")


def python_identifier_parts(*texts: str) -> str:
    """The distinct camelCase parts of every identifier in ``texts``, space-separated.

    Deterministic (first-seen order) and de-duplicated case-insensitively, because BM25 on this
    column only needs to know a part occurs, and duplicates would only grow the index. The
    distinct identifiers are split in one ``findall`` over them joined by spaces (a part never
    spans a space), as bytes: nothing is decoded until the answer.

    Args:
        texts: title and body text of one document.

    Returns:
        The ``parts`` column value; empty when no identifier has an internal case boundary.

    The product calls ``identifier_parts``: the compiled twin of this function when it was
    built, else this one (``tests/engine/index/test_identifiers_native.py`` holds them equal).
    """
    words: list[bytes] = []
    for text in texts:
        if text:  # a document's empty ``rank_title`` (every chat message and terminal chunk)
            words += _identifier_words(_utf8(text))
    if not words:
        return ""
    seen: dict[bytes, bytes] = {}
    for part in _PART_BYTES_RE.findall(b" ".join(dict.fromkeys(words))):
        seen.setdefault(part.lower(), part)
    return b" ".join(seen.values()).decode("ascii")


class IdentifierParts(Protocol):
    def __call__(self, *texts: str) -> str: ...


def _compiled_identifier_parts() -> IdentifierParts | None:
    try:
        from engine.index._identifiers_c import identifier_parts as compiled
    except ImportError:  # installed without a C compiler (README: "Compiled parts")
        return None
    return compiled


compiled_identifier_parts = _compiled_identifier_parts()
"""``engine/index/native/identifiers.c``'s ``identifier_parts`` (the same answer in ~1/8 of the CPU), or
None when the install could not compile it."""

identifier_parts: IdentifierParts = compiled_identifier_parts or python_identifier_parts
"""``python_identifier_parts``, compiled when it could be: what indexing and the file lane call."""
