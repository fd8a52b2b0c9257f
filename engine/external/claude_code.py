"""Claude Code transcripts: ``~/.claude/projects/<cwd-slug>/<session>.jsonl``.

One JSON object a line, threaded by ``uuid``/``parentUuid`` (not time-ordered). ``type`` is
``user`` or ``assistant`` for messages, whose ``message.content`` is a string or a list of
``text``, ``thinking``, ``tool_use``, ``tool_result`` and ``image`` blocks; ``summary`` lines
title the session; anything else (``system``, ``file-history-snapshot``…) is skipped. Events come
out in the shape the chat ingester indexes (``ChatEvent`` with ``id``/``text``/``name``/
``input``/``output``); the message id is the line's ``uuid``, the seq is the line's byte offset
(plus a per-file base for subagent files), so a deep link lands on the exact line.

Where (no source to cite: Claude Code is not open source, anthropics/claude-code holds its docs
and plugins; the shapes are from sessions it wrote): ``$CLAUDE_CONFIG_DIR/projects`` (default
``~/.claude/projects``) holds one folder per working directory, named by the absolute path with
every non-alphanumeric character replaced by ``-``. That is lossy (``a-b`` and ``a/b`` collide),
so each file is confirmed by the ``cwd`` its lines carry, and its lane is the worktree holding
that ``cwd``. Subagent transcripts (``<session>/subagents/agent-*.jsonl``) belong to their parent
session. Resume: ``claude --resume <session id>`` in the folder it was started in.
"""

from __future__ import annotations

import os
import zlib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

from engine.external.agent_format import AgentFormat, Hint, Parsed, Source
from engine.external.finding import (
    HeadFields,
    acceptable,
    read_head,
    scan_head,
    session_meta,
)
from engine.external.heads import HeadCache
from engine.external.lines import digest, json_lines
from engine.external.roots import claude_folder_matches, claude_lane_slugs
from engine.external.skips import skip, skip_file
from engine.project.fields import parse_aware_time
from engine.project.model import ChatEvent, ChatEventType, Lane, SessionMeta
from engine.project.safe_io import Bounds, is_regular_file
from engine.project.tally import WarningTally

NOT_A_TITLE = ("<command-", "<local-command", "Caveat:", "[Request interrupted")
"""User lines Claude Code writes itself (slash commands, their output, notices): not a title."""


@dataclass
class ClaudeHead:
    """What a scan learned about the session: working folder, title, first time."""

    cwd: str | None = None
    summary: str | None = None
    first_user: str | None = None
    first_ts: str | None = None

    @property
    def title(self) -> str | None:
        return self.summary or self.first_user


def parse_claude(
    data: bytes, base: int, source: str, tally: WarningTally, *, seq_base: int = 0,
    head: ClaudeHead | None = None,
) -> tuple[list[ChatEvent], int]:  # fmt: skip
    """Events of the complete lines of ``data`` (starting at byte ``base``) and bytes consumed."""
    lines, consumed = json_lines(data, base, source, tally)
    events: list[ChatEvent] = []
    for offset, obj in lines:
        kind = obj.get("type")
        if head is not None:
            _learn(head, obj)
        if kind not in ("user", "assistant") or obj.get("isMeta") is True:
            continue
        uuid = obj.get("uuid")
        message = obj.get("message")
        if not isinstance(uuid, str) or not uuid or not isinstance(message, dict):
            skip(tally, source, "no id" if isinstance(message, dict) else "no message")
            continue
        ts = parse_aware_time(obj.get("timestamp"))
        for i, (etype, data_) in enumerate(_blocks(kind, message.get("content"))):
            data_["id"] = uuid if i == 0 else f"{uuid}.{i}"
            events.append(ChatEvent(seq_base + offset, ts, etype, offset, data_))
    return events, consumed


