"""The gitleaks rule set (``engine.redaction.formats``, generated) applied the way gitleaks does.

A rule's regex runs only when one of its keywords occurs in the lowercased text: one
Aho-Corasick pass (``ahocorasick_rs``, already used by ``engine.redaction.rules``) finds every
keyword at once, so a text without any costs one scan, not ~220 regex searches. Each rule is
compiled on first use. A match is kept when its secret (the rule's secret group, else the first
non-empty group, else the whole match) clears the rule's entropy floor and no allowlist (the
rule's or gitleaks' global one) excuses it; then only the secret is replaced, so the context
(``SENDGRID_KEY=``) stays searchable.

Two deviations from gitleaks, both for what this index holds (transcripts, not files): rules
whose regex starts with gitleaks' identifier prefix ``[\\w.-]{0,50}?`` run without it (the prefix is
part of no secret, and a lazy prefix before an alternation is slow in ``re``; the match start is
widened over it again for ``match`` allowlists), and a secret that holds a ``[REDACTED:`` marker of
an earlier rule is left alone.
"""

# warm path: a warm `ade search` imports this; keep its imports light (ARCHITECTURE: The warm path)

from __future__ import annotations

import functools
import math
import re
from bisect import bisect_right
from collections import Counter
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING

from engine.redaction import anchored
from engine.redaction import rules as redaction_rules
from engine.redaction.format_types import Allow, Format
from engine.redaction.formats import FORMATS, GLOBAL_ALLOW_REGEXES, GLOBAL_STOPWORDS
from engine.redaction.values import is_placeholder

if TYPE_CHECKING:
    from ahocorasick_rs import BytesAhoCorasick

_IDENTIFIER_PREFIXES = (r"[\w.-]{0,50}?", r"(?i)[\w.-]{0,50}?")
_IDENTIFIER_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-")
_MARKER_OPEN = "[REDACTED:"


def _scan_pattern(regex: str) -> str:
    """``regex`` without gitleaks' lazy identifier prefix (flags kept)."""
    if regex.startswith(_IDENTIFIER_PREFIXES[1]):
        return "(?i)" + regex[len(_IDENTIFIER_PREFIXES[1]) :]
    if regex.startswith(_IDENTIFIER_PREFIXES[0]):
        return regex[len(_IDENTIFIER_PREFIXES[0]) :]
    return regex


@functools.cache
def _rule_re(index: int) -> re.Pattern[str]:
    return re.compile(_scan_pattern(FORMATS[index].regex), re.ASCII)


@functools.cache
def _allow_res(index: int) -> tuple[tuple[Allow, tuple[re.Pattern[str], ...]], ...]:
    return tuple(
        (allow, tuple(re.compile(r, re.ASCII) for r in allow.regexes))
        for allow in FORMATS[index].allows
    )


@functools.cache
def _global_allow_res() -> tuple[re.Pattern[str], ...]:
    return tuple(re.compile(r, re.ASCII) for r in GLOBAL_ALLOW_REGEXES)


@functools.cache
def _keyword_rules() -> dict[bytes, tuple[int, ...]]:
    """Every distinct keyword (lowercase ASCII bytes) and the rules it enables."""
    rules_by_keyword: dict[bytes, list[int]] = {}
    for index, fmt in enumerate(FORMATS):
        for keyword in fmt.keywords:
            rules_by_keyword.setdefault(keyword.encode(), []).append(index)
    return {keyword: tuple(rules) for keyword, rules in rules_by_keyword.items()}


@functools.cache
def _automaton() -> BytesAhoCorasick:
    """gitleaks' keywords after ``engine.redaction.rules``' literals, in one automaton: the
    ingester finds both in one pass over a text (:func:`one_pass`). A keyword that
    :func:`_gate_standins` names is looked for by its rules' gate instead."""
    from ahocorasick_rs import BytesAhoCorasick, Implementation

    literals = [needle for needle, _, _ in redaction_rules.PREFILTER]
    # A DFA: ~3x the scan speed of the default NFA on code (benchmarks/journal/waves-1-to-3.md, "Secrets at the breadth of a real scanner")
    # for a few ms of building, once a process.
    return BytesAhoCorasick(literals + _keyword_list(), implementation=Implementation.DFA)


