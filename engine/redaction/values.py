"""What a stand-in value looks like (``engine.redaction`` and ``engine.redaction.scan`` both ask):
kept apart so neither imports the other."""

# warm path: a warm `ade search` imports this; keep its imports light (ARCHITECTURE: The warm path)

from __future__ import annotations

from engine.basics.b64 import b64decode

PLACEHOLDER_START = ("$", "%", "{", "<", "*", "[REDACTED", "…", "...")
"""Values starting like this are template variables, masks or already redacted."""

PLACEHOLDER_PARTS = ("pass", "pwd", "secret", "token", "dummy", "changeme", "foo")
"""A value holding one of these names what it stands for (``secret-passwd``, ``xdg-pass``,
``fooBar``): test fixtures and docs, found on every such line of git's test suite."""


def is_placeholder(value: str, *, decode: bool = True) -> bool:
    """A stand-in rather than a credential: a placeholder word in it, or in its base64 decoding
    when that is text (``YS1naXQtdG9rZW4=`` is ``a-git-token``), or a template (``<password>``)."""
    if value.startswith(PLACEHOLDER_START) or any(p in value.lower() for p in PLACEHOLDER_PARTS):
        return True
    if not decode or len(value) % 4 or len(value) < 8:
        return False
    try:
        decoded = b64decode(value, validate=True).decode("ascii").lower()
    except ValueError:
        return False
    return decoded.isprintable() and any(p in decoded for p in PLACEHOLDER_PARTS)
