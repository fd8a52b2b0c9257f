"""Deep links: building, strict parsing and the round trip (DESIGN §6, RELIABILITY item 24)."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.errors import DeepLinkError, UsageError
from engine.links.deeplink import (
    DEEP_LINK_KINDS,
    DeepLink,
    Envelope,
    allowed_params,
    build_deep_link,
    build_link,
    is_valid_branch_name,
    parse_deep_link,
    session_link,
)
from engine.project.model import SESSION_ID_RE, is_valid_session_id

# --- strategies --------------------------------------------------------------------------------

_TEXT_CHARS = st.characters(blacklist_categories=("Cc", "Cs"), blacklist_characters="%")
"""Any Unicode but control characters, surrogates and '%' (which could form a leftover escape)."""

free_text = st.text(_TEXT_CHARS, min_size=1, max_size=24)
session_ids = st.from_regex(SESSION_ID_RE, fullmatch=True).filter(is_valid_session_id)
path_segments = st.text(
    st.characters(blacklist_categories=("Cc", "Cs"), blacklist_characters="%/\\"),
    min_size=1,
    max_size=12,
).filter(lambda s: s not in (".", ".."))
file_paths = st.lists(path_segments, min_size=1, max_size=5).map("/".join)
branch_names = (
    st.lists(
        st.text(
            st.characters(blacklist_categories=("Cc", "Cs"), blacklist_characters="%/ ~^:?*[\\"),
            min_size=1,
            max_size=10,
        ),
        min_size=1,
        max_size=4,
    )
    .map("/".join)
    .filter(is_valid_branch_name)
)
repos = st.from_regex(
    r"[A-Za-z0-9_-][A-Za-z0-9_.-]{0,9}/[A-Za-z0-9_-][A-Za-z0-9_.-]{0,9}", fullmatch=True
)
linear_ids = st.from_regex(r"[A-Z][A-Z0-9]{0,4}-[1-9][0-9]{0,5}", fullmatch=True)
envelopes = st.builds(
    Envelope,
    repo=st.none() | repos,
    branch=st.none() | branch_names,
    pr=st.none() | st.integers(1, 10**9),
    linear=st.none() | linear_ids,
).filter(lambda e: not e.is_empty())

_TARGETS = {
    "chat": session_ids,
    "terminal": session_ids,
    "pr": st.integers(1, 10**9).map(str),
    "commit": st.from_regex(r"[0-9a-f]{4,64}", fullmatch=True),
    "branch": branch_names,
    "lane": free_text,
    "file": file_paths,
    "artifact": session_ids,
    "linear": linear_ids,
}


@st.composite
def deep_links(draw: st.DrawFn) -> DeepLink:
    kind = draw(st.sampled_from(DEEP_LINK_KINDS))
    allowed = allowed_params(kind)

    def maybe(name: str, strategy: st.SearchStrategy[object]) -> object:
        return draw(st.none() | strategy) if name in allowed else None

    return DeepLink(
        kind=kind,
        target=draw(_TARGETS[kind]),
        project_id=maybe("project", free_text),  # type: ignore[arg-type]
        event=maybe("event", st.integers(0, 2**53 - 1)),  # type: ignore[arg-type]
        offset=maybe("offset", st.integers(0, 2**53 - 1)),  # type: ignore[arg-type]
        line=maybe("line", st.integers(1, 10**7)),  # type: ignore[arg-type]
        lane=maybe("lane", free_text),  # type: ignore[arg-type]
        envelope=maybe("repo", envelopes),  # type: ignore[arg-type]
    )


# --- round trip --------------------------------------------------------------------------------


@settings(max_examples=400)
@given(deep_links())
def test_parse_build_round_trip(link: DeepLink) -> None:
    text = build_deep_link(link)
    assert text.isascii()
    assert parse_deep_link(text) == link
    assert build_deep_link(parse_deep_link(text)) == text


@given(st.sampled_from(DEEP_LINK_KINDS), st.data())
def test_every_kind_round_trips(kind: str, data: st.DataObject) -> None:
    target = data.draw(_TARGETS[kind])
    link = DeepLink(kind, target, project_id="p1")
    assert parse_deep_link(build_deep_link(link)) == link


@given(st.text(max_size=60) | st.text(st.sampled_from("ade:/%2e5fF?&=.chatfile"), max_size=40))
def test_parse_of_any_text_raises_only_deep_link_error(text: str) -> None:
    error: DeepLinkError | None = None
    try:
        link = parse_deep_link(text)
    except DeepLinkError as err:
        error = err
    if error is None:
        assert build_deep_link(link)  # anything accepted is itself buildable
    else:
        assert "\n" not in str(error)


# --- table: building ---------------------------------------------------------------------------

ENV = Envelope(repo="acme/widgets", branch="feature/login", pr=42, linear="ENG-7")


@pytest.mark.parametrize(
    ("link", "expected"),
    [
        (DeepLink("chat", "s-1", event=12), "ade://chat/s-1?event=12"),
        (DeepLink("terminal", "t.1", offset=4096), "ade://terminal/t.1?offset=4096"),
        (DeepLink("pr", "42", project_id="a1b2"), "ade://pr/42?project=a1b2"),
        (DeepLink("commit", "deadbeef"), "ade://commit/deadbeef"),
        (DeepLink("branch", "feature/café+1"), "ade://branch/feature/caf%C3%A9%2B1"),
        (DeepLink("lane", "wt 2/x"), "ade://lane/wt%202%2Fx"),
        (
            DeepLink("file", "src/é.py", line=3, lane="primary", project_id="p"),
            "ade://file/src/%C3%A9.py?line=3&lane=primary&project=p",
        ),
        (DeepLink("artifact", "shot-1"), "ade://artifact/shot-1"),
        (DeepLink("linear", "ENG-7"), "ade://linear/ENG-7"),
        (
            DeepLink("chat", "s", event=0, project_id="p", envelope=ENV),
            "ade://chat/s?event=0&project=p&repo=acme%2Fwidgets&branch=feature%2Flogin"
            "&pr=42&linear=ENG-7",
        ),
        (
            DeepLink("commit", "abcd", envelope=Envelope(pr=5)),
            "ade://commit/abcd?pr=5",
        ),
        (DeepLink("lane", "x", envelope=Envelope()), "ade://lane/x"),
    ],
)
def test_build_table(link: DeepLink, expected: str) -> None:
    assert build_deep_link(link) == expected
    fields = {name: getattr(link, name) for name in link.__struct_fields__}
    assert build_link(**fields) == expected


@pytest.mark.parametrize(
    ("link", "message"),
    [
        (DeepLink("pr", "42", envelope=ENV), "'repo' does not apply to pr links"),
        (DeepLink("chat", "s", offset=1), "'offset' does not apply"),
        (DeepLink("file", "a", event=1), "'event' does not apply"),
        (DeepLink("chat", "../x"), "must match"),
        (DeepLink("pr", "0"), "1..1000000000"),
        (DeepLink("chat", "s", event=True), "must be an integer"),
        (DeepLink("chat", "s", event=-1), "0..9007199254740991"),
        (DeepLink("file", "/etc/passwd"), "absolute"),
        (DeepLink("wiki", "x"), "unknown kind 'wiki'"),
        (DeepLink("lane", "a\x00b"), "control character"),
        (DeepLink("lane", "x", envelope=Envelope(repo="not a slug")), "owner/name"),
    ],
)
def test_build_refuses_what_would_not_parse(link: DeepLink, message: str) -> None:
    with pytest.raises(DeepLinkError, match=message):
        build_deep_link(link)


def test_a_refused_link_is_refused_again_and_a_good_one_built_again() -> None:
    """A page builds its links with the target and text values checked once each (kept): what
    was refused is refused again, with the first fault in the same order, and a value kept for
    one kind or parameter is never taken for another."""
    bad = [DeepLink("chat", "../x", event=1), DeepLink("chat", "s", event=1, project_id="a\x00"),
           DeepLink("chat", "../x", event=-1), DeepLink("lane", "x", project_id="p\x01")]  # fmt: skip
    first = []
    for link in bad * 2:
        with pytest.raises(DeepLinkError) as err:
            build_deep_link(link)
        first.append(str(err.value))
    assert first[:4] == first[4:]
    assert "must match" in first[2]
    assert (
        build_link("chat", "s", event=3, project_id="p 1") == "ade://chat/s?event=3&project=p%201"
    )
    assert build_link("lane", "s", project_id="p 1") == "ade://lane/s?project=p%201"
    assert build_link("terminal", "s", offset=9) == "ade://terminal/s?offset=9"
    with pytest.raises(DeepLinkError, match="'offset' does not apply"):
        build_link("chat", "s", offset=9)


@pytest.mark.parametrize(
    ("kind", "target", "number", "project"),
    [("chat", "s-1", 3, "p 1"), ("terminal", "t.2", 4096, None), ("chat", "s", None, "p"),
     ("chat", "../x", 1, "p"), ("terminal", "t", -1, "p"), ("chat", "s", 1, "a\x00"),
     ("pr", "42", None, "p"), ("terminal", "t", 2**53, None)],
)  # fmt: skip
def test_a_session_link_is_build_links(
    kind: str, target: str, number: int | None, project: str | None
) -> None:
    """The query page's session links (``session_link``) are ``build_link``'s, refusals alike."""
    number_of = (
        {"event": number} if kind == "chat" else {"offset": number} if kind == "terminal" else {}
    )

    def outcome(build: Callable[[], str]) -> str:
        try:
            return build()
        except DeepLinkError as err:
            return f"refused: {err}"

    expected = outcome(lambda: build_link(kind, target, project_id=project, **number_of))
    assert outcome(lambda: session_link(kind, target, number, project)) == expected


# --- table: parsing ----------------------------------------------------------------------------


def test_parse_table_of_valid_links() -> None:
    assert parse_deep_link("ade://terminal/t1?offset=0&project=p") == DeepLink(
        "terminal", "t1", project_id="p", offset=0
    )
    # Parameters in any order, targets with needless (but single) encoding.
    assert parse_deep_link("ade://file/src%2Fa.py?lane=w1&line=9") == DeepLink(
        "file", "src/a.py", line=9, lane="w1"
    )
    assert parse_deep_link("ade://lane/w1?linear=AB-1&pr=%31") == DeepLink(
        "lane", "w1", envelope=Envelope(pr=1, linear="AB-1")
    )
    assert parse_deep_link("ade://branch/a/b%2Fc") == DeepLink("branch", "a/b/c")
    assert parse_deep_link("ade://chat/s").event is None


MALFORMED = [
    ("http://chat/s", "scheme must be"),
    ("ADE://chat/s", "scheme must be"),
    ("ade:chat/s", "scheme must be"),
    ("", "scheme must be"),
    ("ade://wiki/x", "unknown kind 'wiki'"),
    ("ade://Chat/s", "unknown kind"),
    ("ade://chat", "target is empty"),
    ("ade://chat/", "target is empty"),
    ("ade://chat/s?event=-1", "plain decimal digits"),
    ("ade://chat/s?event=1e3", "plain decimal digits"),
    ("ade://chat/s?event=+1", "plain decimal digits"),
    ("ade://chat/s?event=01", "plain decimal digits"),
    ("ade://chat/s?event=%EF%BC%91", "plain decimal digits"),  # full-width digit one
    ("ade://chat/s?event=9007199254740992", "0..9007199254740991"),
    ("ade://terminal/t?offset=99999999999999999999", "0..9007199254740991"),
    ("ade://terminal/t?offset=" + "9" * 5000, "plain decimal digits"),
    ("ade://file/a.py?line=0", "1..10000000"),
    ("ade://file/a.py?line=10000001", "1..10000000"),
    ("ade://pr/0", "1..1000000000"),
    ("ade://pr/1000000001", "1..1000000000"),
    ("ade://pr/12abc", "plain decimal digits"),
    ("ade://lane/x?pr=0", "1..1000000000"),
    ("ade://commit/abc", "4 to 64 hex"),
    ("ade://commit/" + "a" * 65, "4 to 64 hex"),
    ("ade://commit/xyz1", "4 to 64 hex"),
    ("ade://linear/abc-1", "ABC-123"),
    ("ade://linear/ABC-", "ABC-123"),
    ("ade://chat/bad%20id", "must match"),
    ("ade://chat/%2e%2e", "must match"),
    ("ade://artifact/..", "must match"),
    ("ade://chat/s?event=1&event=2", "duplicate parameter 'event'"),
    ("ade://chat/s?project=a&project=a", "duplicate parameter 'project'"),
    ("ade://chat/s?color=red", "unknown parameter 'color'"),
    ("ade://pr/1?event=1", "unknown parameter 'event' for pr links"),
    ("ade://chat/s?Event=1", "unknown parameter 'Event'"),
    ("ade://chat/s?%65vent=1", "unknown parameter"),
    ("ade://chat/s?event", "has no value"),
    ("ade://chat/s?event=", "has no value"),
    ("ade://chat/s?", "empty parameter"),
    ("ade://chat/s?event=1&", "empty parameter"),
    ("ade://chat/s?event=1=2", "unencoded"),
    ("ade://chat/s?event=1?x", "unencoded"),
    ("ade://chat/s#frag", "must be percent-encoded"),
    ("ade://chat/s trailing", "must be percent-encoded"),
    ("ade://chat/s\n", "must be percent-encoded"),
    ("ade://chat/s/extra", "unexpected '/'"),
    ("ade://pr/12/", "unexpected '/'"),
    ("ade://chat/s%", "two hex digits"),
    ("ade://chat/s%zz", "two hex digits"),
    ("ade://lane/%ff", "not valid UTF-8"),
    ("ade://lane/caf\u00e9", "must be percent-encoded"),
    ("ade://lane/a%00b", "control character"),
    ("ade://lane/a%1bb", "control character"),
    ("ade://lane/a%C2%85b", "control character"),  # C1 NEL
    ("ade://chat/s?project=p%0Aq", "control character"),
    ("ade://lane/%252e", "still percent-encoded"),
    ("ade://chat/s?project=%2541", "still percent-encoded"),
    ("ade://file/%252e%252e/etc/passwd", "still percent-encoded"),
    ("ade://branch/-evil", "not a valid git branch"),
    ("ade://branch/a..b", "not a valid git branch"),
    ("ade://branch/a//b", "not a valid git branch"),
    ("ade://branch/a/", "not a valid git branch"),
    ("ade://branch/x.lock", "not a valid git branch"),
    ("ade://lane/x?branch=a%20b", "not a valid git branch"),
    ("ade://lane/x?repo=noslash", "owner/name"),
    ("ade://lane/x?linear=eng-1", "ABC-123"),
    ("ade://lane/" + "x" * 20000, "longer than"),
]


@pytest.mark.parametrize(("text", "message"), MALFORMED)
def test_malformed_links_are_refused_with_one_line(text: str, message: str) -> None:
    with pytest.raises(DeepLinkError, match=message) as info:
        parse_deep_link(text)
    assert "\n" not in str(info.value)
    assert str(info.value).startswith("invalid deep link ")
    assert isinstance(info.value, UsageError)  # CLI exit 2, JSON-RPC invalid params


# --- RELIABILITY item 24: traversal in file links (the string level; disk in *_resolve) ----------

TRAVERSAL = [
    "ade://file/../etc/passwd",
    "ade://file/a/../../etc/passwd",
    "ade://file/a/..",
    "ade://file/%2e%2e/etc/passwd",
    "ade://file/%2E%2E/etc/passwd",
    "ade://file/..%2fetc%2fpasswd",
    "ade://file/..%2Fetc",
    "ade://file/a%2f..%2f..%2fb",
    "ade://file/%2fetc/passwd",
    "ade://file//etc/passwd",
    "ade://file/a/./b",
    "ade://file/a%5c..%5cb",
    "ade://file/..%5cb",
    "ade://file/a%00.py",
    "ade://file/a.py%00.png",
    "ade://file/%252e%252e/etc",
    "ade://file/..%252fetc",
]


@pytest.mark.parametrize("text", TRAVERSAL)
def test_file_traversal_is_refused_at_parse(text: str) -> None:
    with pytest.raises(DeepLinkError):
        parse_deep_link(text)


def test_decoding_happens_exactly_once() -> None:
    # '%2541' decodes once to the literal '%41'; decoding twice would yield 'A'.
    with pytest.raises(DeepLinkError, match="still percent-encoded"):
        parse_deep_link("ade://lane/%2541")
    # A literal '%' that does not form an escape survives as itself.
    assert parse_deep_link("ade://lane/100%25").target == "100%"


# --- the string tests that stand in for patterns (compiled on first use) ----------------------

_DIGITS_RE = r"0|[1-9][0-9]*"
_RAW_ALLOWED_RE = r"[A-Za-z0-9\-._~!$&'()*+,;=:@/?%]"


@settings(max_examples=300)
@given(st.text(st.sampled_from("0123456789x٣²\u0661 -+"), max_size=6) | st.text(max_size=4))
def test_plain_digits_decide_as_the_digits_pattern(value: str) -> None:
    import re

    from engine.links.deeplink import _plain_digits

    assert _plain_digits(value) == (re.fullmatch(_DIGITS_RE, value) is not None)


def test_the_allowed_link_characters_are_the_pattern_class() -> None:
    import re

    from engine.links.deeplink import _RAW_ALLOWED

    pattern = re.compile(_RAW_ALLOWED_RE)
    assert {chr(c) for c in range(0x3000) if pattern.fullmatch(chr(c))} == _RAW_ALLOWED


def test_a_link_with_a_bad_or_leftover_escape_is_still_refused() -> None:
    with pytest.raises(DeepLinkError, match="two hex digits"):
        parse_deep_link("ade://chat/s1%2")
    with pytest.raises(DeepLinkError, match="percent-encoded after decoding"):
        parse_deep_link("ade://chat/s1%2541")
    with pytest.raises(DeepLinkError, match="must be percent-encoded"):
        parse_deep_link("ade://chat/s 1")
    with pytest.raises(DeepLinkError, match="digits"):
        parse_deep_link("ade://pr/012")
