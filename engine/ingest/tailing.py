"""One incremental pass over a transcript: read from the byte cursor, build docs, commit both.

The rules (DESIGN §4, RELIABILITY 1-5, 12):
- at most ``WriteTuning.slice_bytes`` a pass; ``more`` tells the caller to re-enqueue;
- the builder never consumes a torn last line, so the cursor only moves past whole records;
- the fingerprint decides whether the cursor is still valid; if not, the session restarts at 0;
- docs, deletions and the new cursor commit in one ``BEGIN IMMEDIATE`` transaction, which first
  checks that nobody (another process) moved the cursor meanwhile; if someone did, the pass is
  redone from the new cursor, so two ingesters never index a line twice or skip one;
- a line longer than a slice is read on up to ``WriteTuning.long_line_cap``; past that it is cut (and
  marked by the builder) so the cursor never stalls; an unterminated huge tail just waits;
- a plan carries its docs' derived column values (``PreparedDocs``: digest, zlib body,
  identifier parts), so the write transaction holds the lock only for SQLite work.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import apsw
import msgspec

from engine.index.db import (
    IndexDoc,
    SourceRow,
    get_source,
    put_source,
)
from engine.index.documents import PreparedDocs
from engine.index.tuning import DEFAULT_TUNING, WriteTuning
from engine.index.writer import IndexWriter
from engine.ingest import fingerprint as fp
from engine.ingest.docstore import doc_title_lane, existing_doc_ids, retitle_children
from engine.ingest.gzcache import read_slice
from engine.project.tally import MAX_REASONS_PER_SOURCE

CUT_HEAD_BYTES = 4 * 1024 * 1024
"""Bytes of a line longer than ``WriteTuning.long_line_cap`` handed to the builder (which indexes them
truncated and marked): far more than an indexed body keeps, and memory stays bounded."""

SKIPPED_STATE_KEY = "skipped"
"""Builder state key holding the lines skipped or truncated since the cursor was at 0: stored
with the cursor in one transaction, so the count survives into later runs (docs/reliability.md) and
restarts with a reindex."""

SKIP_REASONS_STATE_KEY = "skip_reasons"
"""Builder state key holding those lines' counts per reason (``{reason: n}``), beside them."""

MAX_ATTEMPTS = 8
"""Redo a pass this often when another writer moved the cursor or held the lock, then give up
for now (the source is re-enqueued with backoff)."""


class PassOutput(msgspec.Struct):
    """What a builder made of ``data``: bytes consumed, docs, and its carry-over state.

    This module's records are ``msgspec.Struct``s, not dataclasses: a search right after a
    write imports it, and ``dataclasses`` brings ``inspect``, ``ast``, ``dis`` and ``tokenize``
    (~7 ms of a one-shot process; the read-your-writes budget)."""

    consumed: int
    session: IndexDoc
    new_docs: list[IndexDoc] = msgspec.field(default_factory=list)
    """Docs written only when their id is absent (a replayed chat event changes nothing)."""
    upserts: list[IndexDoc] = msgspec.field(default_factory=list)
    state: dict[str, Any] = msgspec.field(default_factory=dict)


Builder = Callable[[bytes, int, bool, dict[str, Any]], PassOutput]
"""``builder(data, base_offset, at_eof, state)``: parse whole records of ``data``."""


class PassResult(msgspec.Struct, frozen=True):
    """How a pass ended: ``more`` means re-enqueue at once; ``written`` docs touched."""

    more: bool
    written: int
    reset: bool = False


class CursorMoved(Exception):
    """Another writer committed this source since we read its row: redo the pass."""


class Plan(msgspec.Struct):
    """One pass read and built, not yet written: what ``commit_pass`` needs (picklable but for
    ``prepared``, whose keys are object ids: ``engine.ingest.planner`` ships it apart)."""

    row: SourceRow
    output: PassOutput
    cursor: int
    identity: str
    size: int
    reset: bool
    more: bool
    state: dict[str, Any]
    prepared: PreparedDocs


def _load_state(row: SourceRow) -> dict[str, Any]:
    try:
        value = json.loads(row.state)
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def _read_window(
    path: Path, cursor: int, extra: int
) -> tuple[bytes, int, int, os.stat_result, bool]:
    start = fp.window_start(cursor)
    piece = read_slice(path, start, cursor - start + extra)
    return piece.data, start, piece.total_size, os.stat(piece.source), piece.compressed


def _cursor_valid(path: Path, row: SourceRow, data: bytes, start: int, st: os.stat_result,
                  compressed: bool) -> bool:  # fmt: skip
    stored = fp.Fingerprint.from_json(row.identity)
    head = None
    if start > 0:
        head = read_slice(path, 0, min(row.cursor, fp.HEAD_BYTES)).data
    return fp.matches(stored, row.cursor, data, start, st.st_dev, st.st_ino, compressed, head)


