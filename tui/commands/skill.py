"""`ade skill`: print the agent skill (SKILL.md) shipped in the package, for agents in lanes."""

from __future__ import annotations

import argparse
from importlib.resources import files


def skill_text() -> str:
    return files("tui").joinpath("skill/SKILL.md").read_text(encoding="utf-8")


def configure(parser: argparse.ArgumentParser) -> None:
    parser.description = "Print the ade-search agent skill: when and how an agent should search."


def run(_args: argparse.Namespace) -> int:
    print(skill_text(), end="")
    return 0
