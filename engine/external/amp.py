"""Amp threads: ``$XDG_DATA_HOME/amp/threads/T-<uuid>.json`` (default ``~/.local/share``).

Amp is closed source (npm bundles only): the format is taken from threads it wrote, as quoted in
public session readers' tests (builds up to 2026-03; later builds keep threads on Amp's server
only, and nothing is read for them). One JSON document per thread, rewritten as the thread grows:
``{"v", "id", "created" (ms), "title", "messages": [{"role", "messageId", "content": [text,
tool_use {id, name, input}, tool_result {toolUseID, run: {status, result}}, thinking],
"meta": {"sentAt"}}], "env": {"initial": {"trees": [{"displayName", "uri": "file:///…"}]}},
"mainThreadID"?}``. The first tree's folder is the thread's working folder; a thread with a
``mainThreadID`` is a subagent's and is left out. Re-derived whole when the file changes.
Indexed: user and assistant text, tool uses and results. Hidden: thinking. No text of Amp's
own is known in a user message's text blocks (the threads quoted hold the typed words; file
mentions and thinking are blocks of their own), so no markers. Resume:
``amp threads continue <threadId>``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any, ClassVar
from urllib.parse import unquote, urlparse

from engine.external.agent_format import AgentFormat, Hint
from engine.external.finding import acceptable, session_meta
from engine.external.heads import Head, HeadCache
from engine.external.jsonl_agent import message_blocks, result_text, time_text
from engine.external.session_file import read_session_file
from engine.external.skips import skip, skip_file
from engine.project.fields import parse_aware_time
from engine.project.model import ChatEvent, Lane, SessionMeta
from engine.project.safe_io import Bounds, JsonRejected, loads_json
from engine.project.tally import WarningTally

_THREAD = re.compile(r"^T-[0-9A-Za-z-]+\.json$")


class AmpFormat(AgentFormat):
    """Amp's local thread documents."""

    name: ClassVar[str] = "amp"
    derived: ClassVar[bool] = True
    resume: ClassVar[tuple[str, ...] | None] = ("amp", "threads", "continue")
    hidden: ClassVar[str] = "thinking, subagent threads"
    session_globs: ClassVar[tuple[str, ...]] = ("T-*.json",)

    def sessions(
        self, lanes: list[Lane], tally: WarningTally, environ: Mapping[str, str], heads: HeadCache
    ) -> list[SessionMeta]:
        folder = self.session_folders(environ)[0]
        bounds = self.bounds(environ, lanes)
        try:
            files = sorted(p for p in folder.iterdir() if _THREAD.match(p.name))
        except OSError:
            return []
        found: list[SessionMeta] = []
        for path in files:
            if not acceptable(path, bounds, self.name, tally, folder):
                continue
            try:
                st = path.stat()
            except OSError:
                continue
            head = heads.get(path, st)
            if head is None:
                doc = _document(path, bounds)
                if doc is None:
                    skip_file(tally, self.name, "not a session", path)
                    continue
                head = Head(st.st_ino, st.st_size, False, _cwd(doc), _ident(doc, path),
                            _title(doc), time_text(doc.get("created")))  # fmt: skip
                heads.put(path, head)
            if head.ident is None:
                continue  # a subagent's thread
            meta = session_meta(f"amp-{head.ident}", self.name, path, head, st, lanes)
            if meta is not None:
                found.append(meta)
        return found

    def owner_hint(self, path: Path, environ: Mapping[str, str], memo: object) -> Hint | None:
        del memo
        if self.session_folders(environ)[0] not in path.parents:
            return None
        return "relist" if _THREAD.match(path.name) else "foreign"

    def owns(self, path: Path, environ: Mapping[str, str]) -> bool:
        return bool(_THREAD.match(path.name)) and super().owns(path, environ)

    def derived_events(
        self, path: Path, tally: WarningTally, source: str
    ) -> tuple[list[ChatEvent] | None, int]:
        doc = _document(path, None)
        if doc is None:
            return None, 0
        events: list[ChatEvent] = []
        for n, message in enumerate(doc.get("messages") or []):
            if not isinstance(message, dict) or message.get("role") not in ("user", "assistant"):
                skip(tally, source, "unknown type")
                continue
            meta = message.get("meta")
            sent = meta.get("sentAt") if isinstance(meta, dict) else None
            ts = parse_aware_time(time_text(sent))
            ident = str(message.get("messageId", n))
            for i, (etype, fields) in enumerate(_blocks(str(message["role"]), message)):
                fields.setdefault("id", ident if i == 0 else f"{ident}.{i}")
                events.append(ChatEvent(n, ts, etype, n, fields))
        return events, 0

    def recorded_cwd(self, meta: SessionMeta) -> Path | None:
        doc = None if meta.transcript_path is None else _document(meta.transcript_path, None)
        cwd = None if doc is None else _cwd(doc)
        return Path(cwd) if cwd else None


def _blocks(role: str, message: dict[str, Any]) -> list[tuple[Any, dict[str, Any]]]:
    content = message.get("content")
    found = message_blocks(role, content)
    for block in content if isinstance(content, list) else []:
        if isinstance(block, dict) and block.get("type") == "tool_result":
            run: dict[str, Any] = block["run"] if isinstance(block.get("run"), dict) else {}
            result = run.get("result")
            output = result.get("output") if isinstance(result, dict) else result
            fields: dict[str, Any] = {"output": result_text(output)}
            if run.get("status") == "error":
                fields["output"] = f"error: {fields['output'] or run.get('error', '')}"
            if isinstance(block.get("toolUseID"), str) and block["toolUseID"]:
                fields["id"] = block["toolUseID"]
            found = [f for f in found if f[0] != "tool_result" or "id" in f[1]]
            found.append(("tool_result", fields))
    return found


def _document(path: Path, bounds: Bounds | None) -> dict[str, Any] | None:
    try:
        doc = loads_json(read_session_file(path, document=True, bounds=bounds).data)
    except (OSError, JsonRejected):
        return None
    return doc if isinstance(doc, dict) and isinstance(doc.get("messages"), list) else None


def _ident(doc: dict[str, Any], path: Path) -> str | None:
    if doc.get("mainThreadID"):
        return None
    return str(doc["id"]) if isinstance(doc.get("id"), str) else path.stem


def _cwd(doc: dict[str, Any]) -> str | None:
    env = doc.get("env")
    initial = env.get("initial") if isinstance(env, dict) else None
    trees = initial.get("trees") if isinstance(initial, dict) else None
    first = trees[0] if isinstance(trees, list) and trees else None
    uri = first.get("uri") if isinstance(first, dict) else None
    if not isinstance(uri, str) or not uri.startswith("file://"):
        return None
    return unquote(urlparse(uri).path) or None


def _title(doc: dict[str, Any]) -> str | None:
    title = doc.get("title")
    if isinstance(title, str) and title.strip():
        return title.strip()
    for message in doc.get("messages") or []:
        if isinstance(message, dict) and message.get("role") == "user":
            for etype, fields in message_blocks("user", message.get("content")):
                if etype == "user_message":
                    return " ".join(str(fields["text"]).split())[:120]
    return None


FORMAT = AmpFormat()
