"""Errors that cross the engine boundary with a clear one-line message."""

from __future__ import annotations


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
