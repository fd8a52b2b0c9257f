"""What the agents with one appended JSON-lines transcript per session share (docs/agents.md).

Qwen Code, pi, OpenClaw, Factory Droid, Kiro CLI, Mistral Vibe, Grok Build, Cursor's agent CLI
and iFlow each append one JSON object a line to one file per session. Their modules say only
what differs: where the files lie (``transcripts``), what one record means (``record_events``)
and what the head of a file says (``learn``: working folder, id, title, first time). This base
lists the sessions (heads cached in ``HeadCache`` like Claude's and Codex's, so a warm listing
stats files and reads none) and tails each file: whole lines only, a line that does not decode
counted as ``malformed json line``, a record of a type the agent does not write counted as
``unknown type`` — nothing is dropped silently.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, ClassVar, cast

from engine.external.agent_format import AgentFormat, Hint, Parsed
from engine.external.finding import (
    HeadFields,
    acceptable,
    newest_first,
    read_head,
    scan_head,
    session_meta,
)
from engine.external.heads import Head, HeadCache
from engine.external.injected import Frame, Marker, user_events
from engine.external.lines import digest, json_lines
from engine.external.skips import skip, skip_file
from engine.project.fields import parse_aware_time
from engine.project.model import ChatEvent, ChatEventType, Lane, SessionMeta
from engine.project.safe_io import Bounds
from engine.project.tally import WarningTally

TITLE_CHARS = 120
"""Longest title taken from a first user message (as for Claude Code and Copilot)."""

Found = list[tuple[ChatEventType, dict[str, Any]]]
"""The events of one record, in order, before ids and times are added."""


@dataclass
class HeadNotes:
    """What the first records of a transcript say about its session."""

    cwd: str | None = None
    ident: str | None = None
    title: str | None = None
    first_user: str | None = None
    first_ts: str | None = None

    def saw_user(self, text: str) -> None:
        """Remember ``text`` as the title candidate when no user text came before."""
        if self.first_user is None and text.strip():
            self.first_user = " ".join(text.split())[:TITLE_CHARS]


def time_text(value: Any) -> str | None:
    """A record's time as ISO text: ISO strings as written, epoch seconds or milliseconds
    converted (agents write both)."""
    if isinstance(value, str) and value:
        return value
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    seconds = value / 1000 if value > 1e11 else value
    try:
        return datetime.fromtimestamp(seconds, UTC).isoformat()
    except (OverflowError, OSError, ValueError):
        return None


def text_of(value: Any, key: str = "text") -> str:
    """The text of a string, or of the ``{"type": "text"}`` parts of a list (images dropped)."""
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return "\n".join(
            str(part[key]) for part in value
            if isinstance(part, dict) and part.get("type", "text") == "text"
            and isinstance(part.get(key), str)
        )  # fmt: skip
    return ""


class JsonlAgent(AgentFormat):
    """An agent with one append-only JSON-lines transcript per session."""

    patterns: ClassVar[tuple[str, ...]] = ("*.jsonl",)
    """Globs, under each session folder, of the transcript files."""

    def record_events(
        self, obj: dict[str, Any], tally: WarningTally, source: str, state: dict[str, Any]
    ) -> tuple[str | None, str | None, Found] | None:
        """The record's id, time and events; None when it is no record of this agent (counted
        by the caller as ``unknown type``). A record of a known kind that says nothing visible
        returns an empty list."""
        raise NotImplementedError

    def learn(self, head: HeadNotes, obj: dict[str, Any]) -> None:
        """Take what record ``obj`` says about the session into ``head``."""
        raise NotImplementedError

    def head_notes(self, path: Path, data: bytes, bounds: Bounds | None) -> HeadNotes:
        """What the first ``data`` bytes of transcript ``path`` say (sidecars may add to it)."""
        del bounds
        head = HeadNotes()
        lines, _ = json_lines(data, 0, self.name, WarningTally())
        for _, obj in lines:
            self.learn(head, obj)
        if not head.ident:
            head.ident = path.stem
        return head

    def _learner(self, path: Path, bounds: Bounds) -> Callable[[bytes], HeadFields]:
        def learn(data: bytes) -> HeadFields:
            notes = self.head_notes(path, data, bounds)
            return notes.cwd, notes.ident, notes.title or notes.first_user, notes.first_ts

        return learn

    def owns(self, path: Path, environ: Mapping[str, str]) -> bool:
        return self.owner_hint(path, environ, None) == "if-unseen"

    def recorded_cwd(self, meta: SessionMeta) -> Path | None:
        path = meta.transcript_path
        if path is None:
            return None
        cwd = self.head_notes(path, read_head(path), None).cwd
        return Path(cwd) if cwd else None

    def named_folders(self, environ: Mapping[str, str], limit: int) -> list[str]:
        newest = newest_first((p for _, p in self.transcripts(environ)), limit)
        found = (self.head_notes(path, read_head(path), None).cwd for path in newest)
        return [cwd for cwd in found if cwd]

    def session_id(self, path: Path, head: Head) -> str:
        """The ade id of the session in ``path`` (the agent's own id, prefixed)."""
        return f"{self.name}-{head.ident or path.stem}"

    def count_sessions(self, environ: Mapping[str, str], lanes: Sequence[Lane]) -> int:
        del lanes
        return len(self.transcripts(environ))

    def transcripts(self, environ: Mapping[str, str]) -> list[tuple[Path, Path]]:
        """``(session folder, transcript)`` for every transcript file in ``environ``."""
        found: list[tuple[Path, Path]] = []
        for folder in self.session_folders(environ):
            for pattern in self.patterns:
                try:
                    found += [(folder, path) for path in sorted(folder.glob(pattern))]
                except OSError:
                    continue
        return found

    def sessions(
        self, lanes: list[Lane], tally: WarningTally, environ: Mapping[str, str], heads: HeadCache
    ) -> list[SessionMeta]:
        found: list[SessionMeta] = []
        bounds = self.bounds(environ, lanes)
        for folder, path in self.transcripts(environ):
            if not acceptable(path, bounds, self.name, tally, folder):
                continue
            scanned = scan_head(path, heads, self._learner(path, bounds), bounds)
            if scanned is None:
                continue
            head, st = scanned
            meta = session_meta(self.session_id(path, head), self.name, path, head, st, lanes)
            if meta is not None:
                found.append(meta)
            elif head.cwd is None:
                skip_file(tally, self.name, "no cwd", path)
        return found

    def owner_hint(self, path: Path, environ: Mapping[str, str], memo: object) -> Hint | None:
        del memo
        for folder in self.watch_roots(environ):
            if folder in path.parents:
                rel = path.relative_to(folder)
                ours = any(rel.match(pattern) for pattern in self.patterns)
                return "if-unseen" if ours else "foreign"
        return None

    def parse(
        self, data: bytes, base: int, source: str, tally: WarningTally, state: dict[str, Any],
        seq_base: int = 0,
    ) -> Parsed:  # fmt: skip
        lines, consumed = json_lines(data, base, source, tally)
        carried = dict(state)
        events: list[ChatEvent] = []
        for offset, obj in lines:
            found = self.record_events(obj, tally, source, carried)
            if found is None:
                skip(tally, source, "unknown type")
                continue
            ident, when, items = found
            ts = parse_aware_time(when)
            record_id = ident or f"{self.name}@{offset}"
            for i, (etype, fields) in enumerate(items):
                if "id" not in fields:
                    fields["id"] = record_id if i == 0 else f"{record_id}.{i}"
                events.append(ChatEvent(seq_base + offset, ts, etype, offset, fields))
        return events, consumed, carried


def message_blocks(
    role: str, content: Any, markers: Sequence[Marker] = (), frame: Frame | None = None
) -> Found:
    """The events of an Anthropic-style ``content`` (a string or ``text``, ``tool_use``,
    ``tool_result``, ``thinking`` and ``image`` blocks) said by ``role``; a user's text block is
    read against the agent's ``markers`` (and ``frame``) one block at a time
    (``engine.external.injected``): injected runs hidden or kept as ``system_message``; thinking
    and images are left out."""
    if isinstance(content, str):
        content = [{"type": "text", "text": content}]
    out: Found = []
    for block in content if isinstance(content, list) else []:
        if not isinstance(block, dict):
            continue
        kind, text = block.get("type"), block.get("text")
        if kind == "text" and isinstance(text, str) and text.strip():
            out += said_events(role, text, markers, frame)
        elif kind == "tool_use":
            name = block.get("name") if isinstance(block.get("name"), str) else "tool"
            fields: dict[str, Any] = {"name": name, "input": digest(block.get("input") or {})}
            if isinstance(block.get("id"), str) and block["id"]:
                fields["id"] = block["id"]
            out.append(("tool_call", fields))
        elif kind == "tool_result":
            fields = {"output": result_text(block.get("content"))}
            if block.get("is_error") is True:
                fields["output"] = f"error: {fields['output']}"
            if isinstance(block.get("tool_use_id"), str) and block["tool_use_id"]:
                fields["id"] = block["tool_use_id"]
            out.append(("tool_result", fields))
    return out


def said_events(
    role: str, text: str, markers: Sequence[Marker] = (), frame: Frame | None = None
) -> Found:
    """The events of one text part said by ``role``: an assistant's as it is, a user's split
    into the user's words and what the agent injected."""
    if role != "user":
        return [("assistant_message", {"text": text})] if text.strip() else []
    return cast(Found, user_events(text, markers, frame=frame))


def result_text(content: Any) -> str:
    """A tool result's text: a string, the text parts of a list, else a digest of it."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return text_of(content)
    if isinstance(content, dict):  # a Gemini-lineage result: {callId, responseParts, resultDisplay}
        parts = content.get("responseParts", content)
        for part in parts if isinstance(parts, list) else [parts]:
            response = part.get("functionResponse") if isinstance(part, dict) else None
            output = response.get("response") if isinstance(response, dict) else None
            if isinstance(output, dict) and isinstance(output.get("output"), str):
                return str(output["output"])
        if isinstance(content.get("resultDisplay"), str):
            return str(content["resultDisplay"])
    return digest(content) if content else ""
