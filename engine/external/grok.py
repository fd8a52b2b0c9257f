"""Grok Build sessions: ``$GROK_HOME/sessions/<url-encoded cwd>/<session id>/chat_history.jsonl``.

From xai-org/grok-build: ``crates/codegen/xai-grok-pager/docs/user-guide/17-sessions.md``
(``GROK_HOME``, else ``~/.grok``; one folder a session grouped by the URL-encoded working
folder, or a slug and hash with the path in a ``.cwd`` file when the name would pass 255 bytes;
``summary.json`` the index entry with the generated title; ``chat_history.jsonl`` the raw chat;
``grok --resume <session-id-or-title>``), ``crates/codegen/xai-chat-state/src/persistence.rs``
(``persist_message``: one item appended; ``replace_history`` rewrites it on compaction or rewind)
and ``crates/codegen/xai-grok-sampling-types/src/conversation.rs`` (``ConversationItem``, tagged
by ``type``: ``system``, ``user`` with ``content`` parts and ``synthetic_reason``, ``assistant``
with ``content`` text and ``tool_calls`` ``{id, name, arguments}``, ``tool_result``
``{tool_call_id, content}``, ``backend_tool_call``, ``reasoning``). Indexed: user text (its
``<user_query>`` framing removed), assistant text, tool calls and results. Hidden: reasoning,
the system prompt, user items the runtime synthesised (``synthetic_reason``: reminders, project
instructions, auto-continue…) but for an interjection (what the user typed mid-turn, framed like
a prompt), and what ``MARKERS`` finds beside the query. Resume: ``grok --resume <id>``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, ClassVar, cast
from urllib.parse import unquote

from engine.external.injected import Marker, block, query_frame, tag, user_events
from engine.external.jsonl_agent import Found, HeadNotes, JsonlAgent, time_text
from engine.external.lines import digest
from engine.project.safe_io import Bounds, JsonRejected, loads_json, read_regular
from engine.project.tally import WarningTally

QUIET = frozenset({"system", "backend_tool_call", "reasoning"})
SIDE_BYTES = 1024 * 1024
"""Most of ``summary.json`` or ``.cwd`` read."""


MARKERS: tuple[Marker, ...] = (
    tag("user_info", "hide", "environment"),
    tag("system-reminder", "hide", "reminder"),
    block(r"The user interrupted the previous turn:[^\n]*", "system", "interruption"),
    block(r"The user sent a message while you were working:[^\n]*", "hide", "note"),
    block(r"Make sure to complete any unfinished tasks from previous turns\.[^\n]*", "hide",
          "note"),
)  # fmt: skip
"""What Grok Build writes into a user item beside what was typed: the ``<user_info>`` preamble
and ``<system-reminder>`` (``crates/codegen/xai-grok-sampling-types/src/conversation.rs``
``SyntheticReason``), the interjection and interrupt notes and the unfinished-tasks trailer
(``crates/common/xai-interjection-core/src/format.rs``: ``INTERJECTION_NOTE``,
``INTERRUPT_NOTE``, ``frame_user_turn``). Anything else beside the ``<user_query>`` frame (a
skill or context tail) is Grok's, kept as ``system``."""

FRAME = query_frame("user_query", "context")
"""``wrap_user_query``/``user_query``: the typed words, framed."""

SHOWN_SYNTHETIC = frozenset({"interjection"})
"""Synthesised user items that carry what the user typed (Ctrl+Enter mid-turn)."""


class GrokFormat(JsonlAgent):
    """Grok Build's chat histories."""

    name = "grok"
    patterns: ClassVar[tuple[str, ...]] = ("*/*/chat_history.jsonl",)
    resume: ClassVar[tuple[str, ...] | None] = ("grok", "--resume")
    hidden = "reasoning, system prompt, runtime-synthesised user items, <user_info> preamble"

    def record_events(
        self, obj: dict[str, Any], tally: WarningTally, source: str, state: dict[str, Any]
    ) -> tuple[str | None, str | None, Found] | None:
        del tally, source, state
        kind = obj.get("type")
        if kind in QUIET:
            return None, None, []
        if kind == "user":
            return None, None, _user(obj)
        if kind == "assistant":
            text = obj.get("content")
            found: Found = []
            if isinstance(text, str) and text.strip():
                found.append(("assistant_message", {"text": text}))
            for call in obj.get("tool_calls") or []:
                if isinstance(call, dict):
                    found.append(("tool_call", _call(call)))
            return None, None, found
        if kind == "tool_result":
            content = obj.get("content")
            fields: dict[str, Any] = {"output": content if isinstance(content, str) else ""}
            if isinstance(obj.get("tool_call_id"), str) and obj["tool_call_id"]:
                fields["id"] = obj["tool_call_id"]
            return None, None, [("tool_result", fields)]
        return None

    def learn(self, head: HeadNotes, obj: dict[str, Any]) -> None:
        for etype, fields in _user(obj) if obj.get("type") == "user" else []:
            if etype == "user_message":
                head.saw_user(fields["text"])

    def head_notes(self, path: Path, data: bytes, bounds: Bounds | None) -> HeadNotes:
        head = super().head_notes(path, data, bounds)
        folder = path.parent
        head.ident = folder.name
        summary = _json(folder / "summary.json", bounds)
        info = summary.get("info")
        if isinstance(info, dict) and isinstance(info.get("cwd"), str) and info["cwd"]:
            head.cwd = info["cwd"]
        else:
            head.cwd = _side_cwd(folder.parent, bounds) or unquote(folder.parent.name)
        for key in ("title", "generated_title"):
            if isinstance(summary.get(key), str) and summary[key].strip():
                head.title = summary[key].strip()
                break
        head.first_ts = time_text(summary.get("created_at"))
        return head


def _user(obj: dict[str, Any]) -> Found:
    reason = obj.get("synthetic_reason")
    if reason and reason not in SHOWN_SYNTHETIC:
        return []
    found: Found = []
    for part in obj.get("content") or []:
        if (
            isinstance(part, dict)
            and part.get("type") == "text"
            and isinstance(part.get("text"), str)
        ):
            found += cast(Found, user_events(part["text"], MARKERS, frame=FRAME))
    return found


def _call(call: dict[str, Any]) -> dict[str, Any]:
    arguments = call.get("arguments")
    try:
        parsed = loads_json(arguments) if isinstance(arguments, str) and arguments else arguments
    except JsonRejected:
        parsed = arguments
    name = call.get("name") if isinstance(call.get("name"), str) else "tool"
    fields: dict[str, Any] = {"name": name, "input": digest(parsed or {})}
    if isinstance(call.get("id"), str) and call["id"]:
        fields["id"] = call["id"]
    return fields


def _json(path: Path, bounds: Bounds | None) -> dict[str, Any]:
    try:
        found = loads_json(read_regular(path, SIDE_BYTES, bounds))
    except (OSError, JsonRejected):
        return {}
    return found if isinstance(found, dict) else {}


def _side_cwd(group: Path, bounds: Bounds | None) -> str | None:
    try:
        text = read_regular(group / ".cwd", SIDE_BYTES, bounds).decode("utf-8", "replace")
    except OSError:
        return None
    return text.strip() or None


FORMAT = GrokFormat()
