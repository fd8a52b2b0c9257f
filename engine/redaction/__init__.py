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
The rule table and the literal prefilter are in ``engine.redaction.rules``.
"""

# warm path: a warm `ade search` imports this; keep its imports light (ARCHITECTURE: The warm path)

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from types import ModuleType

from engine.basics.b64 import b64decode
from engine.redaction import rules as redaction_rules
from engine.redaction.rules import (
    ASSIGNMENT_KINDS,
    LABEL_BY_GROUP,
    RULES,
    full_pattern,
    prefilter_rules,
)
from engine.redaction.rules import scan_literals_in_one_pass as scan_literals_in_one_pass
from engine.redaction.values import PLACEHOLDER_START, is_placeholder

# The patterns below are compiled on first use: most texts never reach them, and a query that
# shows none pays nothing for them (journal: "Regexes compiled lazily").


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
    return _redact(text, None)


def redact_page(texts: Sequence[str]) -> list[str]:
    """``[redact_secrets(t) for t in texts]``, the rule literals and the gitleaks keywords looked
    for once in all of them joined: each text is then searched only for those found there (most
    pages of snippets hold none, and then a text costs no scan at all). A literal or keyword
    absent from the joined texts is absent from each one, so the answer is the same
    (tests/engine/test_redaction_page.py).

    Once this process has the one-pass automaton or has redacted a page before (a daemon, the
    palette), one pass over the joined page finds every text's literals and keywords with their
    places (``engine.redaction.scan.page_hits``); a process's first page is scanned literal by
    literal (a page's ~270 ``in`` scans were ~70% of redacting it), so a one-shot search never
    loads the extension module (the start-up budget)."""
    global _pages_redacted
    if not texts:
        return []
    later = redaction_rules.literal_automaton is not None or _pages_redacted > 0
    if not later:
        _pages_redacted += 1
    return _redact_texts(texts, one_pass=later)


def _redact_texts(texts: Sequence[str], *, one_pass: bool) -> list[str]:
    """:func:`redact_page` of ``texts``: from one pass of the automaton (``one_pass``, or when
    the ingester loaded its own), else each literal and keyword looked for in the joined texts."""
    redaction_scan = _scan or _load_scan()
    if one_pass or redaction_rules.literal_automaton is not None:
        haystacks = [text.encode("utf-8", "replace").lower() for text in texts]
        found = redaction_scan.page_hits(haystacks)
        return [_redact(text, None, known=(haystack, literals, hits))
                for text, haystack, (literals, hits) in zip(texts, haystacks, found, strict=True)]  # fmt: skip
    if len(texts) < 2:
        return [_redact(text, None) for text in texts]
    joined = "\n".join(texts).encode("utf-8", "replace").lower()
    literals, among = redaction_rules.literals_in(joined), redaction_scan.keywords_in(joined)
    return [_redact(text, among, literals) for text in texts]


_pages_redacted = 0
"""Pages :func:`redact_page` scanned literal by literal in this process: from the second page
on, the automaton (~1 ms to load) scans the page (~0.1 ms instead of ~1 ms for 50 snippets,
~10 us instead of ~60 us for one)."""


def reset_page_count() -> None:
    """Scan the next page as a process's first (literal by literal): for checks of both ways."""
    global _pages_redacted
    _pages_redacted = 0


def _redact(
    text: str,
    among: list[bytes] | None,
    literals: set[int] | None = None,
    known: tuple[bytes, set[int], dict[bytes, list[int]]] | None = None,
) -> str:
    """:func:`redact_secrets`. Known from the page the text is on (:func:`redact_page`):
    ``among``, the only gitleaks keywords ``text`` may hold, and ``literals``, the only
    ``PREFILTER`` entries whose literal it may hold; or ``known``, its lowercased UTF-8, the
    ``PREFILTER`` entries whose literal it holds and its keyword hits (``scan.one_pass``'s)."""
    tail = _pem_tail(text)
    if tail is not None and ("-----END" in tail.group() or _not_hex_re().search(tail.group())):
        text, among, literals, known = marker("private-key") + text[tail.end() :], None, None, None
    redaction_scan = _scan or _load_scan()
    haystack = found = hits = None
    if known is not None:
        haystack, found, hits = known
        if not found and not hits:
            return text  # no rule literal, no keyword: nothing here can match
    elif literals is not None:  # the page's literals and keywords: most pages hold none
        if not literals and among is not None and not among:
            return text
        haystack = text.encode("utf-8", "replace").lower()
        needles = redaction_rules.PREFILTER
        found = {entry for entry in literals if needles[entry][0] in haystack}
    elif redaction_rules.literal_automaton is not None:  # bulk: both rule sets' literals at once
        haystack = text.encode("utf-8", "replace").lower()
        found, hits = redaction_scan.one_pass(haystack)
    rules = prefilter_rules(text, haystack=haystack, found=found)
    if rules is not None:
        redacted = _redact_with(_secret_re_for(rules), text)
        if redacted != text:  # the keyword hits were of the text before
            text, haystack, hits, among = redacted, None, None, None
    # Then gitleaks' ~220 formats (engine.redaction.scan): after the rules above, so their
    # labels stay as they were, and a value they already replaced is not matched again.
    if hits is None and among is not None and not among:
        return text
    redacted_formats: str = redaction_scan.redact_formats(text, haystack, hits, among)
    return redacted_formats


_scan: ModuleType | None = None
"""``engine.redaction.scan`` (~220 rules) once text came to redact: imported on first use, then
kept here (an import statement in the per-document path cost ~12% of redacting a chunk)."""


def _load_scan() -> ModuleType:
    global _scan
    from engine.redaction import scan

    _scan = scan
    return scan


def _pem_tail(text: str) -> re.Match[str] | None:
    """``_pem_tail_re`` matched at the start of ``text``; text that cannot open with a body line
    (most text: its first characters are not all base64) is told apart without the regex."""
    head = text[:_PEM_LINE_MIN]
    if len(head) < _PEM_LINE_MIN or head.strip(_BASE64_CHARS):
        return None
    return _pem_tail_re().match(text)


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
    """:func:`redact_secrets` of each of many short lines (a query's file hits, up to
    ``EAGER_REDACTION_LINES``), as :func:`redact_page` redacts a page: only the lines holding a
    rule's literal or a gitleaks keyword are scanned. From ``ONE_PASS_LINES`` lines the
    automaton finds them in one pass even in a one-shot search (3,686 lines of ``the`` in
    junegunn/fzf: 60 ms CPU redacting them joined as one text, 49 ms literal by literal, 11 ms
    in one pass with the automaton's load; benchmarks/journal/2026-12-07-file-lines.md). The
    lines are not a page: the snippets' page after them is still a process's first.

    A bare AWS secret access key next to a redacted key id on a neighbouring line is redacted
    too, as in a transcript (``_redact_aws_secret_keys``): hits of one file come in line order."""
    if not lines:
        return []
    redacted = _redact_texts(lines, one_pass=len(lines) >= ONE_PASS_LINES)
    if not any(_AWS_ID_MARKER in line for line in redacted):
        return redacted
    paired = _redact_aws_secret_keys("\n".join(redacted)).split("\n")
    return paired if len(paired) == len(lines) else redacted


ONE_PASS_LINES = 150
"""From this many lines :func:`redact_lines` loads the one-pass automaton (~2 ms CPU) in a
process that has not: literal by literal a line costs ~12 us, in one pass ~1.5 us (fresh
processes, lines of junegunn/fzf: 100 lines 2.1 / 2.5 ms, 200 lines 3.4 / 2.5 ms)."""


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
    if len(rules) == len(RULES):
        return full_pattern()
    return re.compile("|".join(f"{RULES[i][1]}(?P<r{i}>)" for i in rules))


def _replace(match: re.Match[str]) -> str:
    """Build the replacement for one match of :func:`full_pattern`."""
    label = LABEL_BY_GROUP[match.lastgroup or ""]
    whole = match.group()
    if label == "sk":
        if not any(ch.isdigit() for ch in whole):
            return whole  # sk-some-long-kebab-slug, not a key
        return marker("anthropic-key" if whole.startswith("sk-ant-") else "openai-key")
    if label == "url":
        colon = whole.index(":", 3)
        if is_placeholder(whole[colon + 1 : -1]):
            return whole  # ``https://user:pass@example.com`` in docs and tests
        return whole[: colon + 1] + marker("password") + "@"
    if label == "auth":
        credential = _credential_re().search(whole)
        if credential is None or not _looks_secret(credential.group()):
            return whole  # "bearer of bad news", "Authorization: required"
        value = credential.group()
        if (
            match.string[match.end() : match.end() + 1] in ('"', "\\")
            or is_placeholder(value, decode=False)
            or (value.isalpha() and len(value) < 20)  # "401 Authorization Required"
        ):
            return whole  # ``Bearer realm="…"``: an auth parameter, not a credential
        return whole[: credential.start()] + marker("bearer-token")
    if label == "private-key-base64":
        return marker("private-key") if _encodes_a_private_key(whole) else whole
    if label in _KEEP_UP_TO:
        cut = _KEEP_UP_TO[label](whole) + 1
        return whole[:cut] + marker(label)
    if label in ASSIGNMENT_KINDS:
        if _code_after_value_re().match(match.string, match.end() - whole.endswith("-")):
            return whole  # ``secret = xmalloc(len)``, ``token = tok->next``: code, not a value
        return _replace_assignment(whole, label)
    return marker(label)


_KEEP_UP_TO = {
    "azure-storage-key": lambda whole: whole.index("="),
    "discord-webhook": lambda whole: whole.rindex("/"),
    "telegram-bot-token": lambda whole: whole.index(":"),
}
"""Where the public part of a match ends (``AccountKey=``, a webhook's URL and id, the ``:``
after a bot id): kept, so the context stays searchable."""


def _encodes_a_private_key(text: str) -> bool:
    """Whether base64 ``text`` decodes to a PEM ``PRIVATE KEY`` header (not a certificate)."""
    head = text[:64]
    try:
        decoded = b64decode(head[: len(head) // 4 * 4])
    except ValueError:  # pragma: no cover - the rule admits base64 characters only
        return False
    return b"PRIVATE KEY" in decoded


def _replace_assignment(whole: str, label: str) -> str:
    """``password=…``-style assignment: keep the key, redact a plausible value."""
    parts = _assignment_re().match(whole)
    if parts is None:  # pragma: no cover - every assignment rule has a separator
        return whole
    value = parts.group("value")
    quoted = value[:1] in ("'", '"')
    inner = value[1:-1] if quoted else value
    # ``key: value`` is also how errors and prose read (``token: expected``, ``Unknown TAP
    # token: "Initialized"``): there, a quoted token or secret needs a digit like a key has;
    # a quoted password stays lenient (``"password": "letmein"`` in JSON).
    strict = ":" in parts.group("sep") and (not quoted or label != "password")
    if not _plausible_value(inner, strict=strict, label=label, quoted=quoted):
        return whole
    redacted = value[0] + marker(label) + value[-1] if quoted else marker(label)
    return parts.group("key") + parts.group("sep") + redacted


@functools.cache
def _code_after_value_re() -> re.Pattern[str]:
    """What follows a value that is code: a call, a member access, an index (matched where the
    value ends, or at its last ``-`` when that began a ``->``). Compiled on first use: only an
    assignment-like secret reaches it."""
    return re.compile(r"\(|->|\.[A-Za-z_]|\[")


def _word_like(value: str, label: str) -> bool:
    """Code and prose rather than a secret. For tokens, secrets and keys: a lower-case word
    (``tok``, ``quit``), a number (``creationToken = 1644442601``), a CONSTANT_NAME. For
    passwords, which may be words: only a short unquoted lower-case word (``password=bar``)."""
    if label == "password":
        return value.isalpha() and value.islower() and len(value) <= 8
    if len(value) < 4 or value.isdigit() or (value.isalpha() and value.islower()):
        return True
    return "_" in value and value.replace("_", "").isalpha() and value.isupper()


def _plausible_value(value: str, *, strict: bool, label: str = "", quoted: bool = False) -> bool:
    """Whether an assigned value could be a secret rather than code, a type, or prose."""
    if len(value) < 3 or value.lower() in _STOPWORDS or value.startswith(PLACEHOLDER_START):
        return False
    if is_placeholder(value) or ((not quoted or label != "password") and _word_like(value, label)):
        return False
    if _dotted_name_re().fullmatch(value) and not any(ch.isdigit() for ch in value):
        return False
    return _looks_secret(value) and any(ch.isdigit() for ch in value) if strict else True


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
