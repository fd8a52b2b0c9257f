"""Golden text files for what a snapshot (headless SVG) cannot show: a real terminal's pane, a
refusal's stderr. Stored under the top-level ``snapshots/<folder>/<name>.txt``.

``ADE_UPDATE_GOLDENS=1`` rewrites them from the run instead of comparing (the counterpart of the
snapshot plugin's ``--snapshot-update``); review the diff before committing.
"""

from __future__ import annotations

import os
from pathlib import Path

SNAPSHOTS = Path(__file__).resolve().parents[3] / "snapshots"
UPDATE_ENV = "ADE_UPDATE_GOLDENS"


def normalised(text: str) -> str:
    """Trailing spaces and blank lines dropped: a pane pads every row to its width."""
    return "\n".join(line.rstrip() for line in text.splitlines()).strip("\n") + "\n"


def assert_golden(folder: str, name: str, text: str) -> None:
    """``text`` equals the committed golden (or becomes it under ``ADE_UPDATE_GOLDENS=1``)."""
    path = SNAPSHOTS / folder / f"{name}.txt"
    actual = normalised(text)
    if os.environ.get(UPDATE_ENV):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(actual)
        return
    assert path.exists(), f"no golden {path}: run with {UPDATE_ENV}=1 to write it"
    assert actual == path.read_text(), f"{path} differs (regenerate with {UPDATE_ENV}=1)"