def one_pass(haystack: bytes) -> tuple[set[int], dict[bytes, list[int]]]:
    """``engine.redaction.rules.PREFILTER`` entries whose literal occurs, and gitleaks' keyword
    hits (:func:`_keyword_hits`), from one Aho-Corasick pass over ``haystack``."""
    first = len(redaction_rules.PREFILTER)
    keywords = _keyword_list()
    literals: set[int] = set()
    hits: dict[bytes, list[int]] = {}
    for index, start, _ in _automaton().find_matches_as_indexes(haystack, True):
        if index < first:
            literals.add(index)
        elif (keyword := keywords[index - first]) in hits:
            hits[keyword].append(start)
        else:
            hits[keyword] = [start]
    _resolve_standins(haystack, hits)
    return literals, hits


def _resolve_standins(haystack: bytes, hits: dict[bytes, list[int]]) -> None:
    """Replace in ``hits`` each gate the automaton found (:func:`_gate_standins`) by the keywords
    it stands in for that ``haystack`` holds."""
    for gate, stood_in in _gate_standins().items():
        if hits.pop(gate, None) is not None:
            for keyword in stood_in:
                at = haystack.find(keyword)
                if at >= 0:
                    hits[keyword] = [at]  # its first place: no rule of it reads the others


def page_hits(haystacks: list[bytes]) -> list[tuple[set[int], dict[bytes, list[int]]]]:
    """:func:`one_pass` of each of ``haystacks`` (a page of snippets, each lowercased UTF-8), from
    one pass over them joined: a hit is its text's when it lies wholly inside it (the pass
    reports overlapping hits, so each text gets every hit it would get alone)."""
    first = len(redaction_rules.PREFILTER)
    keywords = _keyword_list()
    starts = []
    at = 0
    for haystack in haystacks:
        starts.append(at)
        at += len(haystack) + 1
    out: list[tuple[set[int], dict[bytes, list[int]]]] = [(set(), {}) for _ in haystacks]
    for index, start, end in _automaton().find_matches_as_indexes(b"\n".join(haystacks), True):
        text = bisect_right(starts, start) - 1
        base = starts[text]
        if end > base + len(haystacks[text]):
            continue  # runs across the joint into the next text
        literals, hits = out[text]
        if index < first:
            literals.add(index)
        elif (keyword := keywords[index - first]) in hits:
            hits[keyword].append(start - base)
        else:
            hits[keyword] = [start - base]
    for haystack, (_, hits) in zip(haystacks, out, strict=True):
        if hits:
            _resolve_standins(haystack, hits)
    return out


@functools.cache
def _keyword_list() -> list[bytes]:
    """The automaton's keywords after the literals, in its order (built once, not once a
    text): :func:`_keyword_rules`' keywords, each of :func:`_gate_standins` replaced by its
    gate."""
    standins = _gate_standins()
    stood_in = {keyword for keywords in standins.values() for keyword in keywords}
    return [keyword for keyword in _keyword_rules() if keyword not in stood_in] + list(standins)


@functools.cache
def _gate_standins() -> dict[bytes, tuple[bytes, ...]]:
    """Gate → the keywords it stands in for in the one-pass automaton: a keyword whose every
    rule has that bytes gate (``_GATES``) and is not ``KEYWORD_ANCHORED``.

    Such a rule runs only when its keyword and its gate both occur, and reads no keyword place
    past the first (:func:`_places` serves the anchored rules alone). So the automaton looks
    for the gate, mostly rare, and the keyword is looked for with ``in`` only where the gate
    occurs: ``test_`` (``lob-api-key``, gated by ``lob``) was 50,857 of the 59,078 hits of a
    10 MB first index, test names in code, each a tuple and a Python step
    (benchmarks/journal/2026-12-07-first-index-3.md). A gate that is itself a keyword stands in
    for nothing (its hits are the keyword's)."""
    keywords = _keyword_rules()
    standins: dict[bytes, list[bytes]] = {}
    for keyword, rules in keywords.items():
        gates = {_GATES.get(FORMATS[index].rule_id) for index in rules}
        gate = gates.pop() if len(gates) == 1 else None
        if not isinstance(gate, bytes) or gate in keywords:
            continue
        if all(FORMATS[index].rule_id not in KEYWORD_ANCHORED for index in rules):
            standins.setdefault(gate, []).append(keyword)
    return {gate: tuple(stood_in) for gate, stood_in in standins.items()}


def candidate_rules(text: str) -> list[int]:
    """The rules one of whose keywords occurs in ``text`` (case-insensitively), in rule order."""
    return _rules_of(_keyword_hits(_haystack(text)))


def _haystack(text: str) -> bytes:
    """Bytes, like ``engine.redaction.rules``: the keywords are ASCII, and a lone surrogate in the
    text (a transcript's undecodable byte) must not stop the scan."""
    return text.encode("utf-8", "replace").lower()


