"""Gemini CLI and OpenCode sessions: their signature and every visible event, read whole.

Their stores are not append-only byte streams: Gemini appends a changed message again under the
same id and ``$rewindTo`` drops messages; OpenCode updates database rows. So a pass parses the
whole session, upserts its docs (stable ids: an unchanged message is left untouched by the
digest check) and deletes the session's docs that are gone, in one transaction. A file that
cannot be parsed (a legacy document caught half-written, a corrupt database) is counted and its
docs are kept as they were. The pass that writes them is ``engine.ingest.external_derive``.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import apsw

from engine.external.agents import READ_LIMIT
from engine.external.gemini import (
    SUBAGENT_STRIDE,
    GeminiRecord,
    gemini_events,
    replay_gemini,
    subagent_files,
)
from engine.external.opencode import opencode_events, session_signature
from engine.project.model import ChatEvent, SessionMeta
from engine.project.stat import stat_signature
from engine.project.tally import WarningTally


def derived_signature(meta: SessionMeta) -> str:
    """What changes whenever the session does: the database rows, or the file's stat."""
    path = meta.transcript_path
    if path is None:
        return "null"
    if meta.source == "opencode":
        return session_signature(path.parent, path.name)
    return stat_signature([path, *subagent_files(path, meta.id.removeprefix("gemini-"))])


def read_derived_events(
    path: Path, tool: str, tally: WarningTally, source: str
) -> list[ChatEvent] | None:
    """Every visible event of the session at ``path``; None when it cannot be parsed now."""
    if tool == "opencode":
        try:
            return opencode_events(path.parent, path.name, tally)
        except apsw.Error as err:
            tally.add(source, f"database not readable ({type(err).__name__})")
            return None
    try:
        with path.open("rb") as handle:
            data = handle.read(READ_LIMIT)
    except OSError:
        tally.add(source, "session file not readable")
        return None
    record = replay_gemini(data, source, tally, document=path.suffix == ".json")
    if record is None:
        return None
    events = gemini_events(record)
    for number, sub in enumerate(subagent_files(path, record.session_id or "")):
        try:
            sub_record = replay_gemini(sub.read_bytes()[:READ_LIMIT], f"{source}/{sub.stem}", tally)
        except OSError:
            continue  # gone meanwhile: the next signature change re-derives
        base = (number + 1) * SUBAGENT_STRIDE
        events += [
            dataclasses.replace(e, seq=base + e.seq, offset=base + e.offset)
            for e in gemini_events(sub_record or GeminiRecord())
        ]
    return events
