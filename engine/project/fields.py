"""Validated reading of the small JSON records under ``.ade/`` (sessions, PRs, artifacts, lanes).

Writers are other programs; anything may be on disk. These helpers turn a file into a plain
``dict`` or ``None`` and a field into the expected type or a ``FieldError``, so each reader states
its schema in a few lines and counts what it refuses.
"""

# warm path: a warm `ade search` imports this; keep its imports light (ARCHITECTURE: The warm path)

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from engine.project.safe_io import Bounds, JsonRejected, UnsafeFile, loads_json, read_regular
from engine.project.tally import WarningTally

MAX_RECORD_BYTES = 1 << 20
"""Largest metadata file we parse (1 MiB): real records are a few KiB, larger ones are not ours."""


class FieldError(ValueError):
    """A record field is missing or has the wrong type; the message names the field."""


def read_json_file(
    path: Path, tally: WarningTally, source: str, bounds: Bounds | None = None
) -> Any | None:
    """Parse ``path`` as JSON, or count why not and return ``None``.

    A missing file returns ``None`` without counting (it may have been deleted meanwhile). A
    FIFO, socket, device or directory, a symlink leaving ``bounds``, JSON nested too deep and
    ``NaN``/``Infinity`` are each one counted warning (``engine.project.safe_io``).
    """
    try:
        raw = read_regular(path, MAX_RECORD_BYTES + 1, bounds)
    except FileNotFoundError:
        return None
    except UnsafeFile as err:
        tally.add_once(source, f"refused {err}")
        return None
    except OSError as err:
        tally.add(source, f"unreadable {path.name}: {err.strerror or err}")
        return None
    if len(raw) > MAX_RECORD_BYTES:
        tally.add(source, f"too large {path.name}")
        return None
    try:
        return loads_json(raw)
    except JsonRejected as err:
        tally.add_once(source, f"{err.args[0].split(':')[0]} {path.name}")
        return None


def read_json_object(
    path: Path, tally: WarningTally, source: str, bounds: Bounds | None = None
) -> dict[str, Any] | None:
    """Like ``read_json_file`` but also requires a JSON object at the top level."""
    value = read_json_file(path, tally, source, bounds)
    if value is None:
        return None
    if not isinstance(value, dict):
        tally.add(source, f"not an object {path.name}")
        return None
    return value


def parse_aware_time(value: object) -> datetime | None:
    """An ISO-8601 string → aware datetime; anything else → ``None``.

    A time without a zone is read as UTC (docs/reliability-faults.md): tools that write ``2026-06-15T12:00:00``
    mean the moment, and dropping the whole session for the missing ``Z`` loses more than a
    guess of the zone can."""
    if not isinstance(value, str) or not value:
        return None
    try:
        parsed = datetime.fromisoformat(value)
    except ValueError:
        return None
    if parsed.tzinfo is None or parsed.utcoffset() is None:
        return parsed.replace(tzinfo=UTC)
    return parsed


def req_str(record: dict[str, Any], key: str) -> str:
    """A required string field."""
    value = record.get(key)
    if not isinstance(value, str):
        raise FieldError(f"{key}: expected string")
    return value


def opt_str(record: dict[str, Any], key: str, default: str | None = None) -> str | None:
    """An optional string field (absent or ``null`` → ``default``)."""
    value = record.get(key)
    if value is None:
        return default
    if not isinstance(value, str):
        raise FieldError(f"{key}: expected string or null")
    return value


def opt_bool(record: dict[str, Any], key: str, default: bool = False) -> bool:
    """An optional boolean field (absent or ``null`` → ``default``)."""
    value = record.get(key)
    if value is None:
        return default
    if not isinstance(value, bool):
        raise FieldError(f"{key}: expected boolean")
    return value


def opt_int(record: dict[str, Any], key: str) -> int | None:
    """An optional integer field; ``true``/``false`` are not integers here."""
    value = record.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise FieldError(f"{key}: expected integer or null")
    return value


def req_time(record: dict[str, Any], key: str) -> datetime:
    """A required ISO-8601 time (no zone: UTC)."""
    parsed = parse_aware_time(record.get(key))
    if parsed is None:
        raise FieldError(f"{key}: expected ISO-8601 time")
    return parsed


def opt_time(record: dict[str, Any], key: str) -> datetime | None:
    """An optional ISO-8601 time (absent or ``null`` → ``None``; no zone: UTC)."""
    if record.get(key) is None:
        return None
    return req_time(record, key)
