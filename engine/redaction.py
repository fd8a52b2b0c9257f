"""Replace token-shaped secrets with a marker before text reaches the index.

The transcript on disk is never touched: only the indexed copy is redacted, so a snippet can
never show the raw value and a search for the secret finds nothing. One precompiled pattern, one
pass (:func:`redact_secrets`), tuned for few false positives: a git sha, a UUID, ``sk-learn``, and
ordinary words after ``token:`` in compiler errors stay as they are.

Known limit: the index sees text in chunks. Chunks are newline-aligned, so a one-line secret is
never split; a multi-line PEM private-key block can be. A block that begins in one chunk is
redacted from ``BEGIN`` to the end of that chunk, and the base64 lines that open the next chunk
are redacted up to their ``END`` line (PGP ``PRIVATE KEY BLOCK`` armour alike). An AWS secret
access key is recognised without a ``secret`` word only within ``AWS_NEARBY_LINES`` of its key
id in the same chunk. Secrets that terminal rewrites (``\\r``, a long line cut in two) break
apart are not recognised.

Titles, command lines and subjects go through :func:`redact_title` (the same rules, cached).
"""

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
        ("url", r"://[^\s/:@]+:[^\s/@]+@"),
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


_RULES = _rules()
"""Every rule; the ones labelled sk, url, auth or an assignment kind get a closer look."""


@functools.cache
def full_pattern() -> re.Pattern[str]:
    """All rules in one alternation, one pass. Each alternative starts with a literal and reports
    itself through an empty group at its end, so ``re`` skips to candidate characters in C instead
    of trying every rule at every position (18 MB/s instead of 1 MB/s with leading ``\\b``/groups).

    Compiled on first use (~10 ms): a search that shows no text holding a rule's literal never
    pays for it (issue 5's start-up budget); ``redact_secrets`` compiles only the rules present.
    """
    return re.compile("|".join(f"{rule}(?P<r{i}>)" for i, (_, rule) in enumerate(_RULES)))


_LABEL_BY_GROUP = {f"r{i}": label for i, (label, _) in enumerate(_RULES)}
"""Rule label by the name of its end group."""

_ASSIGNMENT_KINDS = frozenset({"password", "token", "secret", "api-key"})
"""Rules that match ``key<sep>value``: only the value is redacted, and only when plausible."""

_NEEDLE_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_:/-")
"""What a rule's leading literal is made of (it ends at the first regex syntax)."""


def _leading_literal(rule: str) -> str:
    """The literal a rule pattern starts with: ``[A-Za-z0-9_:/-]+`` at its start, found without
    compiling a regex at import (a query redacts without needing one)."""
    end = next((i for i, ch in enumerate(rule) if ch not in _NEEDLE_CHARS), len(rule))
    return rule[:end]


_GATES = {
    **dict.fromkeys(_ASSIGNMENT_KINDS, (b":", b"=")),
    "github-token": (b"_",),
    "slack-token": (b"-",),
    "jwt": (b".",),
}
"""Punctuation a rule's match always holds beyond its literal (``ghp_``, ``xoxb-``, a JWT's dots)."""


def _prefilter() -> list[tuple[bytes, frozenset[bytes], tuple[int, ...]]]:
    """``(needle, gate, rules)``: ``rules`` can match only where the lowercased text holds
    ``needle`` and at least one byte of ``gate`` (a ``memchr``-fast test tried first)."""
    table: dict[tuple[bytes, frozenset[bytes]], tuple[int, ...]] = {}
    for index, (label, rule) in enumerate(_RULES):
        needle = _leading_literal(rule).lower().encode()
        if label == "stripe-key":
            needle = needle[1:]  # sk_live_ and rk_live_ share one test of k_live_
        punctuation = [bytes([b]) for b in needle if not chr(b).isalnum()]
        # An assignment needs its ``:`` or ``=``; a needle with punctuation needs that byte.
        gate = frozenset(_GATES.get(label) or punctuation[:1])
        table[needle, gate] = (*table.get((needle, gate), ()), index)
    return [(needle, gate, rules) for (needle, gate), rules in table.items()]


