"""The redaction rules (``engine.redaction``): the rule table, its one alternation, and the literal
prefilter that tells which rules can match a text before any regex runs — per literal with
``in`` (a query's short snippets), or in one Aho-Corasick pass once the ingester asks for it
(:func:`scan_literals_in_one_pass`)."""

# warm path: a warm `ade search` imports this; keep its imports light (ARCHITECTURE: The warm path)

from __future__ import annotations

import functools
import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ahocorasick_rs import BytesAhoCorasick

_KEY = r"(?:[Kk]ey|KEY)"
"""``key`` as spelled in snake, camel and screaming case."""

_SEPARATOR_AND_VALUE = r"""["']?[ \t]*[:=][ \t]*(?:"[^"\n]*"|'[^'\n]*'|[^\s"',;&<>()\[\]{}]+)"""
"""``: value`` / ``= "value"``: a quoted string, or a bare run up to a delimiter, on one line."""

_AUTH_TAIL = (
    r"""["']?(?:[ \t]*[:=][ \t]*|[ \t]+)["']?(?:(?i:basic|bearer|token|digest|bot)[ \t]+)?"""
    r"[A-Za-z0-9._~+/=-]+"
)
"""What follows ``Authorization`` or ``Bearer``: an optional scheme, then the credential."""


def _cases(word: str) -> list[str]:
    """``word``, ``Word`` and ``WORD``: explicit variants keep every rule literal-first."""
    return [word, word.capitalize(), word.upper()]


def _rules() -> list[tuple[str, str]]:
    """(label, pattern) for every rule; each pattern starts with a literal (see full_pattern)."""
    boundary = "(?<![A-Za-z0-9_]{0})"
    rules = [
        (
            "private-key",
            r"-----BEGIN[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----(?s:.*?)"
            r"(?:-----END[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|\Z)",
        ),
        ("aws-access-key-id", "AKIA" + boundary.format("AKIA") + r"[A-Z0-9]{16}\b"),
        ("aws-access-key-id", "ASIA" + boundary.format("ASIA") + r"[A-Z0-9]{16}\b"),
        ("github-token", "gh" + boundary.format("gh") + r"[pousr]_[A-Za-z0-9]{36,255}\b"),
        (
            "github-token",
            "github_pat_" + boundary.format("github_pat_") + r"[A-Za-z0-9_]{22,255}\b",
        ),
        ("sk", "sk-" + boundary.format("sk-") + r"[A-Za-z0-9_-]{20,}"),
        ("slack-token", "xox" + boundary.format("xox") + r"[abprse]-[A-Za-z0-9-]{10,}"),
        (
            "jwt",
            "eyJ"
            + boundary.format("eyJ")
            + r"[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*",
        ),
        ("url", r"://[^\s/:@]*:[^\s/@]+@"),
        (
            "slack-webhook",
            r"hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9_-]+/[A-Za-z0-9_/-]{8,}",
        ),
        (
            "google-api-key",
            "AIza" + boundary.format("AIza") + r"[0-9A-Za-z_-]{35}(?![0-9A-Za-z_-])",
        ),
        ("npm-token", "npm_" + boundary.format("npm_") + r"[A-Za-z0-9]{36}(?![A-Za-z0-9])"),
        (
            "gitlab-token",
            "glpat-" + boundary.format("glpat-") + r"[A-Za-z0-9_-]{20,}(?:\.[A-Za-z0-9_-]+)*",
        ),
    ]
    # Formats gitleaks has no rule for, or only next to a word (docs/redaction.md).
    rules += [
        ("azure-storage-key", r"AccountKey=[A-Za-z0-9+/]{40,}={0,2}"),
        (
            "discord-webhook",
            r"discord(?:app)?\.com/api/webhooks/[0-9]{15,20}/[A-Za-z0-9_-]{60,}",
        ),
        ("telegram-bot-token", r":AA[A-Za-z0-9_-]{33}(?![A-Za-z0-9_-])"),
        # A PEM private key, base64-encoded once more (Kubernetes ``tls.key:``, ``ssh-privatekey``):
        # "-----BEGIN" encodes to LS0tLS1CRUdJTi, then " PRIVATE KEY" and its RSA/EC/OPENSSH kin.
        ("private-key-base64", r"LS0tLS1CRUdJTi[A-Za-z0-9+/]{20,}={0,2}"),
    ]
    rules += [
        ("stripe-key", prefix + boundary.format(prefix) + r"[A-Za-z0-9]{24,}(?![A-Za-z0-9])")
        for prefix in ("sk_live_", "rk_live_", "sk_test_", "rk_test_")
    ]
    rules += [
        ("auth", re.escape(w) + _AUTH_TAIL) for w in _cases("authorization") + _cases("bearer")
    ]
    for word in _cases("password") + _cases("passwd") + _cases("passphrase"):
        rules.append(("password", re.escape(word) + _SEPARATOR_AND_VALUE))
    rules += [("token", re.escape(word) + _SEPARATOR_AND_VALUE) for word in _cases("token")]
    secret_suffix = rf"(?:[_-]?(?:(?:[Aa]ccess|ACCESS)[_-]?)?{_KEY})?"
    rules += [("secret", w + secret_suffix + _SEPARATOR_AND_VALUE) for w in _cases("secret")]
    rules += [("api-key", w + rf"[_-]?{_KEY}" + _SEPARATOR_AND_VALUE) for w in _cases("api")]
    rules += [("secret", w + rf"[_-]?{_KEY}" + _SEPARATOR_AND_VALUE) for w in _cases("private")]
    return rules


