"""mypy is strict over both packages: ``.venv/bin/mypy`` with no arguments, as the
README and CI run it, checks ``engine/`` and ``tui/``; tests may stay looser."""

from __future__ import annotations

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_mypy_runs_strict_over_engine_and_tui() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["mypy"]
    assert config["strict"] is True
    assert sorted(config["files"]) == ["engine", "tui"]
