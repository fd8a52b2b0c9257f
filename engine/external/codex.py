"""Codex CLI rollouts: ``$CODEX_HOME/sessions/YYYY/MM/DD/rollout-*.jsonl``.

Each line is ``{"timestamp", "type", "payload"}``: ``session_meta`` (id, cwd…), ``response_item``
(``message``, ``function_call``, ``function_call_output``, ``custom_tool_call[_output]``,
``local_shell_call``, ``reasoning``), ``event_msg`` (``user_message``, ``agent_message``,
``agent_reasoning``, ``token_count``…) and ``turn_context``. Older rollouts put the item itself on
the line without the wrapper. A message is written twice — as a ``response_item`` and as an
``event_msg`` — so its id is ``<role>-<hash of text>-<n>`` where ``n`` counts that text within
its own stream: the n-th copy in each stream gets the same id and is indexed once. Reasoning is
left out; a function call's output, JSON inside a string, is decoded to its ``output`` text.

Discovery: every ``$CODEX_HOME/sessions/YYYY/MM/DD/rollout-*.jsonl`` (default ``~/.codex``) whose
``session_meta`` cwd lies in the project or one of its lanes. Resume: ``codex resume <id>``.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

from engine.external.agent_format import AgentFormat, Hint, Parsed
from engine.external.finding import HeadFields, acceptable, read_head, scan_head, session_meta
from engine.external.heads import HeadCache
from engine.external.lines import digest, json_lines
from engine.project.fields import parse_aware_time
from engine.project.model import ChatEvent, ChatEventType, Lane, SessionMeta
from engine.project.safe_io import JsonRejected, loads_json
from engine.project.tally import WarningTally

INJECTED_PREFIXES = ("<environment_context>", "<user_instructions>", "# AGENTS.md instructions")
"""User-role messages Codex writes itself (context, AGENTS.md): not something the user said."""

MAX_COUNTERS = 20000
"""Distinct message texts remembered for pairing copies; a session past this is pathological."""


@dataclass
class CodexHead:
    """What a scan learned: session id, working folder, title, first time."""

    session_id: str | None = None
    cwd: str | None = None
    first_user: str | None = None
    first_ts: str | None = None


def parse_codex(
    data: bytes, base: int, source: str, tally: WarningTally, counters: dict[str, int],
    head: CodexHead | None = None,
) -> tuple[list[ChatEvent], int]:  # fmt: skip
    """Events of the complete lines of ``data`` and bytes consumed; ``counters`` carries the
    per-stream occurrence counts across passes (the caller persists it)."""
    lines, consumed = json_lines(data, base, source, tally)
    events: list[ChatEvent] = []
    for offset, obj in lines:
        kind, payload = obj.get("type"), obj.get("payload")
        if not isinstance(payload, dict):  # older rollouts: the item is the line
            kind, payload = "response_item", obj
        if head is not None:
            _learn(head, kind, payload, obj)
        found = _item(kind, payload, counters)
        if found is not None:
            etype, fields = found
            ts = parse_aware_time(obj.get("timestamp"))
            events.append(ChatEvent(offset, ts, etype, offset, fields))
    return events, consumed


def codex_head(data: bytes) -> CodexHead:
    """What the complete lines of ``data`` (a rollout's first bytes) say about the session,
    reading only until the id, cwd and first user message are known (discovery needs no more)."""
    head = CodexHead()
    lines, _ = json_lines(data, 0, "codex", WarningTally())
    for _offset, obj in lines:
        kind, payload = obj.get("type"), obj.get("payload")
        if not isinstance(payload, dict):
            kind, payload = "response_item", obj
        _learn(head, kind, payload, obj)
        if head.cwd is not None and head.session_id is not None and head.first_user is not None:
            break
    return head


def _item(
    kind: Any, payload: dict[str, Any], counters: dict[str, int]
) -> tuple[ChatEventType, dict[str, Any]] | None:
    ptype = payload.get("type")
    if kind == "response_item" and ptype == "message":
        role = payload.get("role")
        return _message(role, _content_text(payload.get("content")), "r", counters)
    if kind == "event_msg" and ptype in ("user_message", "agent_message"):
        role = "user" if ptype == "user_message" else "assistant"
        message = payload.get("message")
        return _message(role, message if isinstance(message, str) else "", "e", counters)
    if kind != "response_item":
        return None
    call_id = payload.get("call_id") if isinstance(payload.get("call_id"), str) else None
    if ptype in ("function_call", "custom_tool_call", "local_shell_call") and call_id:
        name = payload.get("name") if isinstance(payload.get("name"), str) else "shell"
        raw = payload.get("arguments", payload.get("input", payload.get("action")))
        return "tool_call", {"id": call_id, "name": name, "input": digest(_decoded(raw))}
    if ptype in ("function_call_output", "custom_tool_call_output") and call_id:
        return "tool_result", {"id": call_id, "output": output_text(payload.get("output"))}
    return None  # reasoning, web search and unknown items


def _message(
    role: Any, text: str, stream: str, counters: dict[str, int]
) -> tuple[ChatEventType, dict[str, Any]] | None:
    text = text.strip()
    if role not in ("user", "assistant") or not text:
        return None
    if role == "user" and text.startswith(INJECTED_PREFIXES):
        return None
    key = f"{role[0]}{hashlib.sha1(text.encode(), usedforsecurity=False).hexdigest()[:12]}"
    counted = f"{stream}:{key}"
    if counted in counters or len(counters) < MAX_COUNTERS:
        counters[counted] = counters.get(counted, 0) + 1
    etype: ChatEventType = "user_message" if role == "user" else "assistant_message"
    return etype, {"id": f"{key}-{counters.get(counted, 0)}", "text": text}


def _content_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return ""
    return "\n".join(
        b["text"] for b in content if isinstance(b, dict) and isinstance(b.get("text"), str)
    )


def _decoded(raw: Any) -> Any:
    if isinstance(raw, str):
        try:
            return loads_json(raw)
        except JsonRejected:
            return raw
    return raw


def output_text(raw: Any) -> str:
    """A function call's output: ``{"output": "...", "metadata": {...}}`` inside a string is
    decoded to its ``output`` (plus the exit code when there is one); anything else as is."""
    value = _decoded(raw)
    if isinstance(value, dict) and isinstance(value.get("output"), str):
        meta = value.get("metadata")
        code = meta.get("exit_code") if isinstance(meta, dict) else None
        return str(value["output"]) + (f"\n[exit code {code}]" if isinstance(code, int) else "")
    return raw if isinstance(raw, str) else digest(value)


def _learn(head: CodexHead, kind: Any, payload: dict[str, Any], obj: dict[str, Any]) -> None:
    if head.first_ts is None and isinstance(obj.get("timestamp"), str):
        head.first_ts = obj["timestamp"]
    if kind == "session_meta":
        if isinstance(payload.get("id"), str):
            head.session_id = head.session_id or payload["id"]
        if isinstance(payload.get("cwd"), str):
            head.cwd = head.cwd or payload["cwd"]
        if head.first_ts is None and isinstance(payload.get("timestamp"), str):
            head.first_ts = payload["timestamp"]
    elif kind == "turn_context" and head.cwd is None and isinstance(payload.get("cwd"), str):
        head.cwd = payload["cwd"]
    elif head.first_user is None and kind == "event_msg" and payload.get("type") == "user_message":
        message = payload.get("message")
        if isinstance(message, str) and message.strip():
            head.first_user = " ".join(message.split())[:120]


_TYPES = frozenset({"session_meta", "response_item", "event_msg", "turn_context"})


def _head_fields(data: bytes) -> HeadFields:
    head = codex_head(data)
    return head.cwd, head.session_id, head.first_user, head.first_ts


class Codex(AgentFormat):
    """Codex CLI: one append-only rollout a session, in day folders."""

    name: ClassVar[str] = "codex"
    remembered: ClassVar[bool] = True
    folder_label: ClassVar[str] = "the Codex sessions folder"
    resume: ClassVar[tuple[str, ...] | None] = ("codex", "resume")
    hidden: ClassVar[str] = "reasoning items, `<environment_context>` and AGENTS.md instructions"

    def sessions(
        self, lanes: list[Lane], tally: WarningTally, environ: Mapping[str, str], heads: HeadCache
    ) -> list[SessionMeta]:
        root = self.session_folders(environ)[0]
        try:
            files = sorted(root.glob("*/*/*/rollout-*.jsonl"))
        except OSError:
            return []
        found: list[SessionMeta] = []
        bounds = self.bounds(environ)
        for path in files:
            if not acceptable(path, bounds, self.name, tally, root):
                continue
            scanned = scan_head(path, heads, _head_fields)
            if scanned is None:
                continue
            head, st = scanned
            ident = head.ident or path.stem.removeprefix("rollout-")
            meta = session_meta(f"codex-{ident}", self.name, path, head, st, lanes,
                                last_message=True)  # fmt: skip
            if meta is not None:
                found.append(meta)
            elif head.cwd is None:
                tally.add(self.name, f"{path.name}: no session_meta cwd")
        return found

    def owner_hint(self, path: Path, environ: Mapping[str, str], memo: object) -> Hint | None:
        del memo
        if self.session_folders(environ)[0] not in path.parents:
            return None
        return "if-unseen" if path.suffix == ".jsonl" else "foreign"

    def sniff(self, first: dict[str, Any]) -> bool:
        return isinstance(first.get("payload"), dict) or first.get("type") in _TYPES

    def parse(
        self, data: bytes, base: int, source: str, tally: WarningTally, state: dict[str, Any],
        seq_base: int = 0,
    ) -> Parsed:  # fmt: skip
        del seq_base
        raw = state.get("counters")
        counters = dict(raw) if isinstance(raw, dict) else {}
        events, consumed = parse_codex(data, base, source, tally, counters)
        return events, consumed, {"counters": counters}

    def recorded_cwd(self, meta: SessionMeta) -> Path | None:
        if meta.transcript_path is None:
            return None
        cwd = codex_head(read_head(meta.transcript_path)).cwd
        return Path(cwd) if cwd else None


FORMAT = Codex()