RULES = _rules()
"""Every rule; the ones labelled sk, url, auth or an assignment kind get a closer look."""


@functools.cache
def full_pattern() -> re.Pattern[str]:
    """All rules in one alternation, one pass. Each alternative starts with a literal and reports
    itself through an empty group at its end, so ``re`` skips to candidate characters in C instead
    of trying every rule at every position (18 MB/s instead of 1 MB/s with leading ``\\b``/groups).

    Compiled on first use (~10 ms): a search that shows no text holding a rule's literal never
    pays for it (the CLI's start-up budget); ``redact_secrets`` compiles only the rules present.
    """
    return re.compile("|".join(f"{rule}(?P<r{i}>)" for i, (_, rule) in enumerate(RULES)))


LABEL_BY_GROUP = {f"r{i}": label for i, (label, _) in enumerate(RULES)}
"""Rule label by the name of its end group."""

ASSIGNMENT_KINDS = frozenset({"password", "token", "secret", "api-key"})
"""Rules that match ``key<sep>value``: only the value is redacted, and only when plausible."""

_NEEDLE_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_:/-")
"""What a rule's leading literal is made of (it ends at the first regex syntax)."""


def _leading_literal(rule: str) -> str:
    """The literal a rule pattern starts with: ``[A-Za-z0-9_:/-]+`` at its start, found without
    compiling a regex at import (a query redacts without needing one)."""
    end = next((i for i, ch in enumerate(rule) if ch not in _NEEDLE_CHARS), len(rule))
    return rule[:end]


_GATES = {
    **dict.fromkeys(ASSIGNMENT_KINDS, (b":", b"=")),
    "github-token": (b"_",),
    "slack-token": (b"-",),
    "jwt": (b".",),
}
"""Punctuation a rule's match always holds beyond its literal (``ghp_``, ``xoxb-``, a JWT's dots)."""


def _prefilter() -> list[tuple[bytes, frozenset[bytes], tuple[int, ...]]]:
    """``(needle, gate, rules)``: ``rules`` can match only where the lowercased text holds
    ``needle`` and at least one byte of ``gate`` (a ``memchr``-fast test tried first)."""
    table: dict[tuple[bytes, frozenset[bytes]], tuple[int, ...]] = {}
    for index, (label, rule) in enumerate(RULES):
        needle = _leading_literal(rule).lower().encode()
        if label == "stripe-key":
            needle = needle[1:]  # sk_live_ and rk_live_ share one test of k_live_
        punctuation = [bytes([b]) for b in needle if not chr(b).isalnum()]
        # An assignment needs its ``:`` or ``=``; a needle with punctuation needs that byte.
        gate = frozenset(_GATES.get(label) or punctuation[:1])
        table[needle, gate] = (*table.get((needle, gate), ()), index)
    return [(needle, gate, rules) for (needle, gate), rules in table.items()]


