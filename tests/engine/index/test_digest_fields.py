"""A document's digest covers its small fields as ``json.dumps`` writes them: the encoder built
once (``engine.index.documents._fields_json``) writes the same text, so a digest stored before
it still matches the same document (an unchanged document is not written again)."""

from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st

from engine.index.documents import IndexDoc, _digest, _fields_json

_field = st.one_of(
    st.none(),
    st.text(),
    st.integers(min_value=-(2**63), max_value=2**63 - 1),
    st.tuples(st.integers(min_value=0), st.integers(min_value=0)),
)


@given(st.lists(_field, max_size=16).map(tuple))
def test_the_fields_are_written_as_json_dumps_writes_them(fields: tuple[object, ...]) -> None:
    assert _fields_json(fields) == json.dumps(fields)


def test_a_digest_is_the_one_stored_before() -> None:
    one = IndexDoc(doc_id="chat:s:1", kind="chat", title="T\u00fcr \u201czu\u201d", rank_title="",
                   body="body text", updated_at=1733000000123, session_id="s", source_key="chat:s",
                   tool="claude", source_span=(10, 20), role="system")  # fmt: skip
    # Computed with ``json.dumps`` (the code before the encoder was built once).
    assert _digest(one).hex() == "b2e290ebb8fcda4a82841f4a02a78de4"
