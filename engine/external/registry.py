"""The agents' formats, looked up by name or by transcript path (``engine.agent_table``).

Each agent's module is imported on first use: a warm ``ade search`` whose manifest matched
never lists a session and never pays for a parser (the start-up budget).
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from pathlib import Path

from engine.agent_table import AGENT_NAMES, entry
from engine.external.agent_format import AgentFormat

_LOADED: dict[str, AgentFormat] = {}


def agent_format(name: str) -> AgentFormat:
    """The format of agent ``name``.

    Raises:
        KeyError: no such agent in the table.
    """
    found = _LOADED.get(name)
    if found is None:
        module = importlib.import_module(entry(name).module)
        found = module.FORMAT
        if not isinstance(found, AgentFormat) or found.name != name:
            raise TypeError(f"{entry(name).module}.FORMAT is not the {name} AgentFormat")
        _LOADED[name] = found
    return found


def all_formats() -> list[AgentFormat]:
    """Every registered agent's format, in the table's order."""
    return [agent_format(name) for name in AGENT_NAMES]


def format_of(tool: str | None) -> AgentFormat | None:
    """The format of ``tool`` when it is a registered agent (None: an ``.ade`` chat)."""
    return agent_format(tool) if tool in AGENT_NAMES else None


def format_for_path(path: Path, environ: Mapping[str, str]) -> AgentFormat | None:
    """The agent whose transcript ``path`` is, by where it lies in ``environ``."""
    for fmt in all_formats():
        if fmt.owns(path, environ):
            return fmt
    return None
