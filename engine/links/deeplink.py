"""``ade://`` deep links (DESIGN §6): build and strictly parse every form. Pure: no I/O.

A link is ``ade://<kind>/<target>[?<name>=<value>&…]``. Targets and values are percent-encoded
UTF-8; ``branch`` and ``file`` targets keep their ``/`` separators, every other target is one
component. Parsing follows RELIABILITY item 24: the text is decoded exactly once, anything
unknown, repeated, out of range or still percent-encoded after that one decode is refused with a
``DeepLinkError`` whose message is one readable line. Whether a file link stays inside its lane
is checked against the disk by ``engine.links.targets``.

Building validates with the same rules as parsing, so ``parse_deep_link(build_deep_link(x)) == x``
for every link that builds.
"""

# warm path: a warm `ade search` imports this; keep its imports light (ARCHITECTURE: The warm path)

from __future__ import annotations

import functools
import re
import unicodedata
from urllib.parse import quote, unquote

import msgspec

from engine.errors import DeepLinkError
from engine.project.model import is_valid_session_id
from engine.project.pr_reviews import review_item_id_re

SCHEME_PREFIX = "ade://"
"""The only accepted scheme, lower case as built; a link is opaque to anything else."""

DEEP_LINK_KINDS: tuple[str, ...] = (
    "chat", "terminal", "pr", "commit", "branch", "lane", "file", "artifact", "linear",
)  # fmt: skip
"""Every link kind, in the order of ``engine.types.ALL_KINDS``."""

ENVELOPE_KINDS: frozenset[str] = frozenset({"chat", "terminal", "lane", "commit"})
"""Kinds that carry the portable envelope (session, lane and commit links, DESIGN §6)."""

PARAM_ORDER: tuple[str, ...] = (
    "event", "offset", "line", "col", "review", "comment", "lane", "project", "repo", "branch",
    "pr", "linear",
)  # fmt: skip
"""Canonical parameter order: anchor first, then project, then the envelope."""

_KIND_PARAMS: dict[str, tuple[str, ...]] = {
    "chat": ("event",),
    "terminal": ("offset",),
    "file": ("line", "col", "lane"),
    "pr": ("review", "comment"),
}
_ENVELOPE_PARAMS: tuple[str, ...] = ("repo", "branch", "pr", "linear")

MAX_SAFE_INT = 2**53 - 1
"""Largest event seq / byte offset: JavaScript clients read the same links as exact numbers."""

MAX_LINE = 10**7
"""No source file we would open has ten million lines; larger is a corrupt or hostile link."""

MAX_PR = 10**9
"""GitHub PR numbers are far below this; it keeps the value a small int everywhere."""

MAX_LINK_CHARS = 16_384
"""Longest accepted link text: a deep path plus envelope fits many times over."""

MAX_VALUE_CHARS = 4_096
"""Longest decoded target or parameter value (PATH_MAX on Linux)."""

_MAX_DIGITS = 20
"""Digit strings longer than this are refused before ``int()`` ever sees them."""

# The patterns are compiled on first use (functools.cache), and the tests of every link, a
# character's or a number's, are string methods: a warm search's links (built, and parsed again
# for a terminal hit) hold no ``%`` and no commit, PR, repository or Linear target unless one is
# a hit, so it compiles none of them (~0.4 M instructions each, 7 before,
# benchmarks/journal/2026-12-08-inproc-start.md).


_RAW_ALLOWED = frozenset(
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~!$&'()*+,;=:@/?%"
)
"""RFC 3986 unreserved, sub-delims and ``:@/?%``: spaces, quotes, ``#``, ``\\`` must be encoded."""


@functools.cache
def _escape_re() -> re.Pattern[str]:
    """A percent escape left in decoded text (only text holding a ``%`` is searched)."""
    return re.compile(r"%[0-9A-Fa-f]{2}")


@functools.cache
def _bad_percent_re() -> re.Pattern[str]:
    """A ``%`` not followed by two hex digits (a link parsed)."""
    return re.compile(r"%(?![0-9A-Fa-f]{2})")


def _plain_digits(value: str) -> bool:
    """``0|[1-9][0-9]*`` in full: ASCII decimal digits without a leading zero."""
    return value.isascii() and value.isdigit() and (value == "0" or value[0] != "0")


@functools.cache
def _sha_re() -> re.Pattern[str]:
    """A commit's hex digits, abbreviated or full."""
    return re.compile(r"[0-9a-fA-F]{4,64}")