def plan_pass(
    path: Path, row: SourceRow, builder: Builder, tuning: WriteTuning = DEFAULT_TUNING
) -> Plan:
    """Read the next slice of ``path`` after ``row.cursor`` and build its docs (no DB access);
    ``tuning`` gives the slice's size and the longest line read whole.

    Raises:
        TranscriptNotReady: transient (an empty or truncated ``.gz``): consume nothing.
        TranscriptUnreadable: the transcript cannot be read.
    """
    cursor, state = row.cursor, _load_state(row)
    slice_bytes = tuning.slice_bytes
    data, start, total, st, compressed = _read_window(path, cursor, slice_bytes)
    reset = False
    if not _cursor_valid(path, row, data, start, st, compressed):
        reset, cursor, state, start = True, 0, {}, 0
        data, start, total, st, compressed = _read_window(path, 0, slice_bytes)
    fresh = data[cursor - start :]
    at_eof = cursor + len(fresh) >= total
    output = builder(fresh, cursor, at_eof, state)
    if output.consumed == 0 and not at_eof and len(fresh) >= slice_bytes:
        output, data, start = _long_line(path, cursor, start, data, total, builder, state, tuning)
    new_cursor = cursor + output.consumed
    head = fp.Fingerprint.from_json(row.identity).head
    if reset or not head or cursor < fp.HEAD_BYTES:
        # The head hash covers min(cursor, HEAD_BYTES) bytes, so it changes until the cursor
        # passes HEAD_BYTES; read the head unless the slice in hand starts with it.
        first = data if start == 0 else read_slice(path, 0, fp.HEAD_BYTES).data
        head = fp.digest(first[: min(new_cursor, fp.HEAD_BYTES)])
    ident = fp.take(data, start, new_cursor, st.st_dev, st.st_ino, compressed, head)
    # Derived column values (digest, zlib body, identifier parts) are computed here, before the
    # write transaction: the lock is then held ~half as long (benchmarks/journal/waves-1-to-3.md, "Ingestion").
    if compressed:  # snippets are re-read from a plain file only: a .gz pass stores its bodies
        output.new_docs = [msgspec.structs.replace(d, source_span=None) for d in output.new_docs]
        output.upserts = [msgspec.structs.replace(d, source_span=None) for d in output.upserts]
    prepared = PreparedDocs([output.session, *output.new_docs, *output.upserts])
    return Plan(
        row=row,
        output=output,
        cursor=new_cursor,
        identity=ident.to_json(),
        size=total,
        reset=reset,
        more=output.consumed > 0 and new_cursor < total,
        state=output.state,
        prepared=prepared,
    )


def _long_line(path: Path, cursor: int, start: int, data: bytes, total: int, builder: Builder,
               state: dict[str, Any], tuning: WriteTuning) -> tuple[PassOutput, bytes, int]:  # fmt: skip
    """A slice without a newline: find the line's end and hand the builder the whole line, or
    its first ``long_line_cap`` bytes plus a newline when it is longer (the builder marks it).
    An unterminated line waits: nothing is consumed and the scan resumes where it stopped."""
    scan = max(int(state.get("scan_from", 0)), cursor + tuning.slice_bytes)
    end = -1
    while scan < total:
        piece = read_slice(path, scan, tuning.slice_bytes).data
        if not piece:
            break
        hit = piece.find(b"\n")
        if hit >= 0:
            end = scan + hit
            break
        scan += len(piece)
    if end < 0:
        out = builder(b"", cursor, False, state)
        out.state = {**state, "scan_from": scan}
        return out, data, start
    line_len = end + 1 - cursor
    if line_len <= tuning.long_line_cap:
        whole = read_slice(path, start, cursor - start + line_len).data
        out = builder(whole[cursor - start :], cursor, False, state)
        out.state.pop("scan_from", None)
        return out, whole, start
    head = read_slice(path, cursor, min(CUT_HEAD_BYTES, tuning.long_line_cap)).data + b"\n"
    out = builder(head, cursor, False, {**state, "cut_line": True})
    out.consumed = line_len  # skip the rest of the line: it was indexed truncated and marked
    out.state.pop("scan_from", None)
    out.state.pop("cut_line", None)
    tail = read_slice(path, fp.window_start(end + 1), end + 1 - fp.window_start(end + 1))
    return out, tail.data, fp.window_start(end + 1)


def carried_skips(
    state: dict[str, Any], new: int, reasons: Mapping[str, int] | None = None
) -> dict[str, Any]:
    """The state entries a builder returns: the stored count of skipped lines plus ``new``, and
    the stored counts per reason plus ``reasons`` (``--status`` says why, in a later run too)."""
    stored = state.get(SKIPPED_STATE_KEY)
    total = (stored if isinstance(stored, int) and stored > 0 else 0) + max(new, 0)
    if not total:
        return {}
    why = merged_reasons(state.get(SKIP_REASONS_STATE_KEY), reasons or {})
    return {SKIPPED_STATE_KEY: total, **({SKIP_REASONS_STATE_KEY: why} if why else {})}


