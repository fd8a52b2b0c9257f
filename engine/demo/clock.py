"""The demo's fixed clock: every timestamp in the demo derives from ``DEMO_NOW``.

A fixed base time (never ``datetime.now()``) is what makes two builds byte-identical and lets
tests and the README pin ``ADE_NOW`` to the same instant.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

DEMO_NOW = datetime(2026, 6, 15, 12, 0, 0, tzinfo=UTC)
"""The demo's "now": a Monday noon UTC, so `since:24h` and `since:7d` select visible subsets."""

DEMO_SEED = 20260615
"""Seed of every ``random.Random`` the demo uses; changing it changes every build."""


def ago(*, days: float = 0, hours: float = 0, minutes: float = 0, seconds: float = 0) -> datetime:
    """Return the instant that lies the given span before ``DEMO_NOW``."""
    return DEMO_NOW - timedelta(days=days, hours=hours, minutes=minutes, seconds=seconds)


def iso(moment: datetime) -> str:
    """ISO-8601 with milliseconds and the zone spelled ``Z`` for UTC (``+HH:MM`` otherwise)."""
    text = moment.isoformat(timespec="milliseconds")
    return text.replace("+00:00", "Z")


def git_date(moment: datetime) -> str:
    """The ``<epoch> <±hhmm>`` form git's fast-import and ``GIT_*_DATE`` accept."""
    offset = moment.utcoffset() or timedelta(0)
    minutes = int(offset.total_seconds() // 60)
    sign = "+" if minutes >= 0 else "-"
    return f"{int(moment.timestamp())} {sign}{abs(minutes) // 60:02d}{abs(minutes) % 60:02d}"
