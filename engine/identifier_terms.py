"""Identifier-aware index terms: the camelCase parts that ``unicode61`` cannot see.

``unicode61`` already splits on ``_``, ``.``, ``:``, ``-`` and ``/``, so ``connect_timeout``,
``foo.py:42`` and ``ABC-123`` are several tokens and a phrase query finds them. What it cannot do is
split inside a run of letters: ``TypeError`` is the single token ``typeerror``, so ``error`` (a
prefix query) never reaches it. We therefore index, in a third FTS column ``parts``, the distinct
camelCase parts of every identifier that has an internal case boundary (``Type Error``,
``Read Timeout Error``, ``connect Timeout``, ``HTTP Server``). The column is weighted apart from
the body so a document with the exact token ranks above one that only has it inside an identifier
(see ``engine.search_query``).

Measured cost (benchmarks/RESULTS.md): a filtered regex pass over the text at insert time and a
small column (each part stored once per document).
"""

from __future__ import annotations

import re

_IDENT_RE = re.compile(
    r"(?<![A-Za-z0-9])[A-Za-z0-9]*?(?:[a-z0-9][A-Z]|[A-Z][A-Z][a-z])[A-Za-z0-9]*"
)
"""An ASCII word with a lower→Upper boundary or an ``ABc`` acronym boundary.

ASCII only, and anchored at a word start with a lazy scan: the Unicode form with a greedy lead
backtracked at every position and ran at 3 MB/s; this runs at ~20 MB/s (benchmarks/RESULTS.md).
"""

_PART_RE = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+")
"""Splits ``HTTPServerError2`` into ``HTTP``, ``Server``, ``Error``, ``2``."""


def split_identifier(word: str) -> list[str]:
    """The camelCase parts of one identifier, in order (``readTimeout`` → ``read``, ``Timeout``)."""
    return _PART_RE.findall(word)


def _candidate_words(text: str) -> str:
    """The whitespace-separated words that may hold a case boundary, joined by spaces.

    An all-lowercase word never does, nor does a title-case word of letters only (a boundary needs
    an uppercase letter after a lowercase one, a digit, or another uppercase one). ``str.split``
    and these C-level tests skip ~95% of prose before the regex runs: 2.5x faster than the regex
    over the whole text (benchmarks/RESULTS.md). An identifier never spans whitespace, so the
    regex finds the same identifiers in the same order.
    """
    return " ".join(
        [w for w in text.split() if not w.islower() and not (w.istitle() and w.isalpha())]
    )


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
        for word in dict.fromkeys(_IDENT_RE.findall(_candidate_words(text))):
            for part in _PART_RE.findall(word):
                seen.setdefault(part.lower(), part)
    return " ".join(seen.values())