def merged_reasons(stored: Any, new: Mapping[str, int]) -> dict[str, int]:
    """Stored counts per reason (as read back from a state) plus ``new``, bounded like a
    ``WarningTally``'s (``MAX_REASONS_PER_SOURCE``; the rest under ``other reasons``)."""
    out: dict[str, int] = {}
    if isinstance(stored, dict):
        out = {str(k): v for k, v in stored.items() if isinstance(v, int) and v > 0}
    for reason, n in new.items():
        if n <= 0:
            continue
        if reason not in out and len(out) >= MAX_REASONS_PER_SOURCE:
            reason = "other reasons"
        out[reason] = out.get(reason, 0) + n
    return dict(sorted(out.items()))


def persisted_skips(rows: list[SourceRow]) -> dict[str, int]:
    """Skipped-line counts per source key, as stored with the cursors (for the status)."""
    return {key: sum(why.values()) for key, why in persisted_skip_reasons(rows).items()}


def persisted_skip_reasons(rows: list[SourceRow]) -> dict[str, dict[str, int]]:
    """Skipped-line counts per source key and reason, as stored with the cursors (a count
    stored without its reasons, by an older release, under ``other reasons``)."""
    found: dict[str, dict[str, int]] = {}
    for row in rows:
        if f'"{SKIPPED_STATE_KEY}"' not in row.state:
            continue
        state = _load_state(row)
        count = state.get(SKIPPED_STATE_KEY)
        if not isinstance(count, int) or count <= 0:
            continue
        why = merged_reasons(state.get(SKIP_REASONS_STATE_KEY), {})
        rest = count - sum(why.values())
        if rest > 0:
            why["other reasons"] = why.get("other reasons", 0) + rest
        found[row.key] = why
    return found


def state_json(state: dict[str, Any]) -> str:
    """A builder state as the source row stores it (its text is compared as is)."""
    return json.dumps(state, separators=(",", ":"), sort_keys=True)


def commit_pass(writer: IndexWriter, plan: Plan, kind: str, now_ms: int) -> int:
    """Write the plan's docs and cursor in one transaction; raise ``CursorMoved`` if stale.

    Returns:
        How many docs were written.
    """
    out = plan.output
    key = plan.row.key
    conn = writer.conn
    with writer.transaction():
        current = get_source(conn, key) or SourceRow(key=key)
        if (current.cursor, current.identity, current.state) != (
            plan.row.cursor,
            plan.row.identity,
            plan.row.state,
        ):
            raise CursorMoved(key)
        if plan.reset:
            writer.delete_docs_by_source(key)
        before = doc_title_lane(conn, out.session.doc_id)
        have = existing_doc_ids(conn, (d.doc_id for d in out.new_docs))
        fresh = [d for d in out.new_docs if d.doc_id not in have]
        writer.upsert_docs(plan.prepared.subset([out.session, *fresh, *out.upserts]))
        if before is not None and before != (out.session.title, out.session.lane_id):
            retitle_children(conn, kind, out.session.session_id or "", out.session.title,
                             out.session.lane_id)  # fmt: skip
        put_source(
            conn,
            SourceRow(
                key=key,
                cursor=plan.cursor,
                identity=plan.identity,
                size=plan.size,
                last_run=now_ms,
                state=state_json(plan.state),
            ),
        )
    return len(fresh) + len(out.upserts)


def run_pass(
    writer: IndexWriter,
    path: Path,
    key: str,
    kind: str,
    builder: Builder,
    now_ms: int,
    planned: Plan | None = None,
    tuning: WriteTuning = DEFAULT_TUNING,
) -> PassResult:
    """Plan and commit one pass, redoing it when another writer got there first.

    ``planned``: a plan made elsewhere (``engine.ingest.planner``) from the source row stored
    now; it is used only when the stored row is still the one it started from.

    Raises:
        TranscriptNotReady / TranscriptUnreadable: from reading (nothing was written).
        apsw.BusyError: the lock stayed taken through every attempt.
    """
    for attempt in range(MAX_ATTEMPTS):
        row = get_source(writer.conn, key) or SourceRow(key=key)
        if planned is not None and (planned.row.cursor, planned.row.identity,
                                    planned.row.state) == (row.cursor, row.identity, row.state):  # fmt: skip
            plan = planned
        else:
            plan = plan_pass(path, row, builder, tuning)
        planned = None
        try:
            written = commit_pass(writer, plan, kind, now_ms)
        except CursorMoved:
            continue
        except apsw.BusyError:
            if attempt == MAX_ATTEMPTS - 1:
                raise
            continue
        return PassResult(more=plan.more, written=written, reset=plan.reset)
    return PassResult(more=True, written=0)
