"""Reading an agent's fixture (``tests/fixtures/agents/<name>``: ``home/``, ``expect.json``,
``append.jsonl``) the way the index does: its home installed with the lanes' folders put in,
each session's events (tailed or re-derived whole), each message once."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from engine.agent_table import entry
from engine.external.registry import agent_format
from engine.project.model import ChatEvent, Lane
from engine.project.tally import WarningTally
from tests.engine.external.agent_homes import FIXTURES, install_home


def expect(name: str) -> dict[str, Any]:
    """The fixture's ``expect.json``."""
    spec: dict[str, Any] = json.loads((FIXTURES / name / "expect.json").read_text())
    return spec


def install(
    name: str, tmp: Path, project: Path, lane: Path
) -> tuple[Path, dict[str, str], list[Lane]]:
    """The fixture's home under ``tmp`` (its variable pointing there), and the two lanes."""
    home = install_home(name, tmp / f"{name}-home", project, lane)
    variable = entry(name).variable
    assert variable is not None
    environ = {"HOME": str(tmp / "user"), variable: str(home)}
    lanes = [Lane("primary", "main", project, "main", True), Lane("fix", "fix", lane, "fix", False)]
    return home, environ, lanes


def events_of(
    name: str, path: Path, tally: WarningTally, source: str = "chat:s"
) -> list[ChatEvent]:
    """The events of the session at ``path``, each message once (the first copy, as the index
    keeps it)."""
    fmt = agent_format(name)
    if fmt.derived_file(path):
        events = fmt.derived_events(path, tally, source)[0] or []
    else:
        data = path.read_bytes()
        events, used, _ = fmt.parse(data, 0, source, tally, {})
        assert used == len(data)
    first = {(e.type, e.event_id): e for e in reversed(events)}
    return [e for e in events if first[(e.type, e.event_id)] is e]


def shown(event: ChatEvent) -> str:
    """What an event shows: a tool's name and input, a result, a title, a message's text."""
    key = {"tool_call": "input", "tool_result": "output", "session_title": "title"}.get(
        event.type, "text"
    )
    return f"{event.data.get('name', '')} {event.data.get(key, '')}"


def check_events(name: str, home: Path) -> None:
    """Every session of the fixture: its events with roles in order, hidden text absent, the
    skipped records counted with their reasons."""
    for spec in expect(name)["sessions"]:
        tally = WarningTally()
        events = events_of(name, home / spec["file"], tally)
        said = [(e.type, shown(e)) for e in events]
        assert [t for t, _ in said] == [t for t, _ in spec["events"]], said
        for (_, text), (_, word) in zip(said, spec["events"], strict=True):
            assert word in text, (text, word)
        for word in spec["hidden"]:
            assert all(word not in json.dumps(e.data) for e in events), word
        assert tally.reasons("chat:s") == spec["skips"]
        assert tally.total() == spec["skipped"]
