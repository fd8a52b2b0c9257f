"""The result kinds and the page size limit: plain constants, importable without the wire types.

``engine.types`` re-exports them; they live here so a command that only validates its
arguments and forwards them to a daemon (``ade search``, the start-up budget) does not import msgspec.
"""

from __future__ import annotations

TYPE_CHECKING = False  # `typing` costs a daemon-answered search ~3 ms (the start-up budget)
if TYPE_CHECKING:
    from typing import Literal

    DocKind = Literal[
        "chat", "terminal", "pr", "commit", "branch", "lane", "file", "artifact", "linear"
    ]
    """Every kind a result can have. ``kind:issue`` is an alias of ``linear`` (the parser's)."""

ALL_KINDS: tuple[DocKind, ...] = (
    "chat", "terminal", "pr", "commit", "branch", "lane", "file", "artifact", "linear"
)  # fmt: skip
"""Fixed kind order: used for grouping in the palette and for listing valid values in errors.
At run time ``DocKind`` is ``Literal[ALL_KINDS]``, built by ``engine.types`` (msgspec validates
the wire types against it) and by ``__getattr__`` below; the checker reads the one above."""

KIND_ALIASES: dict[str, DocKind] = {"issue": "linear"}
"""``kind:issue`` is what people type for Linear issues (the query's ``kind:`` and ``--kind``)."""

MAX_LIMIT = 500
"""A page larger than this is a dump, not a search; the CLI pages with ``--cursor``."""


def __getattr__(name: str) -> object:
    """``DocKind`` for a run-time reader, built (importing ``typing``) only when one asks."""
    if name != "DocKind":
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from typing import Literal

    kind = Literal[ALL_KINDS]  # type: ignore[valid-type]
    globals()["DocKind"] = kind
    return kind