@functools.cache
def _linear_re() -> re.Pattern[str]:
    """A Linear issue identifier, ``ABC-123``."""
    return re.compile(r"[A-Z][A-Z0-9]*-[0-9]+")


@functools.cache
def _repo_re() -> re.Pattern[str]:
    """``owner/name`` (or ``group/sub/name``) made of ``[A-Za-z0-9_.-]`` segments."""
    return re.compile(r"[A-Za-z0-9_.-]+(?:/[A-Za-z0-9_.-]+)+")


_BRANCH_BAD_CHARS = frozenset(" ~^:?*[\\")
"""Characters git refuses in a ref name (``git check-ref-format``), besides control characters."""


class Envelope(msgspec.Struct, frozen=True):
    """Portable context of a session, lane or commit: where it lives outside this machine."""

    repo: str | None = None
    branch: str | None = None
    pr: int | None = None
    linear: str | None = None

    def is_empty(self) -> bool:
        """True when no field is set; an empty envelope is not written into a link."""
        return self.repo is None and self.branch is None and self.pr is None and self.linear is None


class DeepLink(msgspec.Struct, frozen=True):
    """One parsed link. ``target`` is decoded text (a PR number is its decimal digits)."""

    kind: str
    target: str
    project_id: str | None = None
    event: int | None = None
    offset: int | None = None
    line: int | None = None
    lane: str | None = None
    envelope: Envelope | None = None
    column: int | None = None
    """A file link's character column on ``line`` (``col=``), 1-based."""
    review: str | None = None
    """A PR link's review (its node id): the link lands on that review."""
    comment: str | None = None
    """A PR link's review comment (its number): the link lands on that comment of the diff."""


# --- validation (shared by build and parse) --------------------------------------------------


def _check_text(what: str, value: object, *, file_name: bool = False) -> str:
    """Refuse non-strings, empty or huge values, control characters and leftover escapes.

    A file name (``file_name``) may hold any byte git allows but NUL: a control character
    (a newline) and an undecodable byte (a lone surrogate of ``os.fsdecode``, U+DC80–U+DCFF)
    are part of the name, and its link carries them percent-encoded (the tree git sees)."""
    if not isinstance(value, str):
        raise DeepLinkError(f"{what} must be text, not {type(value).__name__}")
    if not value:
        raise DeepLinkError(f"{what} is empty")
    if len(value) > MAX_VALUE_CHARS:
        raise DeepLinkError(f"{what} is longer than {MAX_VALUE_CHARS} characters")
    # Printable ASCII (every id and number a link holds) has neither: skip the per-character walk.
    for ch in "" if value.isascii() and value.isprintable() else value:
        # Cc covers NUL, C0, DEL and C1; Cs (lone surrogates) cannot be UTF-8 encoded.
        if unicodedata.category(ch) in ("Cc", "Cs") and not (
            file_name and ch != "\x00" and (ch < "\ud800" or "\udc80" <= ch <= "\udcff")
        ):
            raise DeepLinkError(f"{what} contains the control character {ch!r}")
    escape = _escape_re().search(value) if "%" in value else None
    if escape:
        raise DeepLinkError(f"{what} is still percent-encoded after decoding ({escape.group()!r})")
    return value


def _check_int(what: str, value: object, low: int, high: int) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise DeepLinkError(f"{what} must be an integer, not {type(value).__name__}")
    if not low <= value <= high:
        raise DeepLinkError(f"{what} must be in {low}..{high}, got {value}")
    return value


def validate_relative_path(text: str) -> tuple[str, ...]:
    """Check a decoded, lane-relative file path and return its segments.

    Raises:
        DeepLinkError: the path is absolute, has an empty, ``.`` or ``..`` segment, a
            backslash, a control character, or an escape left over from double encoding.
    """
    _check_text("file path", text, file_name=True)
    if "\\" in text:
        raise DeepLinkError(f"file path {text!r} contains a backslash")
    if text.startswith("/"):
        raise DeepLinkError(f"file path {text!r} is absolute; it must be relative to its lane")
    parts = tuple(text.split("/"))
    for part in parts:
        if part in ("", ".", ".."):
            raise DeepLinkError(f"file path {text!r} has a {part or 'empty'!r} segment")
    return parts


def is_valid_branch_name(name: object) -> bool:
    """True when ``name`` is a branch name git would accept (``git check-ref-format --branch``)."""
    try:
        _check_branch("branch name", name)
    except DeepLinkError:
        return False
    return True


