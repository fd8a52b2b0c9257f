"""How old a hit is, said one way: the palette's rows and ``ade search``'s text read this rule.

Pure (no Textual, no I/O) and cheap to import, since the CLI's start-up time counts.
"""

from __future__ import annotations

from datetime import datetime

_UNITS = (("w", 7 * 86400), ("d", 86400), ("h", 3600), ("m", 60))
"""Largest unit first: an age is shown in the largest unit it has at least one of."""

_DATE_AFTER_SECONDS = 365 * 86400
"""From a year on, a count of weeks says less than the date."""

_SKEW_SECONDS = 5 * 60
"""A time at most this far after ``now`` is clock skew between machines: it reads ``now``. Any
later is a wrong clock or a wrong record, and "just now" would be a claim: the date is shown."""


def relative_time(updated_at_ms: int | None, now: datetime, *, ago: bool = False) -> str:
    """The age of ``updated_at_ms`` at ``now``: ``now``, ``5m``, ``3h``, ``2d``, ``4w``, or the date
    (``YYYY-MM-DD`` in ``now``'s zone) from a year on.

    A time up to five minutes after ``now`` (clock skew between machines) reads as ``now``; one
    further in the future shows its date, never "just now". ``ago=True`` is the
    sentence form the CLI prints — ``5m ago``, ``just now``, the date as is — with the same
    unit and count, so one hit shows one age everywhere.

    Args:
        updated_at_ms: Milliseconds since the epoch, or None (gives "").
        now: The injected clock's reading (zone-aware), so output is deterministic in tests.
    """
    if updated_at_ms is None:
        return ""
    then = datetime.fromtimestamp(updated_at_ms / 1000, tz=now.tzinfo)
    seconds = int((now - then).total_seconds())
    if seconds >= _DATE_AFTER_SECONDS or seconds < -_SKEW_SECONDS:
        return then.date().isoformat()
    for unit, size in _UNITS:
        if seconds >= size:
            count = f"{seconds // size}{unit}"
            return f"{count} ago" if ago else count
    return "just now" if ago else "now"
