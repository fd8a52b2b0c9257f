"""The words of a palette query worth highlighting in scrollback and previews (filters removed)."""

from __future__ import annotations

import re

_FILTER = re.compile(r"^(kind|lane|session|since):", re.IGNORECASE)
_TOKEN = re.compile(r'"([^"]*)"|(\S+)')


def highlight_terms(query: str) -> list[str]:
    """Phrases and bare terms of ``query`` (lower-cased), without ``kind:``-style filters."""
    terms: list[str] = []
    for phrase, word in _TOKEN.findall(query):
        text = (phrase or word).strip().lower()
        if not text or _FILTER.match(text):
            continue
        cleaned = text.strip("()*^")
        if cleaned:
            terms.append(cleaned)
    return terms


def terms_pattern(terms: list[str]) -> re.Pattern[str] | None:
    """A case-insensitive regex matching any of ``terms`` (longest first), or None."""
    if not terms:
        return None
    alternatives = sorted({re.escape(term) for term in terms}, key=len, reverse=True)
    return re.compile("|".join(alternatives), re.IGNORECASE)