def _check_branch(what: str, name: object) -> str:
    value = _check_text(what, name)
    bad = (
        value == "@"
        or "@{" in value
        or ".." in value
        or value.startswith("-")
        or value.endswith(".")
        or any(ch in _BRANCH_BAD_CHARS for ch in value)
        or any(not seg or seg.startswith(".") or seg.endswith(".lock") for seg in value.split("/"))
    )
    if bad:
        raise DeepLinkError(f"{what} {value!r} is not a valid git branch name")
    return value


def is_valid_repo_slug(slug: object) -> bool:
    """True for ``owner/name`` (or ``group/sub/name``) made of ``[A-Za-z0-9_.-]`` segments."""
    return (
        isinstance(slug, str)
        and len(slug) <= MAX_VALUE_CHARS
        and _repo_re().fullmatch(slug) is not None
        and all(seg not in (".", "..") for seg in slug.split("/"))
    )


def is_valid_linear_identifier(value: object) -> bool:
    """True for a Linear issue identifier such as ``ABC-123``."""
    return isinstance(value, str) and len(value) <= 64 and _linear_re().fullmatch(value) is not None


def _check_target(kind: str, target: object) -> None:
    value = _check_text(f"{kind} target", target, file_name=kind == "file")
    if kind in ("chat", "terminal", "artifact"):
        # Session and artifact ids become file names, so they get the session-id rule.
        if not is_valid_session_id(value):
            raise DeepLinkError(f"{kind} id {value!r} must match [A-Za-z0-9._-]{{1,128}}")
    elif kind == "pr":
        if not _plain_digits(value) or len(value) > _MAX_DIGITS:
            raise DeepLinkError(f"PR number {value!r} must be plain decimal digits")
        _check_int("PR number", int(value), 1, MAX_PR)
    elif kind == "commit":
        if not _sha_re().fullmatch(value):
            raise DeepLinkError(f"commit {value!r} must be 4 to 64 hex digits")
    elif kind == "branch":
        _check_branch("branch", value)
    elif kind == "file":
        validate_relative_path(value)
    elif kind == "linear" and not is_valid_linear_identifier(value):
        raise DeepLinkError(f"Linear identifier {value!r} must look like ABC-123")


def _check_param(name: str, value: object) -> None:
    if name in ("event", "offset"):
        _check_int(name, value, 0, MAX_SAFE_INT)
    elif name == "line":
        _check_int(name, value, 1, MAX_LINE)
    elif name == "col":  # a character column of the line (file links land on the match)
        _check_int(name, value, 1, MAX_SAFE_INT)
    elif name == "pr":
        _check_int(name, value, 1, MAX_PR)
    elif name == "repo":
        if not is_valid_repo_slug(value):
            raise DeepLinkError(f"repo {value!r} must look like owner/name")
    elif name == "branch":
        _check_branch("branch", value)
    elif name == "linear":
        if not is_valid_linear_identifier(value):
            raise DeepLinkError(f"linear {value!r} must look like ABC-123")
    elif name in ("review", "comment"):
        if not isinstance(value, str) or review_item_id_re().fullmatch(value) is None:
            raise DeepLinkError(f"{name} {value!r} must be an id of [A-Za-z0-9_=-]")
    else:  # lane, project: free text without control characters
        _check_text(name, value)


@functools.lru_cache(maxsize=64)  # a page of hits builds a link each; the answer is fixed
def allowed_params(kind: str) -> tuple[str, ...]:
    """Parameter names a link of ``kind`` may carry, in canonical order."""
    names = {*_KIND_PARAMS.get(kind, ()), "project"}
    if kind in ENVELOPE_KINDS:
        names.update(_ENVELOPE_PARAMS)
    return tuple(name for name in PARAM_ORDER if name in names)


def _fields(link: DeepLink) -> list[tuple[str, object]]:
    """The link's set parameters in canonical order (``PARAM_ORDER``)."""
    env = link.envelope or Envelope()
    values: dict[str, object] = {
        "event": link.event,
        "offset": link.offset,
        "line": link.line,
        "col": link.column,
        "review": link.review,
        "comment": link.comment,
        "lane": link.lane,
        "project": link.project_id,
        "repo": env.repo,
        "branch": env.branch,
        "pr": env.pr,
        "linear": env.linear,
    }
    return [(name, values[name]) for name in PARAM_ORDER if values[name] is not None]


