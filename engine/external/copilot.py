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
error message; a result written as a plain string is that string). A tool known only from an
``assistant.message``'s ``toolRequests[]`` (``toolCallId``, ``name``, ``arguments``) is a tool
call too, indexed when its result comes without a ``tool.execution_start``. Left out:
``assistant.reasoning``, ``reasoningText``/``encryptedContent``, hidden skill injections
(``source: skill-*``), session and system events. A message event without ``id`` is counted
(``no id``), one without ``data`` too (``no message``), never dropped silently. ``session.start`` gives the session id and
``context.cwd``; a session whose events name no folder is tied by the ``cwd`` of the
``workspace.yaml`` beside its ``events.jsonl`` (``id``, ``cwd``, ``git_root``, ``summary``,
``created_at``: as quoted from real sessions at github.com/github/copilot-cli/issues/2446
and github.com/github/copilot-sdk/issues/1027).
Resume: ``copilot --resume <sessionId>``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar, cast

from engine.external.agent_format import AgentFormat, Hint, Parsed
from engine.external.finding import HeadFields, acceptable, read_head, scan_head, session_meta
from engine.external.heads import HeadCache
from engine.external.injected import Marker, tag, user_events, users_words
from engine.external.lines import digest, json_lines
from engine.external.skips import skip, skip_file
from engine.project.fields import parse_aware_time
from engine.project.model import ChatEvent, ChatEventType, Lane, SessionMeta
from engine.project.safe_io import Bounds, JsonRejected, loads_json, read_regular
from engine.project.tally import WarningTally

EVENTS_FILE = "events.jsonl"
WORKSPACE_FILE = "workspace.yaml"
WORKSPACE_BYTES = 64 * 1024
"""Most of a ``workspace.yaml`` read: a handful of ``key: value`` lines."""


@dataclass
class CopilotHead:
    """What ``session.start`` and the first user message say."""

    session_id: str | None = None
    cwd: str | None = None
    first_user: str | None = None
    first_ts: str | None = None


def parse_copilot(
    data: bytes, base: int, source: str, tally: WarningTally, head: CopilotHead | None = None,
    requested: dict[str, dict[str, Any]] | None = None,
) -> tuple[list[ChatEvent], int]:  # fmt: skip
    """Events of the complete lines of ``data`` (from byte ``base``) and the bytes consumed.

    ``requested``: the tool calls of ``toolRequests[]`` not started yet, carried across passes
    (the caller persists it); one whose result comes without a ``tool.execution_start`` is a
    call from its request, just before its result."""
    lines, consumed = json_lines(data, base, source, tally)
    pending = {} if requested is None else requested
    events: list[ChatEvent] = []
    for offset, obj in lines:
        kind, body = obj.get("type"), obj.get("data")
        if not isinstance(body, dict):
            skip(tally, source, "no message")
            continue
        if head is not None:
            _learn(head, kind, body, obj)
        ident = obj.get("id") if isinstance(obj.get("id"), str) and obj["id"] else None
        if ident is None and kind in ("user.message", "assistant.message"):
            skip(tally, source, "no id")
            continue
        ts = parse_aware_time(obj.get("timestamp"))
        for etype, fields in _events(kind, body, ident, pending):
            events.append(ChatEvent(offset, ts, etype, offset, fields))
    return events, consumed


MAX_REQUESTED = 256
"""Tool requests remembered while waiting for their start (a turn requests a handful)."""


def copilot_head(data: bytes) -> CopilotHead:
    """The session id, cwd, title and first time from a file's first bytes."""
    head = CopilotHead()
    parse_copilot(data, 0, "copilot", WarningTally(), head)
    return head


def _events(
    kind: Any, body: dict[str, Any], ident: str | None, requested: dict[str, dict[str, Any]]
) -> list[tuple[ChatEventType, dict[str, Any]]]:
    if kind == "user.message":
        parts = _user_parts(body)
        for i, (_, fields) in enumerate(parts):
            fields["id"] = ident if i == 0 else f"{ident}.{i}"
        return cast(list[tuple[ChatEventType, dict[str, Any]]], parts)
    if kind == "assistant.message":
        text = body.get("content")
        out: list[tuple[ChatEventType, dict[str, Any]]] = []
        if isinstance(text, str) and text.strip():
            out.append(("assistant_message", {"id": ident, "text": text}))
        requests = body.get("toolRequests")
        for request in requests if isinstance(requests, list) else []:
            call = request.get("toolCallId") if isinstance(request, dict) else None
            if isinstance(call, str) and call and len(requested) < MAX_REQUESTED:
                requested[call] = _call(call, request.get("name"), request.get("arguments"))
        return out
    call = body.get("toolCallId")
    if not isinstance(call, str) or not call:
        return []
    if kind == "tool.execution_start":
        requested.pop(call, None)
        return [("tool_call", _call(call, body.get("toolName"), body.get("arguments")))]
    if kind == "tool.execution_complete":
        result: tuple[ChatEventType, dict[str, Any]] = (
            "tool_result", {"id": call, "output": _result_text(body)}
        )  # fmt: skip
        known = requested.pop(call, None)
        return [result] if known is None else [("tool_call", known), result]
    return []


