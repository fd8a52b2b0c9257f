"""The one-pass literal scan finds exactly the rules the per-literal scan found (journal: "Planning CPU").

``reference_prefilter_rules`` is ``engine.redaction.rules.prefilter_rules`` as it stood before the
Aho-Corasick automaton: one ``bytes.__contains__`` per distinct rule literal over the lowercased
UTF-8 text, gated by the punctuation each rule needs. Redaction must stay exactly as strict, so
the rules found, and the redacted text, are compared with the automaton on and off.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from engine import redaction
from engine.redaction import redact_lines, redact_secrets
from engine.redaction import rules as redaction_rules
from engine.redaction.rules import GATE_BYTES, PREFILTER

from .test_redaction import SECRET_FRAGMENTS


def reference_prefilter_rules(text: str) -> tuple[int, ...] | None:
    haystack = text.encode("utf-8", "replace").lower()
    gates = {b for b in GATE_BYTES if b in haystack}
    present = [
        rules
        for needle, gate, rules in PREFILTER
        if (not gate or not gate.isdisjoint(gates)) and needle in haystack
    ]
    if not present:
        return None
    return tuple(sorted(i for rules in present for i in rules))


@pytest.fixture(autouse=True)
def automaton_restored() -> Iterator[None]:
    before = redaction_rules.literal_automaton
    yield
    redaction_rules.literal_automaton = before


def _both_ways(text: str) -> tuple[object, object]:
    redaction_rules.literal_automaton = None
    plain = (redaction_rules.prefilter_rules(text), redact_secrets(text))
    redaction.scan_literals_in_one_pass()
    assert redaction_rules.literal_automaton is not None
    return plain, (redaction_rules.prefilter_rules(text), redact_secrets(text))


# Literals overlapping each other ("asiapi": "api" starts inside "asia"), inside each other,
# touching, split by case, next to non-ASCII text whose lowercasing is not ASCII's.
OVERLAPS = ["asiapi=x", "AKIAPI: y", "ghp_", "githubgh_", "sk-k_live_", "xoxeyj.", "://api=",
            "tokensecretapi:", "İapi=", "KEY", "Kapi=\u212a_live_", "passwdpassword=",
            "bearerauthorization", "-----begin-", "hooks", "private:", "npm_glpat-", "\udcff"]  # fmt: skip


@settings(max_examples=400, deadline=None)
@given(
    st.lists(
        st.one_of(st.sampled_from(SECRET_FRAGMENTS + OVERLAPS), st.text(max_size=12)),
        max_size=40,
    ).map("".join)
)
@example("asiapi=abcdefgh1234")
@example("the api is private")
def test_the_automaton_finds_the_rules_the_literal_scans_find(text: str) -> None:
    plain, automaton = _both_ways(text)
    assert plain == automaton
    assert automaton[0] == reference_prefilter_rules(text)


def test_each_literal_alone_and_in_a_long_text_is_found() -> None:
    filler = "ordinary words and a path/to/file.py:12 = value\n" * 2000
    for needle, _, _ in PREFILTER:
        literal = needle.decode()
        for text in (literal + ":=_-.", filler + literal.upper() + ":=_-." + filler):
            plain, automaton = _both_ways(text)
            assert plain == automaton
            assert automaton[0] == reference_prefilter_rules(text) is not None


def test_lines_are_redacted_alike_either_way() -> None:
    lines = ["plain", "api_key = 'sk-abc123DEF456ghi789JKL0'", "AKIAABCDEFGHIJKLMNOP"]
    redaction_rules.literal_automaton = None
    plain = redact_lines(lines)
    redaction.scan_literals_in_one_pass()
    assert redact_lines(lines) == plain
    assert plain[1] != lines[1]
    assert plain[2] != lines[2]