def _keyword_hits(haystack: bytes, among: Iterable[bytes] | None = None) -> dict[bytes, list[int]]:
    """Each keyword that occurs, with where (only the first place on the ``in`` path).

    Once the ingester asked for bulk redaction (``scan_literals_in_one_pass``), one Aho-Corasick
    pass finds them all, with every place; a query's page of short snippets tests each keyword
    with ``in`` instead, so a search never loads the extension module (the CLI's start-up
    budget). ``among`` (``in`` path only): the keywords to test, the rest known absent
    (:func:`keywords_in` of a page's joined snippets).
    """
    hits: dict[bytes, list[int]] = {}
    if redaction_rules.literal_automaton is not None:
        return one_pass(haystack)[1]
    for keyword in _keyword_rules() if among is None else among:
        at = haystack.find(keyword)
        if at >= 0:
            hits[keyword] = [at]
    return hits


def keywords_in(haystack: bytes) -> list[bytes]:
    """The keywords that occur in ``haystack`` (lowercased UTF-8, :func:`_haystack`), in table
    order: a keyword absent from a page's snippets joined is absent from each of them, so each
    snippet then tests only these (``engine.redaction.redact_page``; 244 ``find`` calls a
    snippet were ~40% of building a 50-hit page)."""
    return list(_keyword_hits(haystack))


def _rules_of(hits: dict[bytes, list[int]]) -> list[int]:
    table = _keyword_rules()
    return sorted({rule for keyword in hits for rule in table[keyword]})


KEYWORD_ANCHORED = anchored.KEYWORD_ANCHORED
"""Rules whose match (identifier prefix left out) can only start where one of their keywords
starts (every branch of their leading alternation begins with a keyword): instead of a regex
search over the whole text, a match is tried at each keyword hit. Same matches (checked by
tests/engine/test_redaction_formats.py and, for the rules' shape, test_redaction_anchored.py), a
fraction of the cost: ``generic-api-key``, ``vault-service-token``, ``jwt`` and
``twilio-api-key`` have keywords that occur in most code (``key``, ``token``, ``s.``, ``sk``) and
cost 90% of the scan; a rule whose pattern gives ``re`` no literal prefix (``(?i)``, ``\\b``:
``databricks-api-token`` 8.9 ms over the 10 MB first index's texts, 0.2 anchored) stepped
through every character of a long text (``engine.redaction.anchored``)."""


def _places(haystack: bytes, keywords: tuple[str, ...], hits: dict[bytes, list[int]]) -> list[int]:
    """Every place one of ``keywords`` occurs (the ``in`` path noted only the first)."""
    places: set[int] = set()
    for keyword in keywords:
        needle = keyword.encode()
        if needle not in hits:
            continue
        if redaction_rules.literal_automaton is not None:
            places.update(hits[needle])
            continue
        at = hits[needle][0]
        while at >= 0:
            places.add(at)
            at = haystack.find(needle, at + 1)
    return sorted(places)


def _anchored(pattern: re.Pattern[str], text: str, places: list[int]) -> Iterator[re.Match[str]]:
    """What ``pattern.finditer(text)`` yields when a match can only start at ``places``."""
    after = 0
    for place in places:
        if place < after:
            continue
        match = pattern.match(text, place)
        if match is not None:
            yield match
            after = max(match.end(), place + 1)


_GATES: dict[str, bytes | str] = {
    "lob-api-key": b"lob",
    "jwt": b".ey",
    "vault-service-token": r"s\.[\w-]{24}",
    "sumologic-access-id": r"su[a-zA-Z0-9]{12}",
}
"""What a rule's match always holds, for rules whose keywords occur far more often than that
(``s.`` before any word, ``live_``/``test_`` without ``lob``, ``sumo`` in prose): bytes to find in
the lowercased text, or a regex to search the text with, in C, before the rule's own regex is
tried at every keyword place. Each gate is implied by its rule's regex (``vault-service-token``:
``hvs.`` and 90 word characters holds ``s.`` and 24 of them; a JWT's second part starts ``.ey``),
so gated and ungated scans find the same secrets (tests/engine/test_redaction_gates.py)."""

GATED = True
"""False runs every rule whose keyword occurs, ungated (the gates' reference test)."""


@functools.cache
def _gate_re(rule_id: str) -> re.Pattern[str]:
    return re.compile(str(_GATES[rule_id]), re.ASCII)