def _validate(link: DeepLink, fields: list[tuple[str, object]]) -> None:
    """Raise unless ``link`` (whose set parameters are ``fields``) would parse back."""
    if link.kind not in DEEP_LINK_KINDS:
        raise DeepLinkError(f"unknown kind {link.kind!r} (valid: {', '.join(DEEP_LINK_KINDS)})")
    _check_target(link.kind, link.target)
    allowed = allowed_params(link.kind)
    for name, value in fields:
        if name not in allowed:
            raise DeepLinkError(
                f"parameter {name!r} does not apply to {link.kind} links"
                f" (allowed: {', '.join(allowed)})"
            )
        _check_param(name, value)


# --- building ----------------------------------------------------------------------------------


def _encode_target(kind: str, target: str) -> str:
    if kind == "file":  # a name's undecodable bytes are encoded as the bytes they are
        return "/".join(quote(seg, safe="", errors="surrogateescape") for seg in target.split("/"))
    if kind == "branch":
        return "/".join(quote(segment, safe="") for segment in target.split("/"))
    return quote(target, safe="")


def _encode_value(value: object) -> str:
    """A parameter's value percent-encoded; an integer's digits need none."""
    return str(value) if type(value) is int else quote(str(value), safe="")


def build_deep_link(link: DeepLink) -> str:
    """Build the canonical text of ``link``: encoded components, parameters in fixed order.

    An envelope with no field set is left out (``parse_deep_link`` then returns ``None``).

    Raises:
        DeepLinkError: the link would not parse back (bad target, value out of range, a
            parameter that does not apply to the kind).
    """
    fields = _fields(link)
    kind, target = link.kind, link.target
    try:
        checked = kind in DEEP_LINK_KINDS and type(target) is str
        allowed = allowed_params(kind) if checked else ()
        if not checked or any(name not in allowed for name, _ in fields):
            _validate(link, fields)
            text = f"{SCHEME_PREFIX}{kind}/{_encode_target(kind, target)}"
            parts = [f"{name}={_encode_value(value)}" for name, value in fields]
        else:  # ``_validate``'s checks in its order, a page's repeated text values once each
            text = _head(kind, target)
            parts = [
                _text_param(name, value) if type(value) is str else _int_param(name, value)
                for name, value in fields
            ]
    except DeepLinkError as err:
        raise DeepLinkError(f"cannot build {kind!r} deep link: {err}") from None
    return f"{text}?{'&'.join(parts)}" if parts else text


def _int_param(name: str, value: object) -> str:
    _check_param(name, value)
    return f"{name}={_encode_value(value)}"


@functools.lru_cache(maxsize=1024)
def _head(kind: str, target: str) -> str:
    """``ade://<kind>/<target>`` once ``target`` is checked (a refused one is not kept)."""
    _check_target(kind, target)
    return f"{SCHEME_PREFIX}{kind}/{_encode_target(kind, target)}"


@functools.lru_cache(maxsize=256)
def _text_param(name: str, value: str) -> str:
    """``name=<value>`` once ``value`` is checked (a refused one is not kept)."""
    _check_param(name, value)
    return f"{name}={_encode_value(value)}"


def build_link(
    kind: str,
    target: str,
    *,
    project_id: str | None = None,
    event: int | None = None,
    offset: int | None = None,
    line: int | None = None,
    lane: str | None = None,
    envelope: Envelope | None = None,
    column: int | None = None,
    review: str | None = None,
    comment: str | None = None,
) -> str:
    """Build a link from its parts; see ``build_deep_link``."""
    return build_deep_link(
        DeepLink(
            kind,
            target,
            project_id,
            event,
            offset,
            line,
            lane,
            _non_empty(envelope),
            column,
            review=review,
            comment=comment,
        )
    )


def session_link(kind: str, target: str, number: int | None, project_id: str | None) -> str:
    """``build_link(kind, target, project_id=..., event=number)`` for a chat (``offset=`` for a
    terminal): a page's hits are mostly these, and their target and project were checked and
    encoded for the hit before (``_head``, ``_text_param``); the same checks, the same text.

    Raises:
        DeepLinkError: as ``build_link``.
    """
    if kind not in ("chat", "terminal") or type(target) is not str:
        return build_link(kind, target, project_id=project_id,
                          event=number if kind == "chat" else None,
                          offset=number if kind == "terminal" else None)  # fmt: skip
    try:
        parts = [_head(kind, target)]
        if number is not None:
            parts.append(_int_param("event" if kind == "chat" else "offset", number))
        if project_id is not None:
            parts.append(_text_param("project", project_id))
    except DeepLinkError as err:
        raise DeepLinkError(f"cannot build {kind!r} deep link: {err}") from None
    if len(parts) == 1:
        return parts[0]
    return f"{parts[0]}?{'&'.join(parts[1:])}"


