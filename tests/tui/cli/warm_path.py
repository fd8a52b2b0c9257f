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


MARKER = "# warm path: a warm `ade search` imports this; keep its imports light (ARCHITECTURE: The warm path)"
"""The line each module on the warm path carries near its top (``test_warm_path_markers``)."""


def marked_modules(root: Path = ARCHITECTURE.parent) -> set[str]:
    """The dotted names of the ``engine/`` and ``tui/`` modules under ``root`` holding
    :data:`MARKER` as a line of their own."""
    found: set[str] = set()
    for package in ("engine", "tui"):
        for path in (root / package).rglob("*.py"):
            if MARKER in path.read_text("utf-8").splitlines():
                parts = path.relative_to(root).with_suffix("").parts
                found.add(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
    return found
