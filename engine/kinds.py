"""The result kinds and the page size limit: plain constants, importable without the wire types.

``engine.types`` re-exports them; they live here so a command that only validates its
arguments and forwards them to a daemon (``ade search``, the start-up budget) does not import msgspec.
"""

# warm path: a warm `ade search` imports this; keep its imports light (ARCHITECTURE: The warm path)

from __future__ import annotations

TYPE_CHECKING = False  # `typing` costs a daemon-answered search ~3 ms (the start-up budget)
if TYPE_CHECKING:
    from collections.abc import Iterable
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

SYSTEM_ROLE = "system"
"""The role of a chat notice an agent injected into the conversation itself (a compaction
summary, a command's output, an interruption): a search finds it only when it names the role
(``role:system``, docs/agents.md "What is hidden")."""

ROLE_TOKEN = "\ue000role\ue000system"
"""The word a notice's ``parts`` column carries, so the FTS ``MATCH`` itself leaves notices out
(``engine.index.sql.role_match``): private-use characters, which FTS5's ``unicode61`` keeps in
a word and nobody types."""

ROLES: tuple[str, ...] = (SYSTEM_ROLE,)
"""The ``role:`` values (a chat message's other roles are not stored: only this one is asked for)."""

MAX_LIMIT = 500
"""A page larger than this is a dump, not a search; the CLI pages with ``--cursor``."""


def parse_kinds(names: Iterable[str], *, spelled: str = "kind ") -> tuple[DocKind, ...]:
    """The kinds ``names`` give, in order and once each (``issue`` means ``linear``); a name that
    is not a kind raises ``UsageError`` naming the valid ones. ``spelled`` is how the message quotes
    the input: ``kind `` for a ``--kind`` flag, ``kind:`` for the query's filter."""
    from engine.errors import UsageError

    kinds: list[DocKind] = []
    for raw in names:
        name = raw.strip().lower()
        name = KIND_ALIASES.get(name, name)
        if name not in ALL_KINDS:
            valid = ", ".join([*ALL_KINDS, *KIND_ALIASES])
            raise UsageError(f"unknown {spelled}{raw!r}; valid kinds: {valid}")
        if name not in kinds:
            kinds.append(name)
    return tuple(kinds)


def __getattr__(name: str) -> object:
    """``DocKind`` for a run-time reader, built (importing ``typing``) only when one asks."""
    if name != "DocKind":
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from typing import Literal

    kind = Literal[ALL_KINDS]  # type: ignore[valid-type]
    globals()["DocKind"] = kind
    return kind
