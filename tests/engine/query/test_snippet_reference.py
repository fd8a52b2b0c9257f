"""``make_snippet`` gives exactly what its plain definition gives (a rare term's cost is
per-hit work, so the snippet takes short cuts; the output must not move by one character).

``reference_snippet`` below is the definition as it stood before the short cuts: collapse the
whole body's whitespace, search the first token case-insensitively (accent classes for non-ASCII
text), cut a window ``_LEAD_CHARS`` before it, fold every word of the window and mark each unit's
word matches and (one-word units) camelCase part matches.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime

from hypothesis import example, given, settings
from hypothesis import strategies as st

from engine.index.identifiers import split_identifier
from engine.query.match import accent_pattern, fold
from engine.query.parser import AnyOf, ParsedQuery, Term, parse_query
from engine.query.ranking import MARK_END, MARK_START, extract_snippet_ranges
from engine.query.snippets import SNIPPET_CHARS, make_snippet, snippet_ranges

_LEAD = 40
_WORD = re.compile(r"[^\W_]+")


def _units(parsed: ParsedQuery) -> list[tuple[list[str], bool]]:
    units = []
    for node in parsed.terms:
        for term in node.options if isinstance(node, AnyOf) else (node,):
            tokens = [fold(t) for t in _WORD.findall(term.text)]
            if tokens:
                units.append((tokens, term.prefix))
    return units


def _parts(text: str, words: list[tuple[int, int, str]]) -> list[tuple[int, str]]:
    out = []
    for start, end, _ in words:
        word = text[start:end]
        if word.isalpha() and word.islower():
            continue
        parts = split_identifier(word)
        if len(parts) < 2:
            continue
        pos = start
        for part in parts:
            at = text.index(part, pos, end)
            out.append((at, fold(part)))
            pos = at + len(part)
    return out


def _spans(text: str, units: list[tuple[list[str], bool]]) -> list[tuple[int, int]]:
    words = [(m.start(), m.end(), fold(m.group())) for m in _WORD.finditer(text)]
    spans = []
    for tokens, prefix in units:
        n = len(tokens)
        for i in range(len(words) - n + 1):
            last = words[i + n - 1][2]
            ok_last = last.startswith(tokens[-1]) if prefix else last == tokens[-1]
            if ok_last and all(words[i + k][2] == tokens[k] for k in range(n - 1)):
                spans.append((words[i][0], words[i + n - 1][1]))
        if n == 1:
            spans.extend((at, at + len(part)) for at, part in _parts(text, words)
                         if part == tokens[0] or (prefix and part.startswith(tokens[0])))  # fmt: skip
    return spans


def _merged(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    for start, end in sorted(spans):
        if out and start <= out[-1][1]:
            out[-1] = (out[-1][0], max(end, out[-1][1]))
        else:
            out.append((start, end))
    return out


def reference_snippet(body: str, parsed: ParsedQuery, width: int = SNIPPET_CHARS) -> str:
    """The definition (the code ``make_snippet`` had before the per-hit work was cut)."""
    text = " ".join(body.split())
    units = _units(parsed)
    hit = -1
    if units:
        if text.isascii():
            pattern = "|".join(re.escape(tokens[0]) for tokens, _ in units)
        else:
            pattern = "|".join(accent_pattern(tokens[0]) for tokens, _ in units)
        found = re.search(pattern, text, re.IGNORECASE)
        hit = found.start() if found else -1
    start = text.rfind(" ", 0, hit - _LEAD) + 1 if hit > _LEAD else 0
    end = min(len(text), start + width)
    window = text[start:end]
    out = ["…" if start > 0 else ""]
    pos = 0
    for s, e in _merged(_spans(window, units)):
        out += [window[pos:s], MARK_START, window[s:e], MARK_END]
        pos = e
    out.append(window[pos:])
    if end < len(text):
        out.append("…")
    return "".join(out)


# Words that match the query words below in every way a snippet can: whole, as a prefix, in
# another case, as a camelCase part, with accents (precomposed, decomposed), through Unicode's
# special case pairs (ſ/s, K/k, İ, final sigma), beside ``_`` and punctuation.
WORDS = [
    "wopo", "Wopo", "WOPO", "wopos", "xwopo", "wopoTimeout", "readWopo", "WOPOServer",
    "TypeError", "typeerror", "HTTPServerError2", "connectTimeout", "type", "error", "Error",
    "café", "cafe", "CAFÉ", "cafe\u0301", "naïve", "naive", "ß", "ss", "İstanbul", "istanbul",
    "ſtop", "stop", "\u212aelvin", "kelvin", "ΣΑΣ", "σας", "日本語", "x1y2", "42", "a", "b",
    "foo", "bar", "foo_bar", "foo.bar", "a-b", "it's", "😀", "[REDACTED:token]", "filler",
]  # fmt: skip
SEPARATORS = [" ", " ", " ", "  ", "\n", "\t", "\r\n", "\xa0", "\u2003", "\x1c", "", ".", "-", "'"]
QUERY_WORDS = [
    "wopo", "wop", "w", "type", "error", "typeerror", "http", "server", "timeout", "cafe",
    "café", "naive", "ss", "ß", "stop", "ſtop", "kelvin", "istanbul", "σας", "日本", "x1", "42",
    "a", "b", "foo", "bar", "foo bar", "type error", "wopo wopo", "foo_bar", "it s",
]  # fmt: skip

# Every piece a body is made of, listed once: a piece is then one draw from a list (a body of 160
# pieces made of three nested draws each spent most of the test's time generating it).
WORDS_THEN_SEPARATOR = [word + separator for word in WORDS for separator in SEPARATORS]
LONG_WORDS = ["x" * n + " " for n in range(1, 301)]  # one word longer than the lead
WHITESPACE_RUNS = [space * n for n in range(1, 201) for space in (" ", "\n", "\xa0", "\t")]
"""A long run of whitespace (terminal padding)."""
words_then_separator = st.sampled_from(WORDS_THEN_SEPARATOR)
pieces = st.one_of(
    words_then_separator,
    words_then_separator,
    words_then_separator,
    st.sampled_from(LONG_WORDS),
    st.sampled_from(WHITESPACE_RUNS),
)
bodies = st.one_of(
    st.integers(0, 160).flatmap(lambda n: st.lists(pieces, min_size=n, max_size=n)).map("".join),
    st.text(max_size=400),
    st.text(alphabet="aAwWoOpP _\n\t\xa0é\x01\x02", max_size=400),
)
terms = st.builds(Term, st.sampled_from(QUERY_WORDS), st.booleans())
nodes = st.one_of(terms, st.lists(terms, min_size=2, max_size=3).map(lambda t: AnyOf(tuple(t))))
queries = st.lists(nodes, max_size=3).map(lambda n: ParsedQuery(terms=tuple(n)))
widths = st.sampled_from([SNIPPET_CHARS, SNIPPET_CHARS, 1, 7, 41, 500])


@settings(max_examples=1500, deadline=None)
@given(bodies, queries, widths)
@example(
    " " * 300 + "filler " * 30 + "TypeError wopo", ParsedQuery(terms=(Term("wopo", True),)), 160
)
@example("\xa0 " + "x" * 500 + " wopo", ParsedQuery(terms=(Term("wopo", True),)), 160)
@example("a a a a", ParsedQuery(terms=(Term("a a", False),)), 160)
@example("x\x01wopo\x02 wopo", ParsedQuery(terms=(Term("wopo", False),)), 160)
def test_make_snippet_is_the_definition(body: str, parsed: ParsedQuery, width: int) -> None:
    expected = reference_snippet(body, parsed, width)
    assert make_snippet(body, parsed, width) == expected
    # The query page takes the text and ranges without marking (engine.query.run).
    assert snippet_ranges(body, parsed, width) == extract_snippet_ranges(expected)


@settings(max_examples=300, deadline=None)
@given(bodies, st.sampled_from([*QUERY_WORDS, '"foo bar"', "wopo|type", "cafe -x", "kind:chat"]))
def test_parsed_queries_mark_as_the_definition(body: str, text: str) -> None:
    parsed = parse_query(text, now=datetime(2026, 6, 15, tzinfo=UTC))
    assert make_snippet(body, parsed) == reference_snippet(body, parsed)
    whole = len(body) + 1  # the delegates mark a whole line (engine.query.snippets.mark_matches)
    assert make_snippet(body, parsed, whole) == reference_snippet(body, parsed, whole)
