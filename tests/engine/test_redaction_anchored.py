"""``engine.redaction.anchored.KEYWORD_ANCHORED`` is exactly the rules whose every match starts
with one of their keywords, read off the parsed patterns (``re._parser``): a regenerated
``formats.py`` that changes a rule's shape fails here, not in a missed secret.

``tests/engine/test_redaction_formats.py`` checks the consequence on real secrets: each rule
tried at its keyword places finds what a search over the whole text finds.
"""

from __future__ import annotations

import re
from re import _constants as sre
from re import _parser as sre_parse
from typing import Any

from engine.redaction import scan
from engine.redaction.anchored import KEYWORD_ANCHORED
from engine.redaction.formats import FORMATS

BY_HAND = {"generic-api-key"}
"""Anchored, but beyond this reading: ``passw(?:or)?d`` starts with ``passwd`` or ``password``,
both keywords, where the literal run read here stops at ``passw``."""


def _letter(item: tuple[Any, Any]) -> str | None:
    """The lowercased letter ``item`` always matches (a literal, or ``[Ss]``), else None."""
    op, arg = item
    if op is sre.LITERAL:
        return chr(arg).lower()
    if op is sre.IN:
        chars = {chr(a) for o, a in arg if o is sre.LITERAL}
        if len(chars) == len(arg) and len({c.lower() for c in chars}) == 1:
            return next(iter(chars)).lower()
    return None


def _prefixes(items: list[tuple[Any, Any]]) -> list[str] | None:
    """The lowercased literal text every match of ``items`` starts with, one per leading
    branch; None when a branch starts with anything else."""
    while items and items[0][0] is sre.AT:  # \b and the like take no character
        items = items[1:]
    if not items:
        return None
    op, arg = items[0]
    if op is sre.SUBPATTERN:
        return _prefixes([*arg[3], *items[1:]])
    if op is sre.BRANCH:
        found: list[str] = []
        for branch in arg[1]:
            prefixes = _prefixes([*branch, *items[1:]])
            if prefixes is None:
                return None
            found += prefixes
        return found
    text = ""
    for item in items:
        letter = _letter(item)
        if letter is None:
            break
        text += letter
    return [text] if text else None


def keyword_anchored(index: int) -> bool:
    """Whether every match of rule ``index``'s scan pattern starts with one of its keywords."""
    fmt = FORMATS[index]
    parsed = sre_parse.parse(scan._scan_pattern(fmt.regex), re.ASCII)
    prefixes = _prefixes(list(parsed))
    keywords = [k.lower() for k in fmt.keywords]
    return prefixes is not None and all(any(p.startswith(k) for k in keywords) for p in prefixes)


def test_the_anchored_rules_are_those_whose_matches_start_with_a_keyword() -> None:
    derived = {f.rule_id for i, f in enumerate(FORMATS) if keyword_anchored(i)}
    assert derived | BY_HAND == KEYWORD_ANCHORED
    assert {"databricks-api-token", "looker-client-id", "vault-service-token"} <= derived


def test_a_rule_not_led_by_its_keyword_is_not_anchored() -> None:
    """``lob-api-key`` opens with ``lob``; its keywords are ``test_`` and ``live_``."""
    index = next(i for i, f in enumerate(FORMATS) if f.rule_id == "lob-api-key")
    assert not keyword_anchored(index)
    assert "lob-api-key" not in KEYWORD_ANCHORED
