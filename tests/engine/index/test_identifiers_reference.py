"""The identifier scan gives exactly what it gave before its short cuts (journal: "Planning CPU").

``reference_identifiers`` and ``reference_identifier_parts`` are ``engine.index.identifiers`` as
they stood before: three class patterns (``aA``, ``dA``, ``AAa``) found one by one, every hit's
word looked up again, each distinct word split by its own ``findall`` and decoded apart.
"""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from index_helpers import identifier_parts_twins

from engine.index.identifiers import identifiers

_PART_RE = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+")
_CLASSES = bytes(
    ord("a") if 97 <= b <= 122 else ord("d") if 48 <= b <= 57 else ord("A") if 65 <= b <= 90
    else 32
    for b in range(256)
)  # fmt: skip
_BOUNDARIES = (b"aA", b"dA", b"AAa")


def reference_identifiers(text: str) -> list[str]:
    raw = text.encode("utf-8", "surrogatepass")
    cls = raw.translate(_CLASSES)
    hits: list[int] = []
    for pattern in _BOUNDARIES:
        at = cls.find(pattern)
        while at >= 0:
            hits.append(at)
            at = cls.find(pattern, at + 1)
    words: dict[int, str] = {}
    for at in sorted(hits):
        start = cls.rfind(b" ", 0, at) + 1
        if start not in words:
            end = cls.find(b" ", at)
            words[start] = raw[start : end if end >= 0 else len(raw)].decode("ascii")
    return list(words.values())


def reference_identifier_parts(*texts: str) -> str:
    seen: dict[str, str] = {}
    for text in texts:
        for word in dict.fromkeys(reference_identifiers(text)):
            for part in _PART_RE.findall(word):
                seen.setdefault(part.lower(), part)
    return " ".join(seen.values())


TEXT = st.text(alphabet=st.sampled_from(list("aAbBZzqQ0129 _.-:(\n\téÉǅİ€\ud800K")), max_size=60)
WORDS = st.lists(
    st.sampled_from(["TypeError", "HTTPServer2x", "AB1", "ABc", "a1B", "x", "getURLFor", "URL",
                     "9Z", "ZZZa", "readTimeout", "READTimeout", "é", " ", "\n", "_", "İs"]),
    max_size=30,
).map("".join)  # fmt: skip


@pytest.mark.parametrize("identifier_parts", identifier_parts_twins())
@settings(max_examples=600, deadline=None)
@given(st.one_of(TEXT, WORDS), st.one_of(TEXT, WORDS))
@example("", "AB1 ABc aB 1A AAA AAa")
@example("HTTPServer", "httpServer HTTPSERVER2x")
def test_identifiers_and_parts_are_what_they_were(
    identifier_parts: Callable[..., str], title: str, body: str
) -> None:
    assert identifiers(body) == reference_identifiers(body)
    assert identifier_parts(body) == reference_identifier_parts(body)
    assert identifier_parts(title, body) == reference_identifier_parts(title, body)
    assert identifier_parts() == reference_identifier_parts() == ""