_PREFILTER = _prefilter()
"""One entry per distinct rule literal. Checking ~24 literals with ``in`` costs about what one
pass of :func:`full_pattern` does, but the gates skip most of them in text without ``:``, ``=``,
``-`` or ``_``, and a chunk that holds none runs no regex at all (benchmarks/RESULTS.md)."""

_GATE_BYTES = sorted({b for _, gate, _ in _PREFILTER for b in gate})
"""Every gate byte: each is looked for once a chunk, not once per literal."""

# The patterns below are compiled on first use: most texts never reach them, and a query that
# shows none pays nothing for them (issue 14.4, h-regex).


@functools.cache
def _assignment_re() -> re.Pattern[str]:
    """Split an assignment match into key, separator and value (keys hold no ``:=`` or quotes)."""
    return re.compile(r"""(?P<key>[^:="']*)(?P<sep>["']?[ \t]*[:=][ \t]*)(?P<value>.*)""")


@functools.cache
def _credential_re() -> re.Pattern[str]:
    """The credential at the end of an ``Authorization``/``Bearer`` match."""
    return re.compile(r"[A-Za-z0-9._~+/=-]+\Z")


_BASE64_CHARS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/="
_PEM_LINE_MIN = 16
"""A PEM body line is at least this many base64 characters (``_pem_tail_re``'s ``{16,}``)."""


@functools.cache
def _pem_tail_re() -> re.Pattern[str]:
    """Text that opens with the body of a PEM (or PGP) block whose BEGIN was in the previous
    chunk. Only text whose first ``_PEM_LINE_MIN`` characters are base64 can match."""
    return re.compile(
        r"\A(?:[A-Za-z0-9+/=]{16,}\r?\n)+(?:[A-Za-z0-9+/=]+\r?\n)?"
        r"(?:-----END[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|\Z)"
    )


@functools.cache
def _not_hex_re() -> re.Pattern[str]:
    """A base64 body has letters beyond hex; a column of git shas or sha256 sums has none."""
    return re.compile(r"[G-Zg-z+/]")


_STOPWORDS = frozenset(
    [
        "none",
        "null",
        "nil",
        "true",
        "false",
        "undefined",
        "str",
        "string",
        "bytes",
        "int",
        "bool",
        "any",
        "optional",
        "required",
        "password",
        "passwd",
        "secret",
        "token",
        "redacted",
        "example",
        "xxx",
        "xxxx",
        "xxxxxx",
    ]
)
"""Values that are types, placeholders or words in prose, not secrets."""

_PLACEHOLDER_START = ("$", "%", "{", "<", "*", "[REDACTED", "…", "...")
"""Values starting like this are template variables, masks or already redacted."""


@functools.cache
def _dotted_name_re() -> re.Pattern[str]:
    """``password = self.password`` in code: an attribute access (without digits), not a secret."""
    return re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+")


def marker(label: str) -> str:
    """The text that stands in for a redacted secret."""
    return f"[REDACTED:{label}]"


def redact_secrets(text: str) -> str:
    """Replace token-shaped secrets in ``text`` with ``[REDACTED:<kind>]`` markers.

    Keys, schemes and URL user names are kept so the context stays searchable
    (``DB_PASSWORD=[REDACTED:password]``, ``Bearer [REDACTED:bearer-token]``).
    """
    tail = _pem_tail(text)
    if tail is not None and ("-----END" in tail.group() or _not_hex_re().search(tail.group())):
        text = marker("private-key") + text[tail.end() :]
    rules = _prefilter_rules(text)
    if rules is None:
        return text
    return _redact_with(_secret_re_for(rules), text)


def _pem_tail(text: str) -> re.Match[str] | None:
    """``_pem_tail_re`` matched at the start of ``text``; text that cannot open with a body line
    (most text: its first characters are not all base64) is told apart without the regex."""
    head = text[:_PEM_LINE_MIN]
    if len(head) < _PEM_LINE_MIN or head.strip(_BASE64_CHARS):
        return None
    return _pem_tail_re().match(text)


