"""Replace token-shaped secrets with a marker before text reaches the index.

The transcript on disk is never touched: only the indexed copy is redacted, so a snippet can
never show the raw value and a search for the secret finds nothing. One precompiled pattern, one
pass (:func:`redact_secrets`), tuned for few false positives: a git sha, a UUID, ``sk-learn``, and
ordinary words after ``token:`` in compiler errors stay as they are.

Known limit: the index sees text in chunks. Chunks are newline-aligned, so a one-line secret is
never split; a multi-line PEM private-key block can be. A block that begins in one chunk is
redacted from ``BEGIN`` to the end of that chunk, and the base64 lines that open the next chunk
are redacted up to their ``END`` line. Secrets that terminal rewrites (``\\r``, a long line cut
in two) break apart are not recognised.
"""

from __future__ import annotations

import functools
import re

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
    """(label, pattern) for every rule; each pattern starts with a literal (see SECRET_RE)."""
    boundary = "(?<![A-Za-z0-9_]{0})"
    rules = [
        (
            "private-key",
            r"-----BEGIN[A-Z0-9 ]*PRIVATE KEY-----(?s:.*?)"
            r"(?:-----END[A-Z0-9 ]*PRIVATE KEY-----|\Z)",
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

SECRET_RE = re.compile("|".join(f"{rule}(?P<r{i}>)" for i, (_, rule) in enumerate(_RULES)))
"""All rules in one alternation, one pass. Each alternative starts with a literal and reports
itself through an empty group at its end, so ``re`` skips to candidate characters in C instead
of trying every rule at every position (18 MB/s instead of 1 MB/s with leading ``\\b``/groups)."""

_LABEL_BY_GROUP = {f"r{i}": label for i, (label, _) in enumerate(_RULES)}
"""Rule label by the name of its end group."""

_ASSIGNMENT_KINDS = frozenset({"password", "token", "secret", "api-key"})
"""Rules that match ``key<sep>value``: only the value is redacted, and only when plausible."""

_NEEDLE_RE = re.compile(r"[A-Za-z0-9_:/-]+")
"""The literal a rule pattern starts with (up to its first regex syntax)."""


_GATES = {
    **dict.fromkeys(_ASSIGNMENT_KINDS, (b":", b"=")),
    "github-token": (b"_",),
    "slack-token": (b"-",),
    "jwt": (b".",),
}
"""Punctuation a rule's match always holds beyond its literal (``ghp_``, ``xoxb-``, a JWT's dots)."""


def _prefilter() -> list[tuple[bytes, tuple[bytes, ...], tuple[int, ...]]]:
    """``(needle, gate, rules)``: ``rules`` can match only where the lowercased text holds
    ``needle`` and at least one byte of ``gate`` (a ``memchr``-fast test tried first)."""
    table: dict[tuple[bytes, tuple[bytes, ...]], tuple[int, ...]] = {}
    for index, (label, rule) in enumerate(_RULES):
        needle = _NEEDLE_RE.match(rule).group().lower().encode()  # type: ignore[union-attr]
        punctuation = [bytes([b]) for b in needle if not chr(b).isalnum()]
        # An assignment needs its ``:`` or ``=``; a needle with punctuation needs that byte.
        gate = _GATES.get(label) or tuple(punctuation[:1])
        table[needle, gate] = (*table.get((needle, gate), ()), index)
    return [(needle, gate, rules) for (needle, gate), rules in table.items()]


_PREFILTER = _prefilter()
"""One entry per distinct rule literal. Checking ~18 literals with ``in`` costs about what one
pass of :data:`SECRET_RE` does, but the gates skip most of them in text without ``:``, ``=``,
``-`` or ``_``, and a chunk that holds none runs no regex at all (benchmarks/RESULTS.md)."""

_ASSIGNMENT_RE = re.compile(r"""(?P<key>[^:="']*)(?P<sep>["']?[ \t]*[:=][ \t]*)(?P<value>.*)""")
"""Split an assignment match into key, separator and value (keys hold no ``:=`` or quotes)."""

_CREDENTIAL_RE = re.compile(r"[A-Za-z0-9._~+/=-]+\Z")
"""The credential at the end of an ``Authorization``/``Bearer`` match."""

_PEM_TAIL_RE = re.compile(
    r"\A(?:[A-Za-z0-9+/=]{16,}\r?\n)+(?:[A-Za-z0-9+/=]+\r?\n)?"
    r"(?:-----END[A-Z0-9 ]*PRIVATE KEY-----|\Z)"
)
"""Text that opens with the body of a PEM block whose BEGIN was in the previous chunk."""

_NOT_HEX_RE = re.compile(r"[G-Zg-z+/]")
"""A base64 body has letters beyond hex; a column of git shas or sha256 sums has none."""

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

_DOTTED_NAME_RE = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+")
"""``password = self.password`` in code: an attribute access (without digits), not a secret."""


def marker(label: str) -> str:
    """The text that stands in for a redacted secret."""
    return f"[REDACTED:{label}]"


def redact_secrets(text: str) -> str:
    """Replace token-shaped secrets in ``text`` with ``[REDACTED:<kind>]`` markers.

    Keys, schemes and URL user names are kept so the context stays searchable
    (``DB_PASSWORD=[REDACTED:password]``, ``Bearer [REDACTED:bearer-token]``).
    """
    tail = _PEM_TAIL_RE.match(text)
    if tail is not None and ("-----END" in tail.group() or _NOT_HEX_RE.search(tail.group())):
        text = marker("private-key") + text[tail.end() :]
    haystack = text.encode("utf-8", "replace").lower()  # ASCII literals survive both steps
    present = [
        rules
        for needle, gate, rules in _PREFILTER
        if (not gate or any(b in haystack for b in gate)) and needle in haystack
    ]
    if not present:
        return text
    return _secret_re_for(tuple(sorted(i for rules in present for i in rules))).sub(_replace, text)


@functools.lru_cache(maxsize=64)
def _secret_re_for(rules: tuple[int, ...]) -> re.Pattern[str]:
    """:data:`SECRET_RE` with only ``rules``: a rule whose literal is absent cannot match, so the
    matches are the same, and the scan skips to fewer candidate characters (``://`` alone in a
    chunk with a URL instead of every ``a``, ``p``, ``s`` and ``t``)."""
    if len(rules) == len(_RULES):
        return SECRET_RE
    return re.compile("|".join(f"{_RULES[i][1]}(?P<r{i}>)" for i in rules))


def _replace(match: re.Match[str]) -> str:
    """Build the replacement for one match of :data:`SECRET_RE`."""
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
        credential = _CREDENTIAL_RE.search(whole)
        if credential is None or not _looks_secret(credential.group()):
            return whole  # "bearer of bad news", "Authorization: required"
        return whole[: credential.start()] + marker("bearer-token")
    if label in _ASSIGNMENT_KINDS:
        return _replace_assignment(whole, label)
    return marker(label)


def _replace_assignment(whole: str, label: str) -> str:
    """``password=…``-style assignment: keep the key, redact a plausible value."""
    parts = _ASSIGNMENT_RE.match(whole)
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
    if _DOTTED_NAME_RE.fullmatch(value) and not any(ch.isdigit() for ch in value):
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
