"""Base64 as ``base64`` does it, on ``binascii`` alone (the start-up budget).

``import base64`` brings ``struct`` and its Base32/85 tables: ~2 M instructions of every search,
which encodes a next-page cursor and may check a secret's base64. These are the four calls the
warm path makes, each the standard library's own code path (``base64.b64decode`` and
``urlsafe_b64*`` in CPython 3.11); ``tests/engine/test_b64.py`` compares them with it.
"""

# warm path: a warm `ade search` imports this; keep its imports light (ARCHITECTURE: The warm path)

from __future__ import annotations

import binascii

_URLSAFE_ENCODE = bytes.maketrans(b"+/", b"-_")
_URLSAFE_DECODE = bytes.maketrans(b"-_", b"+/")


def _ascii(text: str | bytes) -> bytes:
    if isinstance(text, bytes):
        return text
    try:
        return text.encode("ascii")
    except UnicodeEncodeError:
        raise ValueError("string argument should contain only ASCII characters") from None


def b64decode(text: str | bytes, *, validate: bool = False) -> bytes:
    """``base64.b64decode(text, validate=validate)``: ``binascii.Error`` (a ``ValueError``) on
    bad padding, or with ``validate`` on a character outside the alphabet."""
    return binascii.a2b_base64(_ascii(text), strict_mode=validate)


def urlsafe_b64encode(data: bytes) -> bytes:
    """``base64.urlsafe_b64encode(data)``."""
    return binascii.b2a_base64(data, newline=False).translate(_URLSAFE_ENCODE)


def urlsafe_b64decode(text: str | bytes) -> bytes:
    """``base64.urlsafe_b64decode(text)``."""
    return binascii.a2b_base64(_ascii(text).translate(_URLSAFE_DECODE), strict_mode=False)
