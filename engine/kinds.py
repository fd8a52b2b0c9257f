"""The result kinds and the page size limit: plain constants, importable without the wire types.

``engine.types`` re-exports them; they live here so a command that only validates its
arguments and forwards them to a daemon (``ade search``, issue 14.4) does not import msgspec.
"""

from __future__ import annotations

from typing import Literal, get_args

DocKind = Literal[
    "chat", "terminal", "pr", "commit", "branch", "lane", "file", "artifact", "linear"
]
"""Every kind a result can have. ``kind:issue`` is an alias of ``linear`` handled by the parser."""

KIND_ALIASES: dict[str, DocKind] = {"issue": "linear"}
"""``kind:issue`` is what people type for Linear issues (the query's ``kind:`` and ``--kind``)."""

ALL_KINDS: tuple[DocKind, ...] = get_args(DocKind)
"""Fixed kind order: used for grouping in the palette and for listing valid values in errors."""

MAX_LIMIT = 500
"""A page larger than this is a dump, not a search; the CLI pages with ``--cursor``."""
