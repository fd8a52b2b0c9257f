"""Stable ids for names that hold a secret (docs/redaction.md): a branch named after a token.

A doc id, an anchor and a deep link are stored, shown and shared, and cannot hold a redaction
marker (it would not lead back to the branch). A name that redaction would change is replaced
there by ``redacted-<sha256[:16]>``: stable across runs, the same on every path, and mapped back
to the branch by hashing the repository's branch names when the link is opened.
"""

# warm path: a warm `ade search` imports this; keep its imports light (ARCHITECTURE: The warm path)

from __future__ import annotations

import functools
import re

from engine.basics.digests import sha256_hex
from engine.redaction import redact_title


@functools.cache
def _hashed_re() -> re.Pattern[str]:
    """A hashed name, compiled on first use (only an opened link asks)."""
    return re.compile(r"redacted-[0-9a-f]{16}\Z")


def hashed_name(name: str) -> str:
    """``redacted-`` and the first 16 hex digits of the name's SHA-256."""
    return "redacted-" + sha256_hex(name.encode("utf-8", "surrogateescape"))[:16]


def safe_ref(name: str) -> str:
    """``name`` itself, or :func:`hashed_name` when it holds a secret."""
    return name if redact_title(name) == name else hashed_name(name)


def is_hashed(ref: str) -> bool:
    return _hashed_re().match(ref) is not None


def resolve_ref(ref: str, names: list[str]) -> str | None:
    """The name among ``names`` whose hashed form is ``ref`` (None when there is none)."""
    return next((name for name in names if hashed_name(name) == ref), None)