def _call(call: str, name: Any, arguments: Any) -> dict[str, Any]:
    shown = name if isinstance(name, str) and name else "tool"
    return {"id": call, "name": shown, "input": digest(arguments)}


MARKERS: tuple[Marker, ...] = (tag("skill-context", "system", "skill"),)
"""What Copilot CLI writes into a ``user.message``'s content itself: a skill's body, in
``<skill-context name=…>`` (with or without ``source: skill-*``; shapes from sessions it wrote,
tests/engine/external/test_injected_text.py)."""


def _user_parts(body: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """A shown ``user.message``'s events: the user's words and the injected skill context."""
    return user_events(str(body["content"]), MARKERS) if _shown_user(body) else []


def _shown_user(body: dict[str, Any]) -> bool:
    text, origin = body.get("content"), body.get("source")
    if not isinstance(text, str) or not text.strip():
        return False
    return not (isinstance(origin, str) and origin.startswith("skill-"))  # hidden injection


def _result_text(body: dict[str, Any]) -> str:
    result, error = body.get("result"), body.get("error")
    if isinstance(result, str):
        return result
    if isinstance(result, dict):
        for key in ("detailedContent", "content"):
            if isinstance(result.get(key), str) and result[key]:
                return str(result[key])
    if isinstance(error, dict) and isinstance(error.get("message"), str):
        return f"error: {error['message']}"
    if isinstance(error, str) and error:
        return f"error: {error}"
    return ""


def workspace_cwd(folder: Path, bounds: Bounds | None = None) -> str | None:
    """The ``cwd`` of the session's ``workspace.yaml`` (flat ``key: value`` lines, the value
    plain or quoted), or None."""
    try:
        data = read_regular(folder / WORKSPACE_FILE, WORKSPACE_BYTES, bounds)
    except OSError:
        return None
    for line in data.decode("utf-8", errors="replace").splitlines():
        key, colon, value = line.partition(":")
        if colon and key == "cwd":
            return _yaml_scalar(value.strip()) or None
    return None


def _yaml_scalar(value: str) -> str:
    """A one-line YAML scalar: ``'…'`` (``''`` is a quote), ``"…"`` (JSON escapes), else plain
    (a trailing `` #`` comment dropped)."""
    if len(value) >= 2 and value[0] == value[-1] == "'":
        return value[1:-1].replace("''", "'")
    if len(value) >= 2 and value[0] == value[-1] == '"':
        try:
            decoded = loads_json(value)
        except JsonRejected:
            return value[1:-1]
        return decoded if isinstance(decoded, str) else ""
    return value.split(" #", 1)[0].strip()


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
        words = users_words(str(body["content"]), MARKERS)
        head.first_user = " ".join(words.split())[:120] or None


def _head_learner(path: Path, bounds: Bounds | None) -> Callable[[bytes], HeadFields]:
    def learn(data: bytes) -> HeadFields:
        head = copilot_head(data)
        cwd = head.cwd or workspace_cwd(path.parent, bounds)
        return cwd, head.session_id, head.first_user, head.first_ts

    return learn


class Copilot(AgentFormat):
    """GitHub Copilot CLI: one append-only ``events.jsonl`` a session."""

    name: ClassVar[str] = "copilot"
    folder_label: ClassVar[str] = "the Copilot CLI session-state folder"
    resume: ClassVar[tuple[str, ...] | None] = ("copilot", "--resume")
    hidden: ClassVar[str] = (
        "`assistant.reasoning`, reasoning text, skill injections (`source: skill-*`);"
        " kept as `system`: `<skill-context>`"
    )
    session_globs: ClassVar[tuple[str, ...]] = (f"*/{EVENTS_FILE}",)

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
            scanned = scan_head(path, heads, _head_learner(path, bounds), bounds)
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
        del seq_base
        raw = state.get("requested")
        requested = dict(raw) if isinstance(raw, dict) else {}
        events, consumed = parse_copilot(data, base, source, tally, requested=requested)
        return events, consumed, {"requested": requested}

    def recorded_cwd(self, meta: SessionMeta) -> Path | None:
        if meta.transcript_path is None:
            return None
        path = meta.transcript_path
        cwd = copilot_head(read_head(path)).cwd or workspace_cwd(path.parent)
        return Path(cwd) if cwd else None


FORMAT = Copilot()
