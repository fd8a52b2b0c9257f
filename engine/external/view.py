"""Reading a whole agent transcript for the chat view and ``ade open``.

The chat screen and ``ade open`` get a transcript path; this tells an external transcript from an
``.ade/chats`` one and returns its events the way the index saw them: the same parsers, the same
seq (the deep-link anchor), a Claude session's subagent files after its own messages, and each
message once (the first copy, as indexed).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from engine.external.registry import all_formats, format_for_path, format_of
from engine.project.model import ChatEvent
from engine.project.safe_io import JsonRejected, loads_json, read_regular
from engine.project.tally import WarningTally

SNIFF_BYTES = 64 * 1024
"""Bytes read to recognise a transcript's format by its first line."""

READ_LIMIT = 64 * 1024 * 1024
"""Largest transcript file read whole for the view (as for ``.ade`` chats)."""


def external_format(path: Path, environ: Mapping[str, str] | None = None) -> str | None:
    """The tool (``claude``, ``codex``, ``gemini``…) of an external transcript, None for an
    ``.ade`` chat."""
    env = os.environ if environ is None else environ
    found = format_for_path(path, env)
    if found is not None:
        return found.name
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
        for fmt in all_formats():
            if fmt.sniff(obj):
                return fmt.name
    return None


def transcript_exists(path: Path) -> bool:
    """True when the transcript is there: a file, or a session inside its database (OpenCode,
    Goose, Crush, the Cursor editor: ``<database>/<session id>``)."""
    if path.exists():
        return True
    return path.parent.is_file()


def read_external_events(path: Path, tool: str) -> list[ChatEvent]:
    """Every message event of the transcript (``tool`` as from ``external_format``).

    Raises:
        OSError: the main transcript cannot be read (a subagent file that vanished is skipped).
    """
    fmt = format_of(tool)
    if fmt is None:
        raise ValueError(f"not an agent: {tool!r}")
    if fmt.derived_file(path):
        if not transcript_exists(path):
            raise FileNotFoundError(str(path))  # as for a tailed transcript
        return fmt.derived_events(path, WarningTally(), "view")[0] or []
    events: list[ChatEvent] = []
    for index, (file, seq_base) in enumerate(fmt.view_files(path)):
        try:
            data = _read(file)
        except OSError:
            if index == 0:
                raise
            continue
        events += fmt.parse(data, 0, "view", WarningTally(), {}, seq_base)[0]
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
