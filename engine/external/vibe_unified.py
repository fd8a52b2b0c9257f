"""Mistral Vibe 3's unified session store: ``$VIBE_HOME/logs/session/unified/<session id>/``.

What Vibe 3.0.3 (``mistral-vibe`` on PyPI) really wrote, run here against a scripted model
(``tests/fixtures/agents/vibe/real/README.md``), read with its harness's own code
(``mistralai_vibe_local_harness/vibe/_storage.py``: ``CurrentPointerV1``,
``GenerationManifestV1``, ``ProjectionStateV1``, the projection ops ``append_entry``,
``replace_entry``, ``remove_entry``, ``set_history_entries``; ``set_envelope`` carries no
entry). One folder a session: ``meta.json`` (``session_id``, ``environment.working_directory``,
``title``, ``start_time``), ``CURRENT`` naming the generation whose ``manifest.json`` lists the
content-addressed ``chunks/<sha256>.json`` holding the session's public history entries
(``projection_state.chunks``), and the recovery journal segment written after that snapshot
(``recovery_journal_segment.path``: JSON lines whose ``payload.delta`` ops change the entries;
a new snapshot starts a new segment and deletes the old one). The entries are the history Vibe
itself shows: ``message`` (``role`` ``user``/``assistant``, ``content`` text parts),
``reasoning`` (hidden) and ``effect`` (a tool run: ``detail.toolName``, ``detail.input``,
``state.output``). Times are milliseconds (``createdAt``).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

from engine.external.finding import ms_time
from engine.external.injected import Marker, user_events
from engine.external.lines import digest
from engine.external.skips import Reason, skip
from engine.project.model import ChatEvent, ChatEventType
from engine.project.safe_io import Bounds, JsonRejected, loads_json, read_regular
from engine.project.tally import WarningTally

UNIFIED = "unified"
"""The store's folder under ``logs/session``."""

META_FILE = "meta.json"
CURRENT_FILE = "CURRENT"
JOURNAL = "journal"
DOC_BYTES = 16 * 1024 * 1024
"""Most of one chunk, manifest or journal segment read."""

QUIET = frozenset({"reasoning"})
"""Entries read and never shown: the model's reasoning."""


@dataclass
class Store:
    """One unified session as its files say: its entries in order and its metadata."""

    meta: dict[str, Any] = field(default_factory=dict)
    entries: list[dict[str, Any]] = field(default_factory=list)
    journal: Path | None = None


def is_unified(path: Path | None) -> bool:
    """True for the ``meta.json`` of a unified session folder."""
    return path is not None and path.name == META_FILE and path.parent.parent.name == UNIFIED


def watched_files(folder: Path) -> list[Path]:
    """The files whose change is a change of the session: its metadata, the pointer to its
    newest snapshot and its journal segments."""
    journal = folder / JOURNAL
    try:
        segments = sorted(journal.glob("*.jsonl"))
    except OSError:
        segments = []
    return [folder / META_FILE, folder / CURRENT_FILE, *segments]


def _doc(path: Path, bounds: Bounds | None) -> Any:
    return loads_json(read_regular(path, DOC_BYTES, bounds))


def read_store(folder: Path, bounds: Bounds | None, tally: WarningTally, source: str) -> Store:
    """The session in ``folder``: its snapshot's entries with its journal's ops applied. A
    missing or unreadable part is counted (``unreadable``, ``bad json``) and left out."""
    store = Store()
    try:
        meta = _doc(folder / META_FILE, bounds)
        store.meta = meta if isinstance(meta, dict) else {}
    except (OSError, JsonRejected):
        pass
    try:
        current = _doc(folder / CURRENT_FILE, bounds)
        generation = current.get("generation") if isinstance(current, dict) else None
        if not isinstance(generation, str) or "/" in generation:
            raise JsonRejected("no generation")
        manifest = _doc(folder / "generations" / generation / "manifest.json", bounds)
    except FileNotFoundError:
        return store  # not snapshotted yet: nothing said so far
    except (OSError, JsonRejected):
        skip(tally, source, "unreadable")
        return store
    projection = manifest.get("projection_state") if isinstance(manifest, dict) else None
    chunks = projection.get("chunks") if isinstance(projection, dict) else None
    for name in chunks if isinstance(chunks, list) else []:
        try:
            if not isinstance(name, str) or "/" in name:
                raise JsonRejected("bad chunk name")
            found = _doc(folder / "chunks" / f"{name}.json", bounds)
        except (OSError, JsonRejected):
            skip(tally, source, "unreadable")
            continue
        store.entries += (
            [e for e in found if isinstance(e, dict)] if isinstance(found, list) else []
        )
    segment = manifest.get("recovery_journal_segment")
    rel = segment.get("path") if isinstance(segment, dict) else None
    if isinstance(rel, str) and rel.startswith(f"{JOURNAL}/") and ".." not in rel:
        store.journal = folder / rel
        _replay(store, bounds, tally, source)
    return store