def _non_empty(envelope: Envelope | None) -> Envelope | None:
    return None if envelope is None or envelope.is_empty() else envelope


# --- parsing -----------------------------------------------------------------------------------


def parse_deep_link(text: str) -> DeepLink:
    """Parse ``text`` strictly into a ``DeepLink``.

    Raises:
        DeepLinkError: one line naming the link and what is wrong with it.
    """
    try:
        return _parse(text)
    except DeepLinkError as err:
        shown = repr(text[:80] + ("…" if len(text) > 80 else "")) if isinstance(text, str) else "?"
        raise DeepLinkError(f"invalid deep link {shown}: {err}") from None


def _decode(what: str, raw: str, *, file_name: bool = False) -> str:
    """Percent-decode exactly once; invalid UTF-8 is refused, never replaced (a file name's
    bytes become the lone surrogates ``os.fsdecode`` gives them: the name on disk)."""
    try:
        return unquote(raw, errors="surrogateescape" if file_name else "strict")
    except UnicodeDecodeError:
        raise DeepLinkError(f"{what} is not valid UTF-8 after percent-decoding") from None


def _parse(text: str) -> DeepLink:
    if not isinstance(text, str):
        raise DeepLinkError(f"a deep link is text, not {type(text).__name__}")
    if len(text) > MAX_LINK_CHARS:
        raise DeepLinkError(f"longer than {MAX_LINK_CHARS} characters")
    if not text.startswith(SCHEME_PREFIX):
        raise DeepLinkError(f"the scheme must be {SCHEME_PREFIX!r}")
    rest = text[len(SCHEME_PREFIX) :]
    for index, ch in enumerate(rest):
        if ch not in _RAW_ALLOWED:
            where = len(SCHEME_PREFIX) + index
            raise DeepLinkError(f"character {ch!r} at position {where} must be percent-encoded")
    if "%" in rest and _bad_percent_re().search(rest):
        raise DeepLinkError("'%' must be followed by two hex digits")
    path, has_query, query = rest.partition("?")
    kind, _, raw_target = path.partition("/")
    if kind not in DEEP_LINK_KINDS:
        raise DeepLinkError(f"unknown kind {kind!r} (valid: {', '.join(DEEP_LINK_KINDS)})")
    if not raw_target:
        raise DeepLinkError(f"the {kind} target is empty")
    if kind not in ("branch", "file") and "/" in raw_target:
        raise DeepLinkError(f"unexpected '/' in the {kind} target")
    target = _decode(f"the {kind} target", raw_target, file_name=kind == "file")
    params = _parse_query(kind, query) if has_query else {}
    link = _link_from_params(kind, target, params)
    _validate(link, _fields(link))
    return link


def _parse_query(kind: str, query: str) -> dict[str, str]:
    allowed = allowed_params(kind)
    params: dict[str, str] = {}
    for piece in query.split("&"):
        name, has_value, raw = piece.partition("=")
        if not piece:
            raise DeepLinkError("empty parameter (a stray '?' or '&')")
        if name not in allowed:
            raise DeepLinkError(
                f"unknown parameter {name!r} for {kind} links (allowed: {', '.join(allowed)})"
            )
        if name in params:
            raise DeepLinkError(f"duplicate parameter {name!r}")
        if not has_value or not raw:
            raise DeepLinkError(f"parameter {name!r} has no value")
        if "=" in raw or "?" in raw:
            raise DeepLinkError(f"parameter {name!r} has an unencoded '=' or '?' in its value")
        params[name] = _decode(f"parameter {name!r}", raw)
    return params


def _number(name: str, params: dict[str, str]) -> int | None:
    value = params.get(name)
    if value is None:
        return None
    if not _plain_digits(value) or len(value) > _MAX_DIGITS:
        raise DeepLinkError(f"{name} {value!r} must be plain decimal digits without leading zeros")
    return int(value)


def _link_from_params(kind: str, target: str, params: dict[str, str]) -> DeepLink:
    envelope = Envelope(
        repo=params.get("repo"),
        branch=params.get("branch"),
        pr=_number("pr", params),
        linear=params.get("linear"),
    )
    return DeepLink(
        kind=kind,
        target=target,
        project_id=params.get("project"),
        event=_number("event", params),
        offset=_number("offset", params),
        line=_number("line", params),
        lane=params.get("lane"),
        envelope=_non_empty(envelope),
        column=_number("col", params),
        review=params.get("review"),
        comment=params.get("comment"),
    )
