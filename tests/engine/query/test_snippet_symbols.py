"""A body whose only non-ASCII text is punctuation or symbols (``·``, ``—``, ``→``, an emoji) is
searched for an ASCII query without the accent classes (journal: "Regexes compiled lazily"): building and
compiling them costs ~4 ms of a warm search, and no accented form can occur in such text.

The short cut rests on three facts about Unicode and ``re``, checked here over every code point,
and gives the first hit the accent classes give."""

from __future__ import annotations

import re
import string
import sys

from hypothesis import given, settings
from hypothesis import strategies as st

from engine.query.match import accent_pattern
from engine.query.parser import ParsedQuery, Term
from engine.query.snippets import _NON_ASCII_WORD_CHAR, _first_hit, _reading, make_snippet

EVERY_CHARACTER = "".join(map(chr, range(sys.maxunicode + 1)))
NOT_ALNUM = "".join(ch for ch in EVERY_CHARACTER if not ch.isalnum())
ASCII_ALNUM = string.ascii_lowercase + string.digits


def test_non_ascii_word_char_is_a_non_ascii_letter_or_digit() -> None:
    found = set(_NON_ASCII_WORD_CHAR.findall(EVERY_CHARACTER))
    assert found == {ch for ch in EVERY_CHARACTER if not ch.isascii() and ch.isalnum()}


def test_no_accent_class_matches_punctuation_or_symbols() -> None:
    every_class = re.compile("|".join(accent_pattern(ch) for ch in ASCII_ALNUM), re.IGNORECASE)
    assert every_class.search(NOT_ALNUM) is None
    for ch in ASCII_ALNUM:  # and of ASCII, only the letter in either case
        ascii_matched = {
            c for c in map(chr, range(128)) if re.fullmatch(accent_pattern(ch), c, re.I)
        }
        assert ascii_matched == {ch, ch.upper()}


def test_punctuation_and_symbols_keep_their_length_through_lower() -> None:
    assert all(len(ch.lower()) == 1 for ch in NOT_ALNUM)


SYMBOLS = ["·", "—", "→", "…", "😀", "\u0301", "™", "€", "\u2028", "\xa0", "«", "»"]
WORDS = ["retry", "RETRY", "reTry", "backoff", "x", "re", "try", "retrying", "Retry-After"]
bodies = st.lists(st.sampled_from(SYMBOLS + WORDS + [" ", "\n", "-"]), max_size=40).map("".join)
queries = st.lists(
    st.builds(Term, st.sampled_from(["retry", "try", "re", "backoff", "x", "retry after"]),
              st.booleans()), min_size=1, max_size=3)  # fmt: skip


@settings(max_examples=400, deadline=None)
@given(bodies, queries)
def test_first_hit_in_symbols_is_the_accent_classes_hit(body: str, terms: list[Term]) -> None:
    reading = _reading(tuple(terms))
    found = reading.accented.search(body)
    assert _first_hit(body, reading) == (found.start() if found else -1)


def test_a_body_with_symbols_only_builds_no_accent_classes() -> None:
    parsed = ParsedQuery(terms=(Term("retry", False),))
    reading = _reading(parsed.terms)
    reading.__dict__.pop("accented", None)
    snippet = make_snippet("report · retry-benchmark.md — done →", parsed)
    assert snippet == "report · \x01retry\x02-benchmark.md — done →"
    assert "accented" not in reading.__dict__
    make_snippet("the café retry", parsed)  # the positive control: an accented letter
    assert "accented" in reading.__dict__
