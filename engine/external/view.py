"""Reading a whole Claude Code / Codex transcript for the chat view and ``ade open``.

The chat screen and ``ade open`` get a transcript path; this tells an external transcript from an
``.ade/chats`` one and returns its events the way the index saw them: the same parsers, the same
seq (the deep-link anchor), a Claude session's subagent files after its own messages, and each
message once (the first copy, as indexed).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from engine.external.agents import DERIVED_TOOLS, agent_format
from engine.external.aider import parse_aider
from engine.external.claude_code import parse_claude
from engine.external.codex import parse_codex
from engine.external.copilot import parse_copilot
from engine.external.derive import read_derived_events
from engine.external.discover import claude_projects_dir, codex_sessions_dir, subagent_sources
from engine.project.model import ChatEvent
from engine.project.safe_io import JsonRejected, loads_json, read_regular
from engine.project.tally import WarningTally

SNIFF_BYTES = 64 * 1024
"""Bytes read to recognise a transcript's format by its first line."""

READ_LIMIT = 64 * 1024 * 1024
"""Largest transcript file read whole for the view (as for ``.ade`` chats)."""

_CODEX_TYPES = frozenset({"session_meta", "response_item", "event_msg", "turn_context"})
_CLAUDE_TYPES = frozenset({"summary", "user", "assistant", "system", "file-history-snapshot"})


def external_format(path: Path, environ: Mapping[str, str] | None = None) -> str | None:
    """The tool (``claude``, ``codex``, ``gemini``…) of an external transcript, None for an
    ``.ade`` chat."""
    env = os.environ if environ is None else environ
    agent = agent_format(path, env)  # Gemini, OpenCode, Copilot, Aider
    if agent is not None:
        return agent
    if claude_projects_dir(env) in path.parents:
        return "claude"
    if codex_sessions_dir(env) in path.parents:
        return "codex"
    try:
        head = read_regular(path, SNIFF_BYTES)
    except OSError:
        return None
    for raw in head.split(b"\n")[:-1][:20]:
        try:
            obj = loads_json(raw)
        except JsonRejected:
            continue
        if not isinstance(obj, dict):
            continue
        if "seq" in obj:
            return None  # an .ade chat event
        if isinstance(obj.get("payload"), dict) or obj.get("type") in _CODEX_TYPES:
            return "codex"
        if "sessionId" in obj or "uuid" in obj or obj.get("type") in _CLAUDE_TYPES:
            return "claude"
    return None


def transcript_exists(path: Path) -> bool:
    """True when the transcript is there: a file, or an OpenCode session inside its database."""
    if path.exists():
        return True
    return path.parent.suffix == ".db" and path.parent.is_file()


def read_external_events(path: Path, tool: str) -> list[ChatEvent]:
    """Every message event of the transcript (``tool`` as from ``external_format``).

    Raises:
        OSError: the main transcript cannot be read (a subagent file that vanished is skipped).
    """
    if tool in DERIVED_TOOLS:
        if tool != "opencode":
            path.stat()  # a missing file is an OSError, as for the others
        return read_derived_events(path, tool, WarningTally(), "view") or []
    files = [(path, 0)]
    if tool == "claude":
        files += subagent_sources(path)
    events: list[ChatEvent] = []
    for index, (file, seq_base) in enumerate(files):
        try:
            data = _read(file)
        except OSError:
            if index == 0:
                raise
            continue
        if tool == "codex":
            found, _ = parse_codex(data, 0, "view", WarningTally(), {})
        elif tool == "copilot":
            found, _ = parse_copilot(data, 0, "view", WarningTally())
        elif tool == "aider":
            found, _ = parse_aider(data, 0, {})
        else:
            found, _ = parse_claude(data, 0, "view", WarningTally(), seq_base=seq_base)
        events += found
    seen: set[tuple[str, str]] = set()
    unique: list[ChatEvent] = []
    for event in events:
        key = (event.type, event.event_id or f"seq-{event.seq}")
        if key not in seen:
            seen.add(key)
            unique.append(event)
    return unique


def _read(path: Path) -> bytes:
    data = read_regular(path, READ_LIMIT)
    return data if data.endswith(b"\n") else data + b"\n"  # show a torn last line too
