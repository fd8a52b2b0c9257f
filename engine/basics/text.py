"""Text that cannot be encoded: lone surrogates from argv or JSON.

Python decodes argv (and file names) with ``surrogateescape``, so ``ade search $'\\xff'`` hands
over ``'\\udcff'``; JSON may spell a lone ``"\\ud800"``. Neither can be encoded as UTF-8, so
SQLite, ``msgspec`` and every ``print`` raised on them. Such text is text: each lone surrogate
becomes U+FFFD, as any decoder with ``errors="replace"`` would have done with the bytes.
"""

# warm path: a warm `ade search` imports this; keep its imports light (ARCHITECTURE: The warm path)

from __future__ import annotations

TYPE_CHECKING = False  # `typing` costs a daemon-answered search ~3 ms (the start-up budget)
if TYPE_CHECKING:
    import re
    from collections.abc import Callable
    from typing import Any

    from engine.types import SearchQueryArgs

REPLACEMENT = "\ufffd"


def compiled_on_first_use(source: str) -> Callable[[], re.Pattern[str]]:
    """A function returning ``source`` compiled, ``re`` imported and the pattern compiled by its
    first call. ``re`` brings ``enum``, ``functools`` and ``collections``: ~6 ms of a ~10 ms
    interpreter, which a daemon-answered ``ade search`` never needs (the start-up budget,
    benchmarks/journal/2026-12-07-lean-client.md)."""
    compiled: list[re.Pattern[str]] = []

    def pattern() -> re.Pattern[str]:
        if not compiled:
            import re

            compiled.append(re.compile(source))
        return compiled[0]

    return pattern


_surrogate_re = compiled_on_first_use("[\ud800-\udfff]")

_blank_re = compiled_on_first_use(
    r'[\s"\x00-\x1f\x7f-\x9f\u00ad\u061c\u180e\u200b-\u200f\u202a-\u202e'
    r"\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb]*"
)
"""Whitespace, controls (NUL), format characters (BOM, bidi overrides and isolates, zero-width
spaces and joiners) and double quotes: characters a query can hold without saying anything.
Compiled on first use: a daemon-answered search never asks (~1 M instructions)."""


def is_blank_query(text: str) -> bool:
    """Whether ``text`` says nothing (``"``, NUL, U+202E, U+FEFF, whitespace): such a query is
    the empty query everywhere — the same hits, the same cursor, the palette's discovery list
    (docs/reliability-faults.md). Shared by the engine's plan and the palette, which may not import the parser."""
    return _blank_re().fullmatch(text) is not None


def replace_surrogates(text: str) -> str:
    """``text`` with every lone surrogate replaced by U+FFFD (unchanged, same object, if none)."""
    try:
        text.encode("utf-8")  # fails on a lone surrogate and nothing else: no regex on the way
    except UnicodeEncodeError:
        return _surrogate_re().sub(REPLACEMENT, text)
    return text


def replace_surrogates_in(value: Any) -> Any:
    """The same over a decoded JSON value: strings, list items, object keys and values."""
    if isinstance(value, str):
        return replace_surrogates(value)
    if isinstance(value, list):
        return [replace_surrogates_in(v) for v in value]
    if isinstance(value, dict):
        return {replace_surrogates(k): replace_surrogates_in(v) for k, v in value.items()}
    return value


def encodable_args(args: SearchQueryArgs) -> SearchQueryArgs:
    """The query's text fields with lone surrogates as U+FFFD (``args`` itself when clean):
    SQLite cannot take them, and every host's query goes through ``SearchService.query``."""
    fields = {"query": args.query, "lane_id": args.lane_id, "cursor": args.cursor}
    clean = {k: replace_surrogates(v) for k, v in fields.items() if v is not None}
    if all(clean[k] is fields[k] for k in clean):
        return args
    import msgspec  # only here: argv's text is cleaned without the wire types (the start-up budget)

    return msgspec.structs.replace(args, **clean)
