"""Shared line handling for external JSONL transcripts: whole lines only, corrupt ones counted."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from engine.external.skips import skip
from engine.project.safe_io import JsonRejected, dumps_json, loads_json
from engine.project.tally import WarningTally

DIGEST_VALUE_CHARS = 2000
"""Longest single value shown in a tool-call digest: enough for a command or a path and an
edit's gist, short enough that a huge file write does not drown the message."""


def json_lines(
    data: bytes, base: int, source: str, tally: WarningTally
) -> tuple[Iterator[tuple[int, dict[str, Any]]], int]:
    """``(offset, object)`` for each complete JSON-object line of ``data`` and the bytes consumed.

    The torn last line (no ``\\n`` yet) is not consumed. A line that does not decode — corrupt,
    or two records spliced together by a crashed writer — or is not an object is counted under
    ``source`` and skipped.
    """
    consumed = data.rfind(b"\n") + 1

    def walk() -> Iterator[tuple[int, dict[str, Any]]]:
        pos = 0
        while pos < consumed:
            end = data.index(b"\n", pos)
            line = data[pos:end]
            if line.strip():
                try:
                    obj = loads_json(line)
                except JsonRejected:  # nested too deep included: never a RecursionError
                    obj = None
                if isinstance(obj, dict):
                    yield base + pos, obj
                else:
                    skip(tally, source, "bad json")
            pos = end + 1

    return walk(), consumed


def digest(value: Any) -> str:
    """A readable one-glance rendering of a tool's input: ``key: value`` lines, long values cut;
    no input at all is empty (never the word ``null``)."""
    if value is None:
        return ""
    if isinstance(value, str):
        return _cut(value)
    if isinstance(value, dict):
        parts = []
        for key, item in value.items():
            shown = " ".join(str(x) for x in item) if _is_argv(item) else item
            text = shown if isinstance(shown, str) else dumps_json(shown)
            parts.append(f"{key}: {_cut(text)}")
        return "\n".join(parts)
    if _is_argv(value):
        return _cut(" ".join(value))
    return _cut(dumps_json(value))


def _is_argv(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(x, str) for x in value)


def _cut(text: str) -> str:
    return text if len(text) <= DIGEST_VALUE_CHARS else text[:DIGEST_VALUE_CHARS] + " …"
