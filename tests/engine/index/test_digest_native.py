"""The document digest's compiled twin (``engine/index/native/digest.c``) gives the very bytes of
``python_document_digest`` (BLAKE2b of the body, then of the small fields as ``json.dumps``
writes them): digests are stored, so one byte off would rewrite every document of an index the
next time it is caught up. Built wherever a C compiler is."""

from __future__ import annotations

import hashlib
import shutil

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from engine.index import documents
from engine.index.documents import (
    IndexDoc,
    _digest,
    compiled_document_digest,
    python_document_digest,
)


def test_compiled_twin_is_built_where_gcc_is() -> None:
    if shutil.which("gcc") is None:
        pytest.skip("no gcc: the install runs the Python twin")
    assert compiled_document_digest is not None, (
        "engine.index._digest_c did not build: `pip install -e .` again and read its output"
    )


# Bodies around BLAKE2b's 128-byte block (a block exactly full is the last one, not compressed
# early), every JSON escape's edge (controls, DEL, quote, backslash, non-ASCII, above U+FFFF,
# a lone surrogate in a field), and ints beyond 64 bits.
_chars = st.sampled_from(["a", " ", "\x00", "\x1f", "\x7f", '"', "\\", "\n", "\t", "\b", "\f",
                          "\r", "é", "\u2028", "\uffff", "\U0001f600", "~"])  # fmt: skip
_text = st.lists(_chars, max_size=40).map("".join) | st.text(max_size=300)
_body = _text | st.integers(min_value=0, max_value=400).map(lambda n: "x" * n)
_field = st.one_of(
    st.none(),
    _text,
    st.text(alphabet=st.characters(min_codepoint=0xD800, max_codepoint=0xDFFF), max_size=3),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.tuples(st.integers(), st.integers()),
    st.tuples(),
)


@settings(max_examples=1500, deadline=None)
@given(_body, st.lists(_field, max_size=16).map(tuple))
@example("x" * 128, ("chat", "t", "", 1733000000123, None, None, None, "chat:s", None, (10, 20)))
@example("", ())
def test_compiled_twin_gives_the_python_twins_bytes(body: str, fields: tuple[object, ...]) -> None:
    if compiled_document_digest is None:
        pytest.skip("not built (test_compiled_twin_is_built_where_gcc_is says why)")
    assert compiled_document_digest(body, fields) == python_document_digest(body, fields)


def test_the_body_half_is_hashlibs_blake2b() -> None:
    if compiled_document_digest is None:
        pytest.skip("not built")
    for body in ["", "x" * 127, "x" * 128, "x" * 129, "x" * 256, "é" * 300, "\U0001f600" * 50]:
        expected = hashlib.blake2b(body.encode(), digest_size=8).digest()
        assert compiled_document_digest(body, ())[:8] == expected


def test_what_the_compiled_twin_does_not_write_goes_to_the_python_twin() -> None:
    if compiled_document_digest is None:
        pytest.skip("not built")

    class Text(str):
        pass

    for odd in [True, 1.5, Text("a"), ((1, 2),), [1]]:
        with pytest.raises(TypeError):
            compiled_document_digest("body", (odd,))
    doc = IndexDoc(doc_id="d", kind="chat", title=Text("T"), rank_title="", body="b", updated_at=1)
    fields = ("chat", "T", "", 1, None, None, None, None, None, None, None, None, None, None)
    assert _digest(doc) == python_document_digest("b", fields)
    with pytest.raises(UnicodeEncodeError):  # a lone surrogate in a body: as body.encode()
        compiled_document_digest("\udc80", ())


def test_the_product_digests_with_the_compiled_twin() -> None:
    if compiled_document_digest is None:
        pytest.skip("not built")
    seen: list[str] = []

    def spy(body: str, fields: tuple[object, ...]) -> bytes:
        seen.append(body)
        return python_document_digest(body, fields)

    saved = documents.compiled_document_digest
    documents.compiled_document_digest = spy
    try:
        doc = IndexDoc(doc_id="d", kind="chat", title="T", rank_title="", body="b", updated_at=1)
        _digest(doc)
    finally:
        documents.compiled_document_digest = saved
    assert seen == ["b"]
