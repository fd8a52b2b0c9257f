"""Mistral Vibe sessions: ``$VIBE_HOME/logs/session/session_<time>_<id8>/messages.jsonl`` (Vibe
2) and ``$VIBE_HOME/logs/session/unified/<id>/`` (Vibe 3: ``engine.external.vibe_unified``,
re-derived whole).

From mistralai/mistral-vibe ``vibe/core/paths/_vibe_home.py`` (``VIBE_HOME``, else ``~/.vibe``;
``SESSION_LOG_DIR``: ``logs/session``), ``vibe/core/config/models.py``
(``SessionLoggingConfig``: ``save_dir``, ``session_prefix`` ``session``) and
``vibe/core/session/session_logger.py`` (``save_folder``: ``<prefix>_<%Y%m%d_%H%M%S>_<first 8
of the id>``; ``persist_messages``: each new non-system message appended to ``messages.jsonl``
as ``LLMMessage.model_dump(exclude_none=True)``; ``meta.json`` rewritten beside it with
``session_id``, ``start_time``, ``title`` and ``environment.working_directory``). A message
(``vibe/core/types.py`` ``LLMMessage``) has ``role`` ``user``/``assistant``/``tool``, ``content``
text, ``tool_calls`` (``id``, ``function.name``, ``function.arguments`` as JSON text),
``tool_call_id``, ``message_id``, ``injected`` and ``reasoning_content``. Indexed: user and
assistant text, tool calls, tool results. Hidden: ``reasoning_content`` and user messages the
agent injected itself (``injected: true``: middleware warnings, hook and ``!`` command output,
the compaction summary). Kept as ``system``: the files an ``@`` mention embedded after the user's
words (``MARKERS``). Messages carry no time. Resume: ``vibe --resume <session_id>``.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any, ClassVar, cast

from engine.external import vibe_unified as unified
from engine.external.agent_format import Hint
from engine.external.injected import Marker, block, user_events, users_words
from engine.external.jsonl_agent import Found, HeadNotes, JsonlAgent
from engine.external.lines import digest
from engine.project.model import ChatEvent, SessionMeta
from engine.project.safe_io import Bounds, JsonRejected, loads_json, read_regular
from engine.project.stat import stat_signature
from engine.project.tally import WarningTally

META_FILE = "meta.json"
"""The session's metadata beside ``messages.jsonl`` (its working folder, id and title)."""

META_BYTES = 4 * 1024 * 1024
"""Most of ``meta.json`` read: it also holds the tool list and the config, a few hundred KB."""

UNIFIED_PATTERN = f"{unified.UNIFIED}/*/{META_FILE}"
"""Vibe 3's sessions, one folder each, found by their metadata."""

ROLES = frozenset({"user", "assistant", "tool", "system"})

MARKERS: tuple[Marker, ...] = (
    block(r"file://[^\n]*\n```\n.*", "system", "attached file"),
    block(r"path: [a-z]+://[^\n]*\ncontent: .*", "system", "attached file"),
    block(r"uri: [a-z]+://[^\n]*(?:\n(?:name|title|description|mime_type|size): [^\n]*)*",
          "system", "attached file"),
)  # fmt: skip
"""What Vibe writes into a user message beside the typed words (every other injection is a
message of its own flagged ``injected``): each ``@`` mentioned file after the prompt text, a
text file as its URI and fenced contents, another as ``uri:``/``name:`` lines
(``vibe/core/autocompletion/path_prompt_adapter.py`` ``_format_content_block``; the ACP path's
``path:``/``content:`` blocks, ``vibe/acp/acp_agent_loop.py`` ``_build_text_prompt``). A skill's
body (``vibe/core/skills/manager.py`` ``build_skill_prompt``) carries no mark and stays."""