def _prefilter_rules(text: str) -> tuple[int, ...] | None:
    """The rules whose literal (and gate) occur in ``text``, sorted; None when there are none."""
    haystack = text.encode("utf-8", "replace").lower()  # ASCII literals survive both steps
    automaton = _automaton
    if automaton is not None:
        # The literals found first, in one pass; then only their gates are looked for.
        found = {entry for entry, _, _ in automaton.find_matches_as_indexes(haystack, True)}
        present = [
            rules
            for _, gate, rules in map(_PREFILTER.__getitem__, found)
            if not gate or any(byte in haystack for byte in gate)
        ]
    else:
        gates = {b for b in _GATE_BYTES if b in haystack}
        present = [
            rules
            for needle, gate, rules in _PREFILTER
            if (not gate or not gate.isdisjoint(gates)) and needle in haystack
        ]
    if not present:
        return None
    return tuple(sorted(i for rules in present for i in rules))


_automaton: BytesAhoCorasick | None = None
"""The literals as one Aho-Corasick automaton, once :func:`scan_literals_in_one_pass` ran."""


def scan_literals_in_one_pass() -> None:
    """Find the rule literals in one pass over each text instead of one ``in`` per literal.

    For bulk redaction (the ingester's builders call it): ~24 ``bytes.__contains__`` scans cost
    ~20% of planning a transcript, one Aho-Corasick pass (``ahocorasick_rs``, the Rust
    ``aho-corasick`` crate) an eighth of that (benchmarks/RESULTS.md, h-plan). Not done on import:
    a query redacts a page of short snippets, where the scans cost nothing and loading the
    extension module would (issue 5's start-up budget). Same rules found either way (overlapping
    matches: a literal inside or across another is still seen); without the module the
    per-literal scan stays.
    """
    global _automaton
    if _automaton is not None:
        return
    try:
        from ahocorasick_rs import BytesAhoCorasick
    except ImportError:  # pragma: no cover - a declared dependency; the slower scan is exact
        return
    _automaton = BytesAhoCorasick([needle for needle, _, _ in _PREFILTER])


def _redact_with(pattern: re.Pattern[str], text: str) -> str:
    """One pass of ``pattern`` (:func:`full_pattern` or a subset of it), then the AWS pairing."""
    text = pattern.sub(_replace, text)
    if _AWS_ID_MARKER in text:
        text = _redact_aws_secret_keys(text)
    return text


@functools.lru_cache(maxsize=4096)
def redact_title(title: str) -> str:
    """:func:`redact_secrets` for a title, a command line or a subject: a short field that is
    stored (``docs.title``, ``rank_title``), searched and shown. Titles repeat on every message
    and chunk doc of a session, so the answer is cached."""
    return redact_secrets(title)


def redact_lines(lines: list[str]) -> list[str]:
    """:func:`redact_secrets` for each of many short lines (file hits): one literal prefilter
    over all of them first, so a page of ordinary lines costs one test, not one per line."""
    joined = "\n".join(lines)
    if not lines or _prefilter_rules(joined) is None:
        return lines
    # One pass over all lines; per line only when a match crossed a line end (a key block).
    redacted = redact_secrets(joined).split("\n")
    return redacted if len(redacted) == len(lines) else [redact_secrets(line) for line in lines]


AWS_NEARBY_LINES = 2
"""How far from an AWS access key id a bare secret access key is looked for (lines each side)."""

_AWS_ID_MARKER = "[REDACTED:aws-access-key-id]"


@functools.cache
def _aws_secret_key_re() -> re.Pattern[str]:
    """A 40-character base64 run standing alone: the shape of an AWS secret access key."""
    return re.compile(r"(?<![A-Za-z0-9/+=])[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+=])")


