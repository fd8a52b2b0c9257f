"""How delegated sources decide whether a record matches the query's text.

Delegates have no FTS index: a record matches when every positive node of the parsed query occurs
in its haystack (case-insensitive substring, which is what a prefix match means for text we hold
in memory), any alternative of an ``a|b`` node suffices, and no excluded term occurs. Snippet
markers use the same ``\\x01``/``\\x02`` convention as the index so one extractor serves both.
"""

from __future__ import annotations

import re

from engine.query.parser import AnyOf, ParsedQuery, Term
from engine.query.ranking import MARK_END, MARK_START


def positive_words(parsed: ParsedQuery) -> list[str]:
    """Every positive term's text (alternatives included), for highlighting and grep."""
    words: list[str] = []
    for node in parsed.terms:
        options = node.options if isinstance(node, AnyOf) else (node,)
        words.extend(term.text for term in options if term.text)
    return words


def required_words(parsed: ParsedQuery) -> list[str]:
    """Terms every match must contain (alternatives excluded), for ``git grep``."""
    return [node.text for node in parsed.terms if isinstance(node, Term) and node.text]


def matches(parsed: ParsedQuery, haystack: str) -> bool:
    """Whether ``haystack`` satisfies the query's positive and excluded terms."""
    folded = haystack.casefold()
    for node in parsed.terms:
        options = node.options if isinstance(node, AnyOf) else (node,)
        if not any(term.text.casefold() in folded for term in options):
            return False
    return not any(term.text.casefold() in folded for term in parsed.excluded)


def mark_words(text: str, words: list[str]) -> str:
    """``text`` with every case-insensitive occurrence of ``words`` wrapped in snippet markers."""
    if not words:
        return text
    pattern = re.compile(
        "|".join(re.escape(w) for w in sorted(set(words), key=len, reverse=True)), re.I
    )
    return pattern.sub(lambda m: f"{MARK_START}{m.group(0)}{MARK_END}", text)