def _replay(store: Store, bounds: Bounds | None, tally: WarningTally, source: str) -> None:
    """The journal's entry ops applied in order; a torn last line (still being written) is
    left for the next read."""
    assert store.journal is not None
    try:
        data = read_regular(store.journal, DOC_BYTES, bounds)
    except OSError:
        return
    for line in data.split(b"\n")[:-1]:
        try:
            record = loads_json(line)
        except JsonRejected:
            skip(tally, source, "bad json")
            continue
        payload = record.get("payload") if isinstance(record, dict) else None
        delta = payload.get("delta") if isinstance(payload, dict) else None
        for op in delta if isinstance(delta, list) else []:
            if isinstance(op, dict):
                _apply(store.entries, op)


def _apply(entries: list[dict[str, Any]], op: dict[str, Any]) -> None:
    kind, entry = op.get("op"), op.get("entry")
    if kind == "append_entry" and isinstance(entry, dict):
        entries.append(entry)
    elif kind == "replace_entry" and isinstance(entry, dict):
        at = next((i for i, e in enumerate(entries) if e.get("id") == op.get("id")), None)
        if at is None:
            entries.append(entry)
        else:
            entries[at] = entry
    elif kind == "remove_entry":
        entries[:] = [e for e in entries if e.get("id") != op.get("id")]
    elif kind == "set_history_entries" and isinstance(op.get("entries"), list):
        entries[:] = [e for e in op["entries"] if isinstance(e, dict)]


def entry_events(
    entries: list[dict[str, Any]], markers: tuple[Marker, ...], tally: WarningTally, source: str
) -> list[ChatEvent]:
    """The visible events of the entries, in order; an entry of no known kind is counted."""
    events: list[ChatEvent] = []
    for seq, entry in enumerate(entries):
        ident = entry.get("id")
        if not isinstance(ident, str) or not ident:
            skip(tally, source, "no id")
            continue
        found = _entry(entry, markers)
        if isinstance(found, str):
            skip(tally, source, found)
            continue
        created = entry.get("createdAt")
        ts = ms_time(created) if isinstance(created, int) else None
        for i, (etype, fields) in enumerate(found):
            fields.setdefault("id", ident if i == 0 else f"{ident}.{i}")
            events.append(ChatEvent(seq, ts, etype, seq, fields))
    return events


def _entry(
    entry: dict[str, Any], markers: tuple[Marker, ...]
) -> list[tuple[ChatEventType, dict[str, Any]]] | Reason:
    kind = entry.get("type")
    if kind in QUIET:
        return []
    if kind == "message":
        text = _texts(entry.get("content"))
        if entry.get("role") == "user":
            return cast(list[tuple[ChatEventType, dict[str, Any]]], user_events(text, markers))
        if entry.get("role") == "assistant":
            return [("assistant_message", {"text": text})] if text.strip() else []
        return "unknown type"
    if kind == "effect":
        detail: dict[str, Any] = _obj(entry.get("detail"))
        name = detail.get("toolName") if isinstance(detail.get("toolName"), str) else "tool"
        found: list[tuple[ChatEventType, dict[str, Any]]] = [
            ("tool_call", {"name": name, "input": digest(detail.get("input"))})
        ]
        state: dict[str, Any] = _obj(entry.get("state"))
        output = _output(state)
        if output is not None:
            found.append(("tool_result", {"output": output}))
        return found
    return "unknown type"


def _obj(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _texts(content: Any) -> str:
    parts = content if isinstance(content, list) else []
    return "\n".join(
        p["text"] for p in parts
        if isinstance(p, dict) and p.get("type") == "text" and isinstance(p.get("text"), str)
    )  # fmt: skip


def _output(state: dict[str, Any]) -> str | None:
    """What a finished tool run returned: its text parts, else its structured result's text
    fields (a shell's ``stdout``/``stderr``, a read file's ``content``), else the result as JSON
    and the run's own text; None while it runs."""
    output = state.get("output")
    if not isinstance(output, dict):
        text = state.get("outputText")
        return text if isinstance(text, str) and text else None
    said = [_texts(output.get("content"))]
    structured = output.get("structured_content")
    if isinstance(structured, dict):
        texts = [structured[k] for k in ("stdout", "stderr", "content", "message", "error")
                 if isinstance(structured.get(k), str) and structured[k]]  # fmt: skip
        said += texts or [json.dumps(structured, ensure_ascii=False)]
    for key in ("message", "error"):
        if isinstance(output.get(key), str):
            said.append(output[key])
    if isinstance(state.get("outputText"), str):
        said.append(state["outputText"])
    return "\n".join(s for s in said if s)
