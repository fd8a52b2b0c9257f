"""GitHub Copilot CLI session state: ``$COPILOT_HOME/session-state/<sessionId>/events.jsonl``.

The CLI is not open source (github/copilot-cli holds only its README and ``changelog.md``). The
location is from that changelog (0.0.342: "New sessions are stored in ~/.copilot/session-state";
later entries: ``COPILOT_HOME`` replaces ``--config-dir``) and from github/copilot-sdk
``docs/setup/multi-tenancy.md`` ("Session state is stored under
``COPILOT_HOME/session-state/{sessionId}``") and ``docs/features/agent-loop.md`` (its
``events.jsonl``). The line format is the SDK's generated event schema, github/copilot-sdk
``nodejs/src/generated/session-events.ts``: one event a line, ``{"type", "id", "timestamp",
"parentId", "data"}``, appended. Indexed: ``user.message`` (``data.content``, what the timeline
shows), ``assistant.message`` (``data.content``), ``tool.execution_start`` (``toolName``,
``arguments``) and ``tool.execution_complete`` (``result.detailedContent`` or ``content``, or the
error message). Left out: ``assistant.reasoning``, ``reasoningText``/``encryptedContent``, hidden
skill injections (``source: skill-*``), session and system events. ``session.start`` gives the
session id and ``context.cwd``. Resume: ``copilot --resume <sessionId>``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

from engine.external.agent_format import AgentFormat, Hint, Parsed
from engine.external.finding import HeadFields, acceptable, read_head, scan_head, session_meta
from engine.external.heads import HeadCache
from engine.external.lines import digest, json_lines
from engine.external.skips import skip_file
from engine.project.fields import parse_aware_time
from engine.project.model import ChatEvent, ChatEventType, Lane, SessionMeta
from engine.project.tally import WarningTally

EVENTS_FILE = "events.jsonl"


@dataclass
class CopilotHead:
    """What ``session.start`` and the first user message say."""

    session_id: str | None = None
    cwd: str | None = None
    first_user: str | None = None
    first_ts: str | None = None


def parse_copilot(
    data: bytes, base: int, source: str, tally: WarningTally, head: CopilotHead | None = None
) -> tuple[list[ChatEvent], int]:
    """Events of the complete lines of ``data`` (from byte ``base``) and the bytes consumed."""
    lines, consumed = json_lines(data, base, source, tally)
    events: list[ChatEvent] = []
    for offset, obj in lines:
        kind, body = obj.get("type"), obj.get("data")
        if not isinstance(body, dict):
            continue
        if head is not None:
            _learn(head, kind, body, obj)
        found = _event(kind, body, obj.get("id"))
        if found is not None:
            etype, fields = found
            events.append(ChatEvent(offset, parse_aware_time(obj.get("timestamp")), etype, offset,
                                    fields))  # fmt: skip
    return events, consumed


def copilot_head(data: bytes) -> CopilotHead:
    """The session id, cwd, title and first time from a file's first bytes."""
    head = CopilotHead()
    parse_copilot(data, 0, "copilot", WarningTally(), head)
    return head


def _event(
    kind: Any, body: dict[str, Any], event_id: Any
) -> tuple[ChatEventType, dict[str, Any]] | None:
    ident = event_id if isinstance(event_id, str) and event_id else None
    if kind == "user.message" and ident and _shown_user(body):
        return "user_message", {"id": ident, "text": body["content"]}
    if kind == "assistant.message" and ident:
        text = body.get("content")
        if isinstance(text, str) and text.strip():
            return "assistant_message", {"id": ident, "text": text}
        return None
    call = body.get("toolCallId")
    if not isinstance(call, str) or not call:
        return None
    if kind == "tool.execution_start":
        name = body.get("toolName") if isinstance(body.get("toolName"), str) else "tool"
        return "tool_call", {"id": call, "name": name, "input": digest(body.get("arguments"))}
    if kind == "tool.execution_complete":
        return "tool_result", {"id": call, "output": _result_text(body)}
    return None


def _shown_user(body: dict[str, Any]) -> bool:
    text, origin = body.get("content"), body.get("source")
    if not isinstance(text, str) or not text.strip():
        return False
    return not (isinstance(origin, str) and origin.startswith("skill-"))  # hidden injection


def _result_text(body: dict[str, Any]) -> str:
    result, error = body.get("result"), body.get("error")
    if isinstance(result, dict):
        for key in ("detailedContent", "content"):
            if isinstance(result.get(key), str) and result[key]:
                return str(result[key])
    if isinstance(error, dict) and isinstance(error.get("message"), str):
        return f"error: {error['message']}"
    return ""


def _learn(head: CopilotHead, kind: Any, body: dict[str, Any], obj: dict[str, Any]) -> None:
    if head.first_ts is None and isinstance(obj.get("timestamp"), str):
        head.first_ts = obj["timestamp"]
    if kind in ("session.start", "session.resume"):
        if head.session_id is None and isinstance(body.get("sessionId"), str):
            head.session_id = body["sessionId"]
        context = body.get("context")
        if head.cwd is None and isinstance(context, dict) and isinstance(context.get("cwd"), str):
            head.cwd = context["cwd"]
    elif head.first_user is None and kind == "user.message" and _shown_user(body):
        head.first_user = " ".join(str(body["content"]).split())[:120]


def _head_fields(data: bytes) -> HeadFields:
    head = copilot_head(data)
    return head.cwd, head.session_id, head.first_user, head.first_ts


class Copilot(AgentFormat):
    """GitHub Copilot CLI: one append-only ``events.jsonl`` a session."""

    name: ClassVar[str] = "copilot"
    folder_label: ClassVar[str] = "the Copilot CLI session-state folder"
    resume: ClassVar[tuple[str, ...] | None] = ("copilot", "--resume")
    hidden: ClassVar[str] = "`assistant.reasoning`, reasoning text, skill injections"

    def sessions(
        self, lanes: list[Lane], tally: WarningTally, environ: Mapping[str, str], heads: HeadCache
    ) -> list[SessionMeta]:
        state = self.session_folders(environ)[0]
        try:
            files = sorted(state.glob(f"*/{EVENTS_FILE}"))
        except OSError:
            return []
        found: list[SessionMeta] = []
        bounds = self.bounds(environ)
        for path in files:
            if not acceptable(path, bounds, self.name, tally, state):
                continue
            scanned = scan_head(path, heads, _head_fields, bounds)
            if scanned is None:
                continue
            head, st = scanned
            sid = f"copilot-{head.ident or path.parent.name}"
            meta = session_meta(sid, self.name, path, head, st, lanes)
            if meta is not None:
                found.append(meta)
            elif head.cwd is None:
                skip_file(tally, self.name, "no cwd", path)
        return found

    def owner_hint(self, path: Path, environ: Mapping[str, str], memo: object) -> Hint | None:
        del memo
        if self.session_folders(environ)[0] not in path.parents:
            return None
        return "if-unseen" if path.name == EVENTS_FILE else "foreign"

    def owns(self, path: Path, environ: Mapping[str, str]) -> bool:
        return path.name == EVENTS_FILE and super().owns(path, environ)

    def parse(
        self, data: bytes, base: int, source: str, tally: WarningTally, state: dict[str, Any],
        seq_base: int = 0,
    ) -> Parsed:  # fmt: skip
        del state, seq_base
        return (*parse_copilot(data, base, source, tally), {})

    def recorded_cwd(self, meta: SessionMeta) -> Path | None:
        if meta.transcript_path is None:
            return None
        cwd = copilot_head(read_head(meta.transcript_path)).cwd
        return Path(cwd) if cwd else None


FORMAT = Copilot()
