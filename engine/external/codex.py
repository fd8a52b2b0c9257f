"""Codex CLI rollouts: ``$CODEX_HOME/sessions/YYYY/MM/DD/rollout-*.jsonl``.

Each line is ``{"timestamp", "type", "payload"}``: ``session_meta`` (id, cwd…), ``response_item``
(``message``, ``function_call``, ``function_call_output``, ``custom_tool_call[_output]``,
``local_shell_call``, ``reasoning``), ``event_msg`` (``user_message``, ``agent_message``,
``agent_reasoning``, ``token_count``…) and ``turn_context``. Older rollouts put the item itself on
the line without the wrapper. A message is written twice — as a ``response_item`` and as an
``event_msg`` — so its id is ``<role>-<hash of text>-<n>`` where ``n`` counts that text within
its own stream: the n-th copy in each stream gets the same id and is indexed once. Reasoning is
left out; a function call's output, JSON inside a string, is decoded to its ``output`` text.

Discovery: every ``$CODEX_HOME/sessions/YYYY/MM/DD/rollout-*.jsonl`` (default ``~/.codex``) and
every session ``codex archive`` moved to ``$CODEX_HOME/archived_sessions/rollout-*.jsonl`` (flat:
``ThreadListLayout::Flat`` in ``codex-rs/rollout/src/list.rs``; the same id, so the same links)
whose ``session_meta`` cwd lies in the project or one of its lanes, and the TypeScript CLI's
legacy ``sessions/rollout-*.json`` documents (``engine.external.codex_store``: re-derived whole).
A session's title is its thread name in ``session_index.jsonl``, else its first user message.
A line of a type Codex does not write, or without one, is counted (``unknown type``), never
dropped silently. Resume: ``codex resume <id>``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

from engine.basics.digests import sha1_hex
from engine.external.agent_format import AgentFormat, Hint, Parsed
from engine.external.codex_store import LegacyRollout, read_legacy, thread_names
from engine.external.finding import HeadFields, acceptable, read_head, scan_head, session_meta
from engine.external.heads import HeadCache
from engine.external.injected import Marker, tag, user_events, users_words
from engine.external.lines import digest, json_lines
from engine.external.skips import Reason, skip, skip_file
from engine.project.fields import parse_aware_time
from engine.project.model import ChatEvent, ChatEventType, Lane, SessionMeta
from engine.project.safe_io import Bounds, JsonRejected, loads_json
from engine.project.tally import WarningTally

MARKERS: tuple[Marker, ...] = (
    Marker("# AGENTS.md instructions for ", "hide", "AGENTS.md", "</INSTRUCTIONS>"),
    tag("environment_context", "hide", "environment"),
    tag("user_instructions", "hide", "instructions"),
    tag("recommended_plugins", "hide", "plugins"),
    tag("skill", "system", "skill"),
    tag("user_shell_command", "system", "shell command"),
    tag("turn_aborted", "system", "interruption"),
    tag("subagent_notification", "system", "subagent notification"),
    tag("additional_context", "system", "editor context"),
)
"""The parts Codex writes into a ``user`` message itself, each one content item
(``CONTEXTUAL_USER_FRAGMENTS`` in ``codex-rs/core/src/contextual_user_message.rs``: matched per
item, case folded; ``<user_instructions>`` from older releases, ``<recommended_plugins>`` from
sessions it wrote): the project's instructions and the environment are left out, the rest kept
as ``system``."""

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
        kind, payload = _unwrapped(obj)
        if head is not None:
            _learn(head, kind, payload, obj)
        found = _items(kind, payload, counters)
        if found is not None:
            ts = parse_aware_time(obj.get("timestamp"))
            events += [ChatEvent(offset, ts, etype, offset, fields) for etype, fields in found]
        elif (reason := skip_reason(kind, payload)) is not None:
            skip(tally, source, reason)
    return events, consumed


def _unwrapped(obj: dict[str, Any]) -> tuple[Any, dict[str, Any]]:
    """A line's kind and payload. Older rollouts put the item itself on the line, after a
    first line holding the session's meta (``{"id", "timestamp", "instructions"}``) and with
    ``{"record_type": "state"}`` lines between."""
    payload = obj.get("payload")
    if isinstance(payload, dict):
        return obj.get("type"), payload
    if "type" not in obj and "record_type" in obj:
        return "state", obj
    if "type" not in obj and isinstance(obj.get("id"), str) and "timestamp" in obj:
        return "session_meta", obj
    return "response_item", obj


LINE_KINDS = frozenset({
    "session_meta", "response_item", "event_msg", "turn_context", "compacted",
    "inter_agent_communication", "state",
})  # fmt: skip
"""The kinds of line Codex writes (``RolloutItem``: ``codex-rs/rollout/src/policy.rs``)."""

RESPONSE_TYPES = frozenset({
    "message", "reasoning", "local_shell_call", "function_call", "function_call_output",
    "custom_tool_call", "custom_tool_call_output", "tool_search_call", "tool_search_output",
    "web_search_call", "image_generation_call", "compaction", "context_compaction",
    "compaction_summary", "additional_tools", "agent_message", "ghost_snapshot",
})  # fmt: skip
"""The ``ResponseItem`` types a rollout holds (``should_persist_response_item``); the ones not
indexed (reasoning, searches, images, compaction markers) are left out by design."""


def skip_reason(kind: Any, payload: dict[str, Any]) -> Reason | None:
    """Why a line that gave no event is counted as skipped; None when leaving it out is by
    design (a kind or type Codex writes that says nothing to index)."""
    if kind not in LINE_KINDS:
        return "unknown type"
    if kind not in ("response_item", "event_msg"):
        return None
    ptype = payload.get("type")
    if not isinstance(ptype, str) or not ptype:
        return "unknown type"
    return "unknown type" if kind == "response_item" and ptype not in RESPONSE_TYPES else None


def codex_head(data: bytes) -> CodexHead:
    """What the complete lines of ``data`` (a rollout's first bytes) say about the session,
    reading only until the id, cwd and first user message are known (discovery needs no more)."""
    head = CodexHead()
    lines, _ = json_lines(data, 0, "codex", WarningTally())
    for _offset, obj in lines:
        kind, payload = _unwrapped(obj)
        _learn(head, kind, payload, obj)
        if head.cwd is not None and head.session_id is not None and head.first_user is not None:
            break
    return head


Found = list[tuple[ChatEventType, dict[str, Any]]]


def _items(kind: Any, payload: dict[str, Any], counters: dict[str, int]) -> Found | None:
    """The events of one item: a user message's, part by part (the user's words, and what
    Codex injected: ``MARKERS``); None when the item is no message, call or output."""
    ptype = payload.get("type")
    if payload.get("role") == "user" and kind == "response_item" and ptype == "message":
        content = payload.get("content")
        parts = (
            [content] if isinstance(content, str) else content if isinstance(content, list) else []
        )
        texts = [p if isinstance(p, str) else p.get("text") if isinstance(p, dict) else None
                 for p in parts]  # fmt: skip
        return _user_texts([t for t in texts if isinstance(t, str)], "r", counters)
    if kind == "event_msg" and ptype == "user_message":
        message = payload.get("message")
        return _user_texts([message] if isinstance(message, str) else [], "e", counters)
    found = _item(kind, payload, counters)
    return None if found is None else [found]


def _user_texts(texts: list[str], stream: str, counters: dict[str, int]) -> Found:
    out: Found = []
    for text in texts:
        for etype, fields in user_events(text, MARKERS):
            said = _message("user" if etype == "user_message" else "system", fields["text"],
                            stream, counters)  # fmt: skip
            if said is not None:
                out.append((said[0], {**fields, "id": said[1]["id"]}))
    return out


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
    if role not in ("user", "assistant", "system") or not text:
        return None
    key = f"{role[0]}{sha1_hex(text.encode())[:12]}"
    counted = f"{stream}:{key}"
    if counted in counters or len(counters) < MAX_COUNTERS:
        counters[counted] = counters.get(counted, 0) + 1
    etype: ChatEventType = ROLE_EVENTS[role]
    return etype, {"id": f"{key}-{counters.get(counted, 0)}", "text": text}


ROLE_EVENTS: dict[str, ChatEventType] = {
    "user": "user_message", "assistant": "assistant_message", "system": "system_message",
}  # fmt: skip


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
    elif head.first_user is None and kind in ("event_msg", "response_item"):
        head.first_user = first_user_text(payload)


def first_user_text(payload: dict[str, Any]) -> str | None:
    """The title a user message gives (an ``event_msg`` or a ``response_item`` one, not the
    context Codex injects as the user), or None."""
    if payload.get("type") == "user_message":
        texts = [payload.get("message")]
    elif payload.get("type") == "message" and payload.get("role") == "user":
        content = payload.get("content")
        parts = (
            [content] if isinstance(content, str) else content if isinstance(content, list) else []
        )
        texts = [p.get("text") if isinstance(p, dict) else p for p in parts]
    else:
        return None
    for text in texts:
        words = users_words(text, MARKERS) if isinstance(text, str) else ""
        if words.strip():
            return " ".join(words.split())[:120]
    return None


_TYPES = frozenset({"session_meta", "response_item", "event_msg", "turn_context"})


def _head_fields(data: bytes) -> HeadFields:
    head = codex_head(data)
    return head.cwd, head.session_id, head.first_user, head.first_ts


def _legacy_fields(path: Path, bounds: Bounds) -> Callable[[bytes], HeadFields]:
    def learn(data: bytes) -> HeadFields:
        del data  # a document is read whole, not by its head
        rollout = read_legacy(path, "codex", WarningTally(), bounds) or LegacyRollout()
        head = CodexHead(rollout.session_id, rollout.cwd, None, rollout.timestamp)
        for item in rollout.items:
            if head.first_user is None and isinstance(item, dict):
                head.first_user = first_user_text(item)
        return head.cwd, head.session_id, head.first_user, head.first_ts

    return learn


class Codex(AgentFormat):
    """Codex CLI: one append-only rollout a session, in day folders (and archived, and the
    legacy documents re-derived whole)."""

    name: ClassVar[str] = "codex"
    remembered: ClassVar[bool] = True
    folder_label: ClassVar[str] = "the Codex sessions folder"
    resume: ClassVar[tuple[str, ...] | None] = ("codex", "resume")
    hidden: ClassVar[str] = (
        "reasoning items, `<environment_context>`, AGENTS.md and `<user_instructions>`,"
        " `<recommended_plugins>`; kept as `system`: `<skill>`, `<user_shell_command>`,"
        " `<turn_aborted>`, `<subagent_notification>`, `<additional_context>`"
    )

    def count_sessions(self, environ: Mapping[str, str], lanes: Sequence[Lane]) -> int:
        del lanes
        return len(self.transcripts(environ))

    def transcripts(self, environ: Mapping[str, str]) -> list[tuple[Path, Path]]:
        """``(folder, file)`` of every rollout: the day folders' and the legacy documents
        under ``sessions``, then the archived ones (a session in both is the active one)."""
        sessions, archived = self.session_folders(environ)[:2]
        found: list[tuple[Path, Path]] = []
        for folder, pattern in ((sessions, "*/*/*/rollout-*.jsonl"), (sessions, "rollout-*.json"),
                                (archived, "rollout-*.jsonl")):  # fmt: skip
            try:
                found += [(folder, path) for path in sorted(folder.glob(pattern))]
            except OSError:
                continue
        return found

    def sessions(
        self, lanes: list[Lane], tally: WarningTally, environ: Mapping[str, str], heads: HeadCache
    ) -> list[SessionMeta]:
        found: dict[str, SessionMeta] = {}
        bounds = self.bounds(environ)
        names = thread_names(self.home(environ))
        for root, path in self.transcripts(environ):
            if not acceptable(path, bounds, self.name, tally, root):
                continue
            learn = _legacy_fields(path, bounds) if path.suffix == ".json" else _head_fields
            scanned = scan_head(path, heads, learn)
            if scanned is None:
                continue
            head, st = scanned
            ident = head.ident or path.stem.removeprefix("rollout-")
            if ident in names:
                head = dataclasses.replace(head, title=names[ident])
            meta = session_meta(f"codex-{ident}", self.name, path, head, st, lanes,
                                last_message=path.suffix == ".jsonl")  # fmt: skip
            if meta is not None:
                found.setdefault(meta.id, meta)
            elif head.cwd is None:
                skip_file(tally, self.name, "no cwd", path)
        return list(found.values())

    def owner_hint(self, path: Path, environ: Mapping[str, str], memo: object) -> Hint | None:
        del memo
        sessions, archived = self.session_folders(environ)[:2]
        if path.parent == archived:
            return "if-unseen" if path.suffix == ".jsonl" else "foreign"
        if sessions not in path.parents:
            return None
        legacy = path.parent == sessions and path.suffix == ".json"
        return "if-unseen" if path.suffix == ".jsonl" or legacy else "foreign"

    def sniff(self, first: dict[str, Any]) -> bool:
        return isinstance(first.get("payload"), dict) or first.get("type") in _TYPES

    def derived_file(self, path: Path | None) -> bool:
        return path is not None and path.suffix == ".json"

    def derived_events(
        self, path: Path, tally: WarningTally, source: str
    ) -> tuple[list[ChatEvent] | None, int]:
        rollout = read_legacy(path, source, tally)
        if rollout is None:
            return None, 0
        counters: dict[str, int] = {}
        ts = parse_aware_time(rollout.timestamp)
        events: list[ChatEvent] = []
        for seq, item in enumerate(rollout.items):
            if not isinstance(item, dict):
                skip(tally, source, "bad json")
                continue
            found = _items("response_item", item, counters)
            if found is not None:
                events += [ChatEvent(seq, ts, etype, seq, fields) for etype, fields in found]
            elif (reason := skip_reason("response_item", item)) is not None:
                skip(tally, source, reason)
        return events, 0

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
        path = meta.transcript_path
        if path is None:
            return None
        if path.suffix == ".json":
            cwd = (read_legacy(path, "codex", WarningTally()) or LegacyRollout()).cwd
        else:
            cwd = codex_head(read_head(path)).cwd
        return Path(cwd) if cwd else None


FORMAT = Codex()