def _blocks(kind: str, content: Any) -> list[tuple[ChatEventType, dict[str, Any]]]:
    said: ChatEventType = "user_message" if kind == "user" else "assistant_message"
    if isinstance(content, str):
        return [(said, {"text": content})] if content.strip() else []
    out: list[tuple[ChatEventType, dict[str, Any]]] = []
    for block in content if isinstance(content, list) else []:
        if not isinstance(block, dict):
            continue
        btype = block.get("type")
        if btype == "text" and isinstance(block.get("text"), str) and block["text"].strip():
            out.append((said, {"text": block["text"]}))
        elif btype == "tool_use":
            name = block.get("name") if isinstance(block.get("name"), str) else "tool"
            out.append(("tool_call", {"name": name, "input": digest(block.get("input"))}))
        elif btype == "tool_result":
            out.append(("tool_result", {"output": result_text(block.get("content"))}))
        # thinking, redacted_thinking and image blocks are left out on purpose.
    return out


def result_text(content: Any) -> str:
    """A tool result's text: a string, or the ``text`` blocks of a list (images dropped)."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(
            b["text"] for b in content if isinstance(b, dict) and isinstance(b.get("text"), str)
        )
    return ""


def _learn(head: ClaudeHead, obj: dict[str, Any]) -> None:
    if head.cwd is None and isinstance(obj.get("cwd"), str):
        head.cwd = obj["cwd"]
    if head.first_ts is None and isinstance(obj.get("timestamp"), str):
        head.first_ts = obj["timestamp"]
    if obj.get("type") == "summary" and isinstance(obj.get("summary"), str):
        head.summary = obj["summary"].strip() or head.summary
    if head.first_user is None and obj.get("type") == "user" and obj.get("isMeta") is not True:
        message = obj.get("message")
        content = message.get("content") if isinstance(message, dict) else None
        if isinstance(content, list):
            content = next(
                (b.get("text") for b in content if isinstance(b, dict) and b.get("type") == "text"),
                None,
            )
        if isinstance(content, str) and content.strip() and not content.startswith(NOT_A_TITLE):
            head.first_user = " ".join(content.split())[:120]


SUBAGENT_SEQ_STRIDE = 10**12
"""Offsets stay below 1 TB, so ``file number * 10**12 + offset`` reads back as both."""

_TYPES = frozenset({"summary", "user", "assistant", "system", "file-history-snapshot"})


def subagent_sources(transcript: Path) -> list[tuple[Path, int]]:
    """``(file, seq base)`` of each subagent file of a Claude session: the base is a stable file
    number times ``SUBAGENT_SEQ_STRIDE``, so anchors never collide with the main file's."""
    return [
        (path, (zlib.crc32(path.stem.encode()) % 4096 + 1) * SUBAGENT_SEQ_STRIDE)
        for path in claude_subagent_files(transcript)
    ]


def claude_subagent_files(transcript: Path) -> list[Path]:
    """``<folder>/<session>/subagents/agent-*.jsonl`` of a Claude session, sorted: regular files
    whose real location stays in the session's folder (no symlink out, no FIFO)."""
    folder = transcript.with_suffix("") / "subagents"
    try:
        found = sorted(folder.glob("agent-*.jsonl"))
    except OSError:
        return []
    bounds = Bounds([transcript.parent])
    return [path for path in found if is_regular_file(path, bounds)]


def claude_folders(lanes: list[Lane], environ: Mapping[str, str]) -> set[Path]:
    """The Claude Code project folders that may hold sessions of ``lanes``: each lane's own and
    those of its subfolders (a session started in ``lane/src`` has the folder ``<slug>-src``;
    the slug is lossy, so the cwd in each file decides, as for the lane's own folder)."""
    base = FORMAT.session_folders(environ)[0]
    slugs = claude_lane_slugs(lanes)
    found = {base / slug for slug in slugs}
    try:
        names = [entry.name for entry in os.scandir(base) if entry.is_dir()]
    except OSError:
        return found
    return found | {base / name for name in names if claude_folder_matches(name, slugs)}


