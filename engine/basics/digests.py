"""The hashing convention: every digest in ade comes from here (SHA-256, SHA-1, BLAKE2b).

``import hashlib`` loads OpenSSL's ``_hashlib`` (~3 ms, a shared library's start-up) before it
offers a digest; every command hashes only a few short strings (the project id, the reconcile
manifest, the page cursor, a stable session id), which the interpreter's own modules hash the
same, bit for bit. A build without them falls back to ``hashlib``. Nothing here imports
``typing`` or ``importlib``: ``engine.basics.caller_env`` may load it on a daemon-answered search
(the start-up budget). ``tests/architecture/test_conventions.py`` keeps every other module off
``hashlib`` and the built-in digest modules.
"""

# warm path: a warm `ade search` imports this; keep its imports light (ARCHITECTURE: The warm path)

from __future__ import annotations

TYPE_CHECKING = False  # no `typing` at run time (see above)
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

try:
    from _blake2 import blake2b
except ImportError:  # pragma: no cover - every CPython build has it
    from hashlib import blake2b

__all__ = ["blake2b", "sha1_hex", "sha256_hex"]


def _builtin(modules: tuple[str, ...], name: str) -> Callable[..., Any]:
    """``name`` from the first of ``modules`` that has it, else from ``hashlib``."""
    for module in modules:
        try:
            found: Callable[..., Any] = getattr(__import__(module), name)
        except (ImportError, AttributeError):
            continue
        return found
    import hashlib  # pragma: no cover

    return getattr(hashlib, name)  # type: ignore[no-any-return]  # pragma: no cover


_sha256 = _builtin(("_sha2", "_sha256"), "sha256")  # Python 3.12+, then 3.11
_sha1 = _builtin(("_sha1",), "sha1")


def sha256_hex(data: bytes) -> str:
    """The SHA-256 hex digest of ``data``."""
    return str(_sha256(data).hexdigest())


def sha1_hex(data: bytes) -> str:
    """The SHA-1 hex digest of ``data``: for stable ids made before this convention (a session's
    id must not change between releases: its links name it), never for security."""
    return str(_sha1(data).hexdigest())
