"""Gemini CLI and OpenCode sessions: their signature and every visible event, read whole.

Their stores are not append-only byte streams: Gemini appends a changed message again under the
same id and ``$rewindTo`` drops messages; OpenCode updates database rows. So a pass parses the
whole session, upserts its docs (stable ids: an unchanged message is left untouched by the
digest check) and deletes the session's docs that are gone, in one transaction. A file that
cannot be parsed (a legacy document caught half-written, a corrupt database) is counted and its
docs are kept as they were.

What a pass skipped (bad lines or rows, JSON nested too deep, a huge line or row indexed
truncated and marked) is stored with the session, as the tailed transcripts store theirs
(``engine.ingest.tailing.SKIPPED_STATE_KEY`` in the ``chat:<sid>`` source row), so a later
``--status`` shows it; it is the count of the latest derivation, since each re-reads it all. The pass that writes them is
``engine.ingest.external_derive``.
"""

from __future__ import annotations

from pathlib import Path

import apsw
import msgspec

from engine.external.gemini import (
    SUBAGENT_STRIDE,
    GeminiRecord,
    gemini_events,
    load_gemini,
    subagent_files,
)
from engine.external.opencode import CUT_ROW, opencode_events, session_signature
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
    return derived_events(path, tool, tally, source)[0]


def derived_events(
    path: Path, tool: str, tally: WarningTally, source: str
) -> tuple[list[ChatEvent] | None, int]:
    """The events and how many lines or rows were cut at the read cap (indexed marked)."""
    if tool == "opencode":
        rows = WarningTally()
        try:
            events = opencode_events(path.parent, path.name, rows)
        except apsw.Error as err:
            tally.add(source, f"database not readable ({type(err).__name__})")
            return None, 0
        cut = 0
        for reason, n in rows.reasons(f"chat:opencode-{path.name}").items():
            if reason == CUT_ROW:
                cut = n  # counted once with the marked bodies (derived_docs)
            else:
                tally.add(source, reason, n)
        return events, cut
    record, cut_lines = load_gemini(path, source, tally)
    if record is None:
        return None, 0
    events = gemini_events(record)
    for number, sub in enumerate(subagent_files(path, record.session_id or "")):
        sub_record, sub_cut = load_gemini(sub, source, tally)  # gone meanwhile: next change
        cut_lines += sub_cut
        base = (number + 1) * SUBAGENT_STRIDE
        events += [
            msgspec.structs.replace(e, seq=base + e.seq, offset=base + e.offset)
            for e in gemini_events(sub_record or GeminiRecord())
        ]
    return events, cut_lines
