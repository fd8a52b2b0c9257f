"""Errors that cross the engine boundary with a clear one-line message."""

# warm path: a warm `ade search` imports this; keep its imports light (ARCHITECTURE: The warm path)

from __future__ import annotations

TYPE_CHECKING = False  # `typing` costs a daemon-answered search ~3 ms (the start-up budget)
if TYPE_CHECKING:
    from typing import Any


class AdeError(Exception):
    """Base of every error the engine raises on purpose; ``str(err)`` is one readable line."""


class UsageError(AdeError):
    """The caller's input is invalid (CLI exit 2, JSON-RPC -32602). The message names what is valid."""


class ProjectError(AdeError):
    """The project folder is missing or unreadable (CLI exit 2)."""


class DeepLinkError(UsageError):
    """A deep link is malformed, out of range, or resolves outside its project or lane."""


class CursorError(UsageError):
    """A pagination cursor is garbage, tampered with, or belongs to another query."""


# JSON-RPC 2.0 error codes and the error that carries one. They live here, below both the
# daemon (engine.rpc) and the action domain it serves (engine.actions), so neither imports the
# other for them.

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603
FORBIDDEN = -32001
"""Server-defined code (JSON-RPC reserves -32000..-32099): the caller's role may not do this."""
SERVER_BUSY = -32002
"""Server-defined code: the connection cap is reached; retry later."""
REQUEST_CANCELLED = -32800
"""The request was cancelled by ``rpc.cancel`` (the code LSP uses for the same thing)."""


class RpcError(Exception):
    """A failure that becomes a JSON-RPC error object.

    Args:
        code: the JSON-RPC error code.
        message: one readable line.
        data: optional structured detail (``{"type": "CursorError"}``).
    """

    def __init__(self, code: int, message: str, data: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.data = data
