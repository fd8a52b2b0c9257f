"""Identifier-aware index terms: the camelCase parts that ``unicode61`` cannot see.

``unicode61`` already splits on ``_``, ``.``, ``:``, ``-`` and ``/``, so ``connect_timeout``,
``foo.py:42`` and ``ABC-123`` are several tokens and a phrase query finds them. What it cannot do is
split inside a run of letters: ``TypeError`` is the single token ``typeerror``, so ``error`` (a
prefix query) never reaches it. We therefore index, in a third FTS column ``parts``, the distinct
camelCase parts of every identifier that has an internal case boundary (``Type Error``,
``Read Timeout Error``, ``connect Timeout``, ``HTTP Server``). The column is weighted apart from
the body so a document with the exact token ranks above one that only has it inside an identifier
(see ``engine.query.run``).

Measured cost (benchmarks/RESULTS.md): a class-mapping pass over the text at insert time and a
small column (each part stored once per document).
"""

from __future__ import annotations

import re

_IDENT_RE = re.compile(
    r"(?<![A-Za-z0-9])[A-Za-z0-9]*?(?:[a-z0-9][A-Z]|[A-Z][A-Z][a-z])[A-Za-z0-9]*"
)
"""The definition: an ASCII word with a lower→Upper boundary or an ``ABc`` acronym boundary.

``identifiers`` finds exactly these matches without running the regex (the tests compare them).
"""

_PART_RE = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+")
"""Splits ``HTTPServerError2`` into ``HTTP``, ``Server``, ``Error``, ``2``."""


def split_identifier(word: str) -> list[str]:
    """The camelCase parts of one identifier, in order (``readTimeout`` → ``read``, ``Timeout``)."""
    return _PART_RE.findall(word)


_CLASSES = bytes(
    ord("a") if 97 <= b <= 122 else ord("d") if 48 <= b <= 57 else ord("A") if 65 <= b <= 90
    else 32
    for b in range(256)
)  # fmt: skip
"""``bytes.translate`` table: ASCII lowercase → ``a``, digit → ``d``, uppercase → ``A``, else space."""

_BOUNDARIES = (b"aA", b"dA", b"AAa")
"""The case boundaries of ``_IDENT_RE`` in class letters: ``[a-z0-9][A-Z]`` and ``[A-Z][A-Z][a-z]``."""


def identifiers(text: str) -> list[str]:
    """Every identifier ``_IDENT_RE`` finds in ``text``, in order (repeats included).

    An identifier is a maximal ASCII letter/digit run holding a case boundary. Instead of running
    the regex over every character (~12 MB/s in ``re``), the text is mapped to character classes
    with ``bytes.translate`` and the boundaries are found with ``bytes.find`` (both C loops over
    the whole text); Python only visits the few hits: 2x faster than a word pre-filter, 5x faster
    than the regex (benchmarks/RESULTS.md). Non-ASCII bytes are separators, as for the regex.
    """
    raw = text.encode("utf-8", "surrogatepass")
    cls = raw.translate(_CLASSES)
    hits: list[int] = []
    for pattern in _BOUNDARIES:
        at = cls.find(pattern)
        while at >= 0:
            hits.append(at)
            at = cls.find(pattern, at + 1)
    words: dict[int, str] = {}
    for at in sorted(hits):
        start = cls.rfind(b" ", 0, at) + 1
        if start not in words:
            end = cls.find(b" ", at)
            words[start] = raw[start : end if end >= 0 else len(raw)].decode("ascii")
    return list(words.values())


def identifier_parts(*texts: str) -> str:
    """The distinct camelCase parts of every identifier in ``texts``, space-separated.

    Deterministic (first-seen order) and de-duplicated case-insensitively, because BM25 on this
    column only needs to know a part occurs, and duplicates would only grow the index.

    Args:
        texts: title and body text of one document.

    Returns:
        The ``parts`` column value; empty when no identifier has an internal case boundary.
    """
    seen: dict[str, str] = {}
    for text in texts:
        for word in dict.fromkeys(identifiers(text)):
            for part in _PART_RE.findall(word):
                seen.setdefault(part.lower(), part)
    return " ".join(seen.values())
