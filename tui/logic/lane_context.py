"""The lane the palette was started in: shown in the footer and one key away as a ``lane:``
filter (the lane you stand in). Never applied silently: a query only narrows when the user adds it."""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from engine.project.model import Lane

LANE_KEY = "ctrl+l"
"""Inserts (or removes) ``lane:<current lane>``; free in the palette and in Textual's Input."""

_LANE_FILTER = re.compile(r"(?:^|\s)lane:\S*", re.IGNORECASE)


def lane_of_cwd(lanes: list[Lane], cwd: Path | None) -> Lane | None:
    """The lane whose folder holds ``cwd`` (the deepest, as for new sessions), else None."""
    if cwd is None or not lanes:
        return None
    from engine.importers.lane_choice import lane_containing

    return lane_containing(lanes, cwd)


def toggle_lane_filter(query: str, lane_id: str) -> str:
    """``query`` with ``lane:<lane_id>`` appended, or with every ``lane:`` filter removed when it
    already has this one (the key works both ways); other ``lane:`` filters are replaced."""
    token = f"lane:{lane_id}"
    had_this = token.lower() in (part.lower() for part in query.split())
    rest = " ".join(_LANE_FILTER.sub(" ", query).split())
    if had_this:
        return rest
    return f"{rest} {token}".strip() + " "


def safe_cwd() -> Path | None:
    """The working directory, or None when it was deleted under us."""
    try:
        return Path.cwd()
    except OSError:
        return None
