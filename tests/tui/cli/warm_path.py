"""The modules kept off the warm path, read from ARCHITECTURE.md's section that lists them with
their reasons (the one place it is written down)."""

from __future__ import annotations

import re
from pathlib import Path

ARCHITECTURE = Path(__file__).resolve().parents[3] / "ARCHITECTURE.md"
SECTION = "## The warm path"


def kept_off_the_warm_path(text: str | None = None) -> tuple[str, ...]:
    """Every module named before the colon of a bullet in the warm-path section."""
    text = ARCHITECTURE.read_text("utf-8") if text is None else text
    section = text.split(SECTION, 1)[1].split("\n## ", 1)[0]
    names: list[str] = []
    for bullet in re.split(r"^- ", section, flags=re.M)[1:]:
        head = bullet.split(": ", 1)[0]
        names.extend(re.findall(r"`([\w.]+)`", head))
    return tuple(names)