PREFILTER = _prefilter()
"""One entry per distinct rule literal. Checking ~24 literals with ``in`` costs about what one
pass of :func:`full_pattern` does, but the gates skip most of them in text without ``:``, ``=``,
``-`` or ``_``, and a chunk that holds none runs no regex at all (benchmarks/journal/waves-1-to-3.md)."""

GATE_BYTES = sorted({b for _, gate, _ in PREFILTER for b in gate})
"""Every gate byte: each is looked for once a chunk, not once per literal."""


def prefilter_rules(
    text: str, *, haystack: bytes | None = None, found: set[int] | None = None
) -> tuple[int, ...] | None:
    """The rules whose literal (and gate) occur in ``text``, sorted; None when there are none.

    ``haystack`` (the lowercased UTF-8 text) and ``found`` (the ``PREFILTER`` entries whose
    literal occurs) may come from a pass the caller already made (``engine.redaction.scan``
    finds these literals and gitleaks' keywords in one pass)."""
    if haystack is None:
        haystack = text.encode("utf-8", "replace").lower()  # ASCII literals survive both steps
    automaton = literal_automaton
    if found is None and automaton is not None:
        found = {entry for entry, _, _ in automaton.find_matches_as_indexes(haystack, True)}
    if found is not None:
        # The literals found first, in one pass; then only their gates are looked for.
        present = [
            rules
            for _, gate, rules in map(PREFILTER.__getitem__, found)
            if not gate or any(byte in haystack for byte in gate)
        ]
    else:
        gates = {b for b in GATE_BYTES if b in haystack}
        present = [
            rules
            for needle, gate, rules in PREFILTER
            if (not gate or not gate.isdisjoint(gates)) and needle in haystack
        ]
    if not present:
        return None
    return tuple(sorted(i for rules in present for i in rules))


def literals_in(haystack: bytes) -> set[int]:
    """The ``PREFILTER`` entries whose literal and gate occur in ``haystack`` (lowercased UTF-8),
    one ``in`` each: what :func:`prefilter_rules` looks for, for a page of snippets joined
    (``engine.redaction.redact_page``), so each snippet tests only these."""
    gates = {b for b in GATE_BYTES if b in haystack}
    return {
        entry
        for entry, (needle, gate, _) in enumerate(PREFILTER)
        if (not gate or not gate.isdisjoint(gates)) and needle in haystack
    }


literal_automaton: BytesAhoCorasick | None = None
"""The literals as one Aho-Corasick automaton, once :func:`scan_literals_in_one_pass` ran."""


def scan_literals_in_one_pass() -> None:
    """Find the rule literals in one pass over each text instead of one ``in`` per literal.

    For bulk redaction (the ingester's builders call it): ~24 ``bytes.__contains__`` scans cost
    ~20% of planning a transcript, one Aho-Corasick pass (``ahocorasick_rs``, the Rust
    ``aho-corasick`` crate) an eighth of that (benchmarks/journal/waves-1-to-3.md, "Planning CPU"). Not done on import:
    a query redacts a page of short snippets, where the scans cost nothing and loading the
    extension module would (the CLI's start-up budget). Same rules found either way (overlapping
    matches: a literal inside or across another is still seen); without the module the
    per-literal scan stays.
    """
    global literal_automaton
    if literal_automaton is not None:
        return
    try:
        from ahocorasick_rs import BytesAhoCorasick
    except ImportError:  # pragma: no cover - a declared dependency; the slower scan is exact
        return
    literal_automaton = BytesAhoCorasick([needle for needle, _, _ in PREFILTER])