def claude_head(data: bytes) -> HeadFields:
    """``(cwd, id, title, first time)`` from a transcript's first bytes."""
    head = ClaudeHead()
    parse_claude(data, 0, "claude", WarningTally(), head=head)
    return head.cwd, None, head.title, head.first_ts


class ClaudeCode(AgentFormat):
    """Claude Code: one append-only transcript a session, subagents beside it."""

    name: ClassVar[str] = "claude"
    remembered: ClassVar[bool] = True
    folder_label: ClassVar[str] = "the Claude Code projects folder"
    resume: ClassVar[tuple[str, ...] | None] = ("claude", "--resume")
    hidden: ClassVar[str] = "thinking blocks, `isMeta` lines, `system` and snapshot lines"

    def sessions(
        self, lanes: list[Lane], tally: WarningTally, environ: Mapping[str, str], heads: HeadCache
    ) -> list[SessionMeta]:
        found: list[SessionMeta] = []
        bounds = self.bounds(environ)
        base = self.session_folders(environ)[0]  # a project folder linked out is caught below
        for folder in sorted(claude_folders(lanes, environ)):
            try:
                files = sorted(folder.glob("*.jsonl"))
            except OSError:
                continue
            for path in files:
                if not acceptable(path, bounds, self.name, tally, base):
                    continue
                scanned = scan_head(path, heads, claude_head)
                if scanned is None:
                    continue
                head, st = scanned
                meta = session_meta(f"claude-{path.stem}", self.name, path, head, st, lanes,
                                    last_message=True)  # fmt: skip
                if meta is not None:
                    found.append(meta)
                elif head.cwd is None:
                    skip_file(tally, self.name, "no cwd", path)
        return found

    def lane_memo(self, lanes: list[Lane], environ: Mapping[str, str], heads: HeadCache) -> object:
        del heads
        return claude_folders(lanes, environ), claude_lane_slugs(lanes)

    def owner_hint(self, path: Path, environ: Mapping[str, str], memo: object) -> Hint | None:
        base = self.session_folders(environ)[0]
        if base not in path.parents:
            return None
        if path.suffix != ".jsonl" or not isinstance(memo, tuple):
            return "foreign"
        folders, slugs = memo
        name = path.relative_to(base).parts[0]
        ours = base / name in folders or claude_folder_matches(name, slugs)
        return "if-unseen" if ours else "foreign"

    def sniff(self, first: dict[str, Any]) -> bool:
        if isinstance(first.get("payload"), dict):
            return False  # a Codex line
        return "sessionId" in first or "uuid" in first or first.get("type") in _TYPES

    def sources(self, meta: SessionMeta) -> list[Source]:
        if meta.transcript_path is None:
            return []
        subs = subagent_sources(meta.transcript_path)
        return [(f"chat:{meta.id}", meta.transcript_path, 0),
                *((f"chat:{meta.id}/{path.stem}", path, base) for path, base in subs)]  # fmt: skip

    def view_files(self, path: Path) -> list[tuple[Path, int]]:
        return [(path, 0), *subagent_sources(path)]

    def parse(
        self, data: bytes, base: int, source: str, tally: WarningTally, state: dict[str, Any],
        seq_base: int = 0,
    ) -> Parsed:  # fmt: skip
        del state
        events, consumed = parse_claude(data, base, source, tally, seq_base=seq_base)
        return events, consumed, {}

    def native_id(self, meta: SessionMeta) -> str:
        path = meta.transcript_path
        return path.stem if path is not None else super().native_id(meta)

    def recorded_cwd(self, meta: SessionMeta) -> Path | None:
        if meta.transcript_path is None:
            return None
        cwd = claude_head(read_head(meta.transcript_path))[0]
        return Path(cwd) if cwd else None


FORMAT = ClaudeCode()
