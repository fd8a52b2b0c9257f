"""The service's clock: injectable so `since:` and relative times are reproducible.

``ADE_NOW=<ISO-8601 with zone>`` in the environment fixes the clock for scripts and tests
(DESIGN §7). A naive ``ADE_NOW`` is refused: `since:` arithmetic and ``updatedAt`` ordering are
only meaningful with a zone.
"""

# warm path: a warm `ade search` imports this; keep its imports light (ARCHITECTURE: The warm path)

from __future__ import annotations

import os
from datetime import UTC, datetime

from engine.errors import UsageError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

    Clock = Callable[[], datetime]
    """Returns the current time, timezone-aware."""
else:
    # Only ever an annotation (postponed everywhere); `collections.abc` stays off a
    # daemon-answered text search, which reads the clock for its relative times (start-up budget)
    Clock = "Callable[[], datetime]"

ADE_NOW_ENV = "ADE_NOW"


def system_clock() -> datetime:
    """The real time, in UTC."""
    return datetime.now(UTC)


def parse_fixed_now(text: str) -> datetime:
    """Parse an ``ADE_NOW`` value; raises ``UsageError`` naming the expected form."""
    try:
        value = datetime.fromisoformat(text.strip())
    except ValueError:
        raise UsageError(
            f"ADE_NOW={text!r} is not an ISO-8601 time (e.g. 2026-06-15T12:00:00+00:00)"
        ) from None
    if value.tzinfo is None:
        raise UsageError(f"ADE_NOW={text!r} has no time zone (add +00:00 or Z)")
    return value


def fixed_clock(moment: datetime) -> Clock:
    """A clock that always answers ``moment``."""
    return lambda: moment


def clock_from_env(environ: dict[str, str] | None = None) -> Clock:
    """``ADE_NOW`` when set (fixed), else the system clock."""
    env = os.environ if environ is None else environ
    text = env.get(ADE_NOW_ENV)
    return fixed_clock(parse_fixed_now(text)) if text else system_clock