class VibeFormat(JsonlAgent):
    """Mistral Vibe's session logs."""

    name = "vibe"
    patterns: ClassVar[tuple[str, ...]] = ("*/messages.jsonl",)
    resume: ClassVar[tuple[str, ...] | None] = ("vibe", "--resume")
    hidden = "reasoning content, injected user messages"

    def record_events(
        self, obj: dict[str, Any], tally: WarningTally, source: str, state: dict[str, Any]
    ) -> tuple[str | None, str | None, Found] | None:
        del tally, source, state
        role = obj.get("role")
        if role not in ROLES:
            return None
        ident = obj.get("message_id") if isinstance(obj.get("message_id"), str) else None
        content = obj.get("content")
        text = content if isinstance(content, str) else ""
        if role == "user":
            if obj.get("injected") is True:
                return ident, None, []
            return ident, None, cast(Found, user_events(text, MARKERS))
        if role == "tool":
            fields: dict[str, Any] = {"output": text}
            if isinstance(obj.get("tool_call_id"), str) and obj["tool_call_id"]:
                fields["id"] = obj["tool_call_id"]
            return ident, None, [("tool_result", fields)]
        if role == "system":
            return ident, None, []
        found: Found = [("assistant_message", {"text": text})] if text.strip() else []
        for call in obj.get("tool_calls") or []:
            if isinstance(call, dict):
                found.append(("tool_call", _call(call)))
        return ident, None, found

    def learn(self, head: HeadNotes, obj: dict[str, Any]) -> None:
        if obj.get("role") == "user" and obj.get("injected") is not True:
            content = obj.get("content")
            head.saw_user(users_words(content, MARKERS) if isinstance(content, str) else "")

    def transcripts(self, environ: Mapping[str, str]) -> list[tuple[Path, Path]]:
        found = super().transcripts(environ)
        for folder in self.session_folders(environ):
            try:
                found += [(folder, p) for p in sorted(folder.glob(UNIFIED_PATTERN))]
            except OSError:
                continue
        return found

    def owner_hint(self, path: Path, environ: Mapping[str, str], memo: object) -> Hint | None:
        for folder in self.watch_roots(environ):
            store = folder / unified.UNIFIED
            if store in path.parents:
                # A session's metadata, its snapshot pointer or journal: a new session, or one
                # listed whose signature moved. Chunks and generations precede their pointer.
                session = store / path.relative_to(store).parts[0]
                return "relist" if path in unified.watched_files(session) else "foreign"
        return super().owner_hint(path, environ, memo)

    def owns(self, path: Path, environ: Mapping[str, str]) -> bool:
        if unified.is_unified(path):
            return any(folder in path.parents for folder in self.session_folders(environ))
        return super().owns(path, environ)

    def derived_file(self, path: Path | None) -> bool:
        return unified.is_unified(path)

    def derived_events(
        self, path: Path, tally: WarningTally, source: str
    ) -> tuple[list[ChatEvent] | None, int]:
        store = unified.read_store(path.parent, None, tally, source)
        return unified.entry_events(store.entries, MARKERS, tally, source), 0

    def signature(self, meta: SessionMeta) -> str:
        path = meta.transcript_path
        if unified.is_unified(path):
            assert path is not None
            return stat_signature(unified.watched_files(path.parent))
        return super().signature(meta)

    def head_notes(self, path: Path, data: bytes, bounds: Bounds | None) -> HeadNotes:
        if unified.is_unified(path):
            head = HeadNotes()
            store = unified.read_store(path.parent, bounds, WarningTally(), self.name)
            for etype, fields in (
                (e.type, e.data) for e in unified.entry_events(
                    store.entries, MARKERS, WarningTally(), self.name)
            ):  # fmt: skip
                if etype == "user_message":
                    head.saw_user(fields.get("text", ""))
        else:
            head = super().head_notes(path, data, bounds)
        head.ident = None
        meta = _meta(path.parent / META_FILE, bounds)
        env = meta.get("environment")
        if isinstance(env, dict) and isinstance(env.get("working_directory"), str):
            head.cwd = env["working_directory"] or None
        if isinstance(meta.get("session_id"), str) and meta["session_id"]:
            head.ident = meta["session_id"]
        if isinstance(meta.get("title"), str) and meta["title"].strip():
            head.title = meta["title"].strip()
        if isinstance(meta.get("start_time"), str):
            head.first_ts = meta["start_time"]
        head.ident = head.ident or path.parent.name
        return head


def _call(call: dict[str, Any]) -> dict[str, Any]:
    function: dict[str, Any] = call["function"] if isinstance(call.get("function"), dict) else {}
    name = function.get("name") if isinstance(function.get("name"), str) else "tool"
    arguments = function.get("arguments")
    try:
        parsed = loads_json(arguments) if isinstance(arguments, str) and arguments else arguments
    except JsonRejected:
        parsed = arguments
    fields: dict[str, Any] = {"name": name, "input": digest(parsed or {})}
    if isinstance(call.get("id"), str) and call["id"]:
        fields["id"] = call["id"]
    return fields


def _meta(path: Path, bounds: Bounds | None) -> dict[str, Any]:
    try:
        found = loads_json(read_regular(path, META_BYTES, bounds))
    except (OSError, JsonRejected):
        return {}
    return found if isinstance(found, dict) else {}


FORMAT = VibeFormat()
