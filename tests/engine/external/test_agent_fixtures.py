"""Every registered agent has its fixtures (``tests/fixtures/agents/<name>/``, docs/agents.md): a
README naming the agent's source files and the real sessions the format was taken from, and an
``expect.json`` whose sessions lie in two lanes, show visible text, hide some, count skipped
records, and a live append (``append.*``: bytes appended to a tailed transcript, rows added to a
database, a document rewritten whole). ``test_fixture_sessions`` reads every one of them.

A new line in ``engine.agent_table`` without them fails here. ``PENDING`` names the agents whose
fixtures are not in that layout yet; an agent leaves it when its folder is complete, and this
test says so when one is complete and still listed."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from engine.agent_table import AGENT_NAMES
from engine.external.registry import agent_format
from tests.engine.external.agent_homes import FIXTURES

PENDING: frozenset[str] = frozenset()
"""Agents whose fixtures are not yet in the shared layout (never add to it)."""


def _problems(name: str) -> list[str]:
    """What agent ``name``'s fixture folder lacks (empty: complete)."""
    folder = FIXTURES / name
    readme, expect = folder / "README.md", folder / "expect.json"
    if not folder.is_dir():
        return [f"no folder {folder}"]
    out: list[str] = []
    text = readme.read_text().lower() if readme.is_file() else ""
    if "source" not in text or "session" not in text:
        out.append("README.md naming the agent's source files and real sessions")
    if not expect.is_file():
        return [*out, "expect.json"]
    spec: dict[str, Any] = json.loads(expect.read_text())
    sessions: list[dict[str, Any]] = spec.get("sessions", [])
    if len({s.get("lane") for s in sessions}) < 2:
        out.append("sessions in two lanes")
    if not any(s.get("events") for s in sessions):
        out.append("visible events")
    fmt = agent_format(name)
    if not fmt.hidden.startswith("nothing") and not any(s.get("hidden") for s in sessions):
        out.append("hidden texts")
    if not any(s.get("skipped", 0) > 0 for s in sessions):
        out.append("a skipped-record count")
    if not ("append" in spec and any(folder.glob("append.*"))):
        out.append("a live append (append.* and its expected event)")
    return out


@pytest.mark.parametrize("name", AGENT_NAMES)
def test_every_registered_agent_has_its_fixtures(name: str) -> None:
    problems = _problems(name)
    if name in PENDING:
        assert problems, f"{name}'s fixtures are complete: take it out of PENDING"
    else:
        assert not problems, f"{FIXTURES / name} lacks: {', '.join(problems)}"


def test_pending_names_registered_agents_only() -> None:
    assert set(AGENT_NAMES) >= PENDING
    assert Path(FIXTURES).is_dir()
