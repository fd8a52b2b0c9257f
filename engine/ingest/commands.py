"""One terminal document per shell command, from the OSC 133 sidecar ``ade term`` writes.

``.ade/terminals/<id>.commands.jsonl`` holds, for each finished command, its line, exit status
and byte range in the log (``engine.terminal.recorder``). After each pass over the log, every command the
log cursor has passed becomes the document ``terminal:<id>@<outputStart>!cmd``: titled with the
command line and exit status, its body the command's sanitized output, anchored at the output so
the link opens the scrollback there. Its exit status, folder and duration (``startedAt`` to
``endedAt``) are columns of its own for the ``exit:``, ``cwd:`` and ``took:`` filters. Each of the log's size-based chunks overlapping a newly finished
command is then re-derived from its raw bytes outside every command (prompt, typed line, output),
or dropped when nothing is left, so a line is found once, under its command; text outside any
command (a login banner, a command still running) stays in the chunks.

The whole sidecar is re-read when it or the log cursor changed (a line is ~150 bytes: a
thousand commands is a 150 KB read), so a log reindexed from zero gets its commands again.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from engine.index.db import (
    IndexDoc,
    SourceRow,
    get_source,
    put_source,
)
from engine.index.writer import IndexWriter
from engine.ingest.docstore import existing_doc_ids
from engine.project.model import Project, SessionMeta
from engine.project.safe_io import loads_json, read_regular
from engine.project.stat import stat_signature
from engine.project.transcripts import TranscriptError, read_transcript
from engine.terminal.chunking import chunk_terminal_bytes

COMMAND_OUTPUT_BYTES = 256 * 1024
"""Raw output bytes indexed per command (like a chat message's cap); chunks past it are kept."""

SIDECAR_MAX_BYTES = 16 * 1024 * 1024
"""Largest sidecar read (about 100,000 commands); a longer one is read up to here."""


@dataclass(frozen=True)
class Command:
    """One finished command of the sidecar."""

    command: str
    exit_code: int | None
    prompt_start: int
    output_start: int
    end: int
    cwd: str | None = None
    took_ms: int | None = None
    ended_ms: int | None = None
    """When it finished (its hit's time, so the newest command comes first), when recorded."""


def commands_file(project: Project, sid: str) -> Path:
    """Where ``ade term`` writes the OSC 133 sidecar of terminal ``sid``."""
    return project.ade_dir / "terminals" / f"{sid}.commands.jsonl"


def commands_source(sid: str) -> str:
    """Source key of the command docs; ``chat/terminal:<sid>/…`` keys live while the session does."""
    return f"terminal:{sid}/commands"


def read_commands(path: Path) -> list[Command]:
    """The well-formed, complete lines of a sidecar (a torn last line is left for later)."""
    try:
        data = read_regular(path, SIDECAR_MAX_BYTES)
    except OSError:
        return []
    found: list[Command] = []
    for raw in data[: data.rfind(b"\n") + 1].splitlines():
        try:
            obj = loads_json(raw)
            spans = [int(obj[k]) for k in ("promptStart", "outputStart", "end")]
            code = obj.get("exitCode")
            command = str(obj.get("command") or "").strip()
        except (ValueError, TypeError, KeyError, AttributeError):
            continue
        if spans[0] <= spans[1] <= spans[2]:
            exit_code = code if isinstance(code, int) and not isinstance(code, bool) else None
            cwd = obj.get("cwd")
            cwd = cwd if isinstance(cwd, str) and cwd.startswith("/") else None
            found.append(Command(
                command, exit_code, prompt_start=spans[0], output_start=spans[1], end=spans[2],
                cwd=cwd, took_ms=_took_ms(obj), ended_ms=_ended_ms(obj),
            ))  # fmt: skip
    return found


def _took_ms(line: dict[str, object]) -> int | None:
    """Milliseconds from ``startedAt`` to ``endedAt``; None when either is missing or odd."""
    try:
        start = datetime.fromisoformat(str(line["startedAt"]))
        end = datetime.fromisoformat(str(line["endedAt"]))
    except (KeyError, ValueError):
        return None
    if start.tzinfo is None or end.tzinfo is None or end < start:
        return None
    return int((end - start).total_seconds() * 1000)


def _ended_ms(line: dict[str, object]) -> int | None:
    try:
        end = datetime.fromisoformat(str(line["endedAt"]))
    except (KeyError, ValueError):
        return None
    return int(end.timestamp() * 1000) if end.tzinfo is not None else None


def took_text(ms: int) -> str:
    """``0.4s``, ``12s``, ``3m05s``, ``1h02m``: a duration as a title shows it."""
    if ms < 10_000:
        return f"{ms / 1000:.1f}s"
    seconds = ms // 1000
    if seconds < 3600:
        return f"{seconds}s" if seconds < 60 else f"{seconds // 60}m{seconds % 60:02d}s"
    return f"{seconds // 3600}h{seconds % 3600 // 60:02d}m"


def command_title(command: Command) -> str:
    """``$ pytest -x  (exit 1, 2.3s, in /src/app)``: what a hit says about the command."""
    status = ["running" if command.exit_code is None else f"exit {command.exit_code}"]
    if command.took_ms is not None:
        status.append(took_text(command.took_ms))
    if command.cwd is not None:
        status.append(f"in {command.cwd}")
    return f"$ {command.command or '(command)'}  ({', '.join(status)})"


def index_commands(
    writer: IndexWriter, project: Project, sid: str, meta: SessionMeta, log: Path, now_ms: int
) -> int:
    """Write the docs of the commands the log cursor passed; take their text out of the chunks.

    Returns:
        How many command docs were written.
    """
    sidecar = commands_file(project, sid)
    key = commands_source(sid)
    conn = writer.conn
    log_row = get_source(conn, f"terminal:{sid}")
    if log_row is None:
        return 0
    identity = f"{stat_signature([sidecar])}@{log_row.cursor}@{log_row.identity}"
    stored = get_source(conn, key)
    if (stored is not None and stored.identity == identity) or (
        stored is None and not sidecar.exists()
    ):
        return 0  # unchanged, or a shell without OSC 133 marks
    reset = stored is not None and not identity.endswith(f"@{log_row.identity}")
    done = [c for c in read_commands(sidecar) if c.end <= log_row.cursor]
    with writer.transaction():
        if reset:
            writer.delete_docs_by_source(key)  # the log was reindexed: chunks are whole again
        docs = [_doc(sid, meta, c) for c in done]
        have = existing_doc_ids(conn, [d.doc_id for d in docs])
        new = [c for c, d in zip(done, docs, strict=True) if d.doc_id not in have]
        fresh = [_doc(sid, meta, c, _output(log, c)) for c in new]
        writer.upsert_docs(fresh)
        _trim_chunks(writer, sid, log, _merged([_region(c) for c in done]), new, log_row.cursor)
        put_source(conn, SourceRow(key=key, identity=identity, last_run=now_ms))
    return len(fresh)


def _region(command: Command) -> tuple[int, int]:
    """Bytes the command's doc stands for: prompt, typed line and (capped) output."""
    return command.prompt_start, min(command.end, command.output_start + COMMAND_OUTPUT_BYTES)


def _output(log: Path, command: Command) -> str:
    size = min(command.end - command.output_start, COMMAND_OUTPUT_BYTES)
    return _text(log, [(command.output_start, command.output_start + size)])


def _text(log: Path, spans: list[tuple[int, int]]) -> str:
    """Sanitized text of the raw log bytes in ``spans``."""
    out: list[str] = []
    for lo, hi in spans:
        try:
            data = read_transcript(log, lo, hi - lo).data
        except TranscriptError:
            continue
        out += [chunk.text for chunk in chunk_terminal_bytes(data, lo, force=True).chunks]
    return "".join(out).strip("\n")


def _doc(sid: str, meta: SessionMeta, command: Command, output: str = "") -> IndexDoc:
    from engine.ingest.docs import ms  # deferred like the other document builders
    from engine.redaction import redact_secrets, redact_title

    return IndexDoc(
        doc_id=f"terminal:{sid}@{command.output_start}!cmd",
        kind="terminal",
        title=redact_title(command_title(command)),
        rank_title=redact_title(command.command),
        body=redact_secrets(output),
        updated_at=command.ended_ms if command.ended_ms is not None else ms(meta.updated_at),
        session_id=sid,
        lane_id=meta.lane_id,
        anchor=str(command.output_start),
        source_key=commands_source(sid),
        exit_code=command.exit_code,
        cwd=command.cwd,
        took_ms=command.took_ms,
    )


def _trim_chunks(
    writer: IndexWriter, sid: str, log: Path, regions: list[tuple[int, int]],
    new: list[Command], cursor: int,
) -> None:  # fmt: skip
    """Re-derive each chunk overlapping a new command from its raw bytes outside every command
    region (a chunk left empty is deleted), so each line is indexed once."""
    from engine.redaction import redact_secrets, redact_title

    if not new:
        return
    rows = writer.conn.execute(
        "SELECT doc_id, anchor, title, lane_id, updated_at FROM docs WHERE source_key = ?",
        (f"terminal:{sid}",),
    ).fetchall()
    chunks = sorted((int(r[1]), r) for r in rows if r[1] is not None and str(r[1]).isdigit())
    touched = _merged([_region(c) for c in new])
    gone: list[str] = []
    rewritten: list[IndexDoc] = []
    for index, (start, row) in enumerate(chunks):
        end = chunks[index + 1][0] if index + 1 < len(chunks) else cursor
        if not any(lo < end and start < hi for lo, hi in touched):
            continue
        text = _text(log, _outside(start, end, regions))
        if not text.strip():
            gone.append(str(row[0]))
            continue
        rewritten.append(IndexDoc(
            doc_id=str(row[0]), kind="terminal", title=redact_title(str(row[2])), rank_title="",
            body=redact_secrets(text), updated_at=int(str(row[4])), session_id=sid,
            lane_id=None if row[3] is None else str(row[3]), anchor=str(start),
            source_key=f"terminal:{sid}",
        ))  # fmt: skip
    writer.delete_docs(gone)
    writer.upsert_docs(rewritten)


def _outside(start: int, end: int, regions: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The parts of ``[start, end)`` outside every (sorted, merged) region."""
    out: list[tuple[int, int]] = []
    pos = start
    for lo, hi in regions:
        if hi <= pos or lo >= end:
            continue
        if lo > pos:
            out.append((pos, lo))
        pos = max(pos, hi)
    if pos < end:
        out.append((pos, end))
    return out


def _merged(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Sorted spans, overlapping or touching ones joined."""
    out: list[tuple[int, int]] = []
    for lo, hi in sorted(spans):
        if out and lo <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], hi))
        else:
            out.append((lo, hi))
    return out
