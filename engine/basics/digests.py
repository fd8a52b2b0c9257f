"""SHA-256 and BLAKE2b without OpenSSL.

``import hashlib`` loads OpenSSL's ``_hashlib`` (~3 ms, a shared library's start-up) before it
offers a digest; every command hashes only a few short strings (the project id, the reconcile
manifest, the page cursor), which the interpreter's own modules hash the same, bit for bit. A
build without them falls back to ``hashlib``.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

try:
    from _blake2 import blake2b
except ImportError:  # pragma: no cover - every CPython build has it
    from hashlib import blake2b


def _builtin_sha256() -> Callable[[bytes], Any]:
    for name in ("_sha2", "_sha256"):  # Python 3.12+, then 3.11
        try:
            found: Callable[[bytes], Any] = importlib.import_module(name).sha256
        except (ImportError, AttributeError):
            continue
        return found
    from hashlib import sha256  # pragma: no cover

    return sha256  # pragma: no cover


_sha256 = _builtin_sha256()

__all__ = ["blake2b", "sha256_hex"]


def sha256_hex(data: bytes) -> str:
    """The SHA-256 hex digest of ``data``."""
    return str(_sha256(data).hexdigest())
