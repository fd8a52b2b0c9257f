"""``engine.basics.b64`` answers and fails as the standard library's ``base64`` does."""

from __future__ import annotations

import base64
import binascii
from collections.abc import Callable

from hypothesis import given, settings
from hypothesis import strategies as st

from engine.basics import b64

BASE64_TEXT = st.text(alphabet="ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/-_=é \n", max_size=40)  # fmt: skip


def _outcome(call: Callable[[], bytes]) -> tuple[str, object]:
    try:
        return "ok", call()
    except binascii.Error as err:
        return "binascii.Error", str(err)
    except ValueError as err:
        return "ValueError", str(err)


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=64))
def test_urlsafe_encoding_round_trips_as_base64s(data: bytes) -> None:
    assert b64.urlsafe_b64encode(data) == base64.urlsafe_b64encode(data)
    assert b64.urlsafe_b64decode(base64.urlsafe_b64encode(data).decode()) == data


@settings(max_examples=300, deadline=None)
@given(BASE64_TEXT, st.booleans(), st.booleans())
def test_decoding_any_text_answers_or_fails_as_base64s(
    text: str, as_bytes: bool, validate: bool
) -> None:
    value: str | bytes = text.encode("utf-8") if as_bytes else text
    assert _outcome(lambda: b64.urlsafe_b64decode(value)) == _outcome(
        lambda: base64.urlsafe_b64decode(value)
    )
    assert _outcome(lambda: b64.b64decode(value, validate=validate)) == _outcome(
        lambda: base64.b64decode(value, validate=validate)
    )