def _gate(rule_id: str, text: str, haystack: bytes) -> bool:
    """Whether ``rule_id``'s regex can match ``text`` (False only when its gate is absent)."""
    gate = _GATES.get(rule_id)
    if gate is None or not GATED:
        return True
    if isinstance(gate, bytes):
        return gate in haystack
    return _gate_re(rule_id).search(text) is not None


def shannon_entropy(value: str) -> float:
    """Bits per character, as gitleaks computes it."""
    counts = Counter(value)
    total = len(value)
    return -sum(n / total * math.log2(n / total) for n in counts.values())


def find_secrets(
    text: str,
    haystack: bytes | None = None,
    hits: dict[bytes, list[int]] | None = None,
    among: Iterable[bytes] | None = None,
) -> list[tuple[int, int, str]]:
    """``(start, end, rule id)`` of every secret the gitleaks rules find in ``text`` (whose
    :func:`_haystack` and keyword hits may come from a pass already made; ``among``: the only
    keywords that may occur, see :func:`keywords_in`)."""
    if haystack is None or hits is None:
        haystack = _haystack(text)
        hits = _keyword_hits(haystack, among)
    aligned = len(haystack) == len(text)  # ASCII: byte places are character places
    found = []
    for index in _rules_of(hits):
        fmt = FORMATS[index]
        if not _gate(fmt.rule_id, text, haystack):
            continue
        pattern = _rule_re(index)
        if aligned and fmt.rule_id in KEYWORD_ANCHORED:
            matches: Iterable[re.Match[str]] = _anchored(
                pattern, text, _places(haystack, fmt.keywords, hits)
            )
        else:
            matches = pattern.finditer(text)
        for match in matches:
            span = _secret_span(match, fmt)
            if span is not None and not _allowed(text, match, span, index):
                found.append((*span, fmt.rule_id))
    return found


def _secret_span(match: re.Match[str], fmt: Format) -> tuple[int, int] | None:
    if fmt.secret_group:
        start, end = match.span(fmt.secret_group)
    else:
        groups = (match.span(g) for g in range(1, (match.re.groups or 0) + 1))
        start, end = next((s for s in groups if s[1] > s[0]), match.span())
    secret = match.string[start:end]
    stripped = secret.strip("\n")  # gitleaks trims newlines a match took
    start += len(secret) - len(secret.lstrip("\n"))
    end = start + len(stripped)
    if end <= start or _MARKER_OPEN in stripped:
        return None
    if fmt.entropy and shannon_entropy(stripped) <= fmt.entropy:
        return None
    if fmt.rule_id == "generic-api-key" and is_placeholder(stripped):
        return None
    return start, end


def _allowed(text: str, match: re.Match[str], span: tuple[int, int], index: int) -> bool:
    secret = text[span[0] : span[1]]
    lowered = secret.lower()
    if any(r.search(secret) for r in _global_allow_res()) or any(
        w in lowered for w in GLOBAL_STOPWORDS
    ):
        return True
    for allow, regexes in _allow_res(index):
        if any(word in lowered for word in allow.stopwords):
            return True
        if regexes:
            target = _target(text, match, secret, allow.target)
            if any(r.search(target) for r in regexes):
                return True
    return False


def _target(text: str, match: re.Match[str], secret: str, kind: str) -> str:
    if kind == "secret":
        return secret
    start, end = match.span()
    if kind == "line":
        return text[text.rfind("\n", 0, start) + 1 : _line_end(text, end)]
    # "match": widened over the identifier prefix the scan left out (at most 50 characters).
    floor = max(0, start - 50)
    while start > floor and text[start - 1] in _IDENTIFIER_CHARS:
        start -= 1
    return text[start:end]


def _line_end(text: str, end: int) -> int:
    newline = text.find("\n", end)
    return len(text) if newline < 0 else newline


def redact_formats(
    text: str,
    haystack: bytes | None = None,
    hits: dict[bytes, list[int]] | None = None,
    among: Iterable[bytes] | None = None,
) -> str:
    """``text`` with every secret the gitleaks rules find replaced by ``[REDACTED:<rule id>]``.
    Overlapping findings merge into the first (leftmost, then longest)."""
    if hits is not None and not hits:
        return text
    spans = sorted(find_secrets(text, haystack, hits, among), key=lambda s: (s[0], -s[1]))
    if not spans:
        return text
    pieces, cursor = [], 0
    for start, end, rule_id in spans:
        if start < cursor:
            continue
        pieces += [text[cursor:start], f"[REDACTED:{rule_id}]"]
        cursor = end
    pieces.append(text[cursor:])
    return "".join(pieces)