def _redact_aws_secret_keys(text: str) -> str:
    """Redact secret access keys near a redacted ``AKIA``/``ASIA`` key id, with no ``secret``
    word needed (``AKIA…,wJalr…`` in an IAM CSV, two ``export`` lines, a config dump).

    Rule, for few false positives: a 40-character run of ``[A-Za-z0-9/+]`` delimited on both
    sides, mixing upper case, lower case and digits, on the key id's line or within
    ``AWS_NEARBY_LINES`` lines of it. A git sha (hex, one case), a word or a path segment of
    another length never qualifies, and none is looked for without a key id nearby. Runs only
    when a key id was found, so ordinary text pays nothing.
    """
    lines = text.split("\n")
    near: set[int] = set()
    for number, line in enumerate(lines):
        if _AWS_ID_MARKER in line:
            near.update(range(number - AWS_NEARBY_LINES, number + AWS_NEARBY_LINES + 1))
    secret_key = _aws_secret_key_re()
    for number in sorted(n for n in near if 0 <= n < len(lines)):
        lines[number] = secret_key.sub(_aws_secret_key_or_keep, lines[number])
    return "\n".join(lines)


def _aws_secret_key_or_keep(match: re.Match[str]) -> str:
    value = match.group()
    mixed = (
        any(ch.isupper() for ch in value)
        and any(ch.islower() for ch in value)
        and any(ch.isdigit() for ch in value)
    )
    return marker("aws-secret-access-key") if mixed else value


@functools.lru_cache(maxsize=64)
def _secret_re_for(rules: tuple[int, ...]) -> re.Pattern[str]:
    """:func:`full_pattern` with only ``rules``: a rule whose literal is absent cannot match, so the
    matches are the same, and the scan skips to fewer candidate characters (``://`` alone in a
    chunk with a URL instead of every ``a``, ``p``, ``s`` and ``t``)."""
    if len(rules) == len(_RULES):
        return full_pattern()
    return re.compile("|".join(f"{_RULES[i][1]}(?P<r{i}>)" for i in rules))


def _replace(match: re.Match[str]) -> str:
    """Build the replacement for one match of :func:`full_pattern`."""
    label = _LABEL_BY_GROUP[match.lastgroup or ""]
    whole = match.group()
    if label == "sk":
        if not any(ch.isdigit() for ch in whole):
            return whole  # sk-some-long-kebab-slug, not a key
        return marker("anthropic-key" if whole.startswith("sk-ant-") else "openai-key")
    if label == "url":
        colon = whole.index(":", 3)
        return whole[: colon + 1] + marker("password") + "@"
    if label == "auth":
        credential = _credential_re().search(whole)
        if credential is None or not _looks_secret(credential.group()):
            return whole  # "bearer of bad news", "Authorization: required"
        return whole[: credential.start()] + marker("bearer-token")
    if label in _ASSIGNMENT_KINDS:
        return _replace_assignment(whole, label)
    return marker(label)


def _replace_assignment(whole: str, label: str) -> str:
    """``password=…``-style assignment: keep the key, redact a plausible value."""
    parts = _assignment_re().match(whole)
    if parts is None:  # pragma: no cover - every assignment rule has a separator
        return whole
    value = parts.group("value")
    quoted = value[:1] in ("'", '"')
    inner = value[1:-1] if quoted else value
    strict = ":" in parts.group("sep") and not quoted
    if not _plausible_value(inner, strict=strict):
        return whole
    redacted = value[0] + marker(label) + value[-1] if quoted else marker(label)
    return parts.group("key") + parts.group("sep") + redacted


def _plausible_value(value: str, *, strict: bool) -> bool:
    """Whether an assigned value could be a secret rather than code, a type, or prose."""
    if len(value) < 3 or value.lower() in _STOPWORDS or value.startswith(_PLACEHOLDER_START):
        return False
    if _dotted_name_re().fullmatch(value) and not any(ch.isdigit() for ch in value):
        return False
    # ``key: value`` unquoted is also how errors and prose read ("token: expected"): demand shape.
    return _looks_secret(value) if strict else True


def _looks_secret(value: str) -> bool:
    """At least 8 characters mixing two classes (lower, upper, digit, symbol)."""
    if len(value) < 8:
        return False
    classes = (
        any(ch.islower() for ch in value)
        + any(ch.isupper() for ch in value)
        + any(ch.isdigit() for ch in value)
        + any(not ch.isalnum() for ch in value)
    )
    return classes >= 2
