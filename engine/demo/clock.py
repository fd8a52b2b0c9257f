"""The demo's clock: every timestamp in the demo derives from one base instant.

A fixed base (never ``datetime.now()`` mid-build) is what makes two builds byte-identical. Tests
and ``build_demo()`` use ``DEMO_NOW``; ``ade demo`` builds relative to the day it runs (midnight
UTC of that day, see ``build_day``), so a fresh demo reads "2h", "3d" and ``since:7d`` finds
things (times tell the truth) — and two builds on one day are still identical.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from datetime import UTC, datetime, time, timedelta

DEMO_NOW = datetime(2026, 6, 15, 12, 0, 0, tzinfo=UTC)
"""The demo's "now": a Monday noon UTC, so `since:24h` and `since:7d` select visible subsets."""

DEMO_SEED = 20260615
"""Seed of every ``random.Random`` the demo uses; changing it changes every build."""


_BASE: ContextVar[datetime] = ContextVar("demo_base", default=DEMO_NOW)


def demo_now() -> datetime:
    """The instant the demo being built calls "now"."""
    return _BASE.get()


@contextmanager
def demo_clock(now: datetime) -> Iterator[None]:
    """Build with ``now`` as the demo's "now" (an aware datetime)."""
    token = _BASE.set(now)
    try:
        yield
    finally:
        _BASE.reset(token)


def build_day(moment: datetime) -> datetime:
    """Midnight UTC of ``moment``'s day: everything the demo dates is before it (never in the
    future of a user who builds it that day) and the same all day (deterministic builds)."""
    return datetime.combine(moment.astimezone(UTC).date(), time(0, 0), tzinfo=UTC)


def ago(*, days: float = 0, hours: float = 0, minutes: float = 0, seconds: float = 0) -> datetime:
    """Return the instant that lies the given span before the demo's "now"."""
    return demo_now() - timedelta(days=days, hours=hours, minutes=minutes, seconds=seconds)


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
