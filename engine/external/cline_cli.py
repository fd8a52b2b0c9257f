"""Cline CLI sessions (and those of every host of Cline's SDK):
``$CLINE_DIR/data/sessions/<id>/<id>.messages.json`` (default ``~/.cline``).

From cline/cline: ``sdk/packages/shared/src/storage`` (the folders: ``$CLINE_DIR``, else
``~/.cline``; its ``data`` unless ``$CLINE_DATA_DIR``; ``data/sessions`` unless
``$CLINE_SESSION_DATA_DIR``), ``sdk/packages/core/src/services/session-artifacts.ts`` (a
folder per session holding ``<id>.json``, the manifest: ``cwd``, ``workspace_root``,
``prompt``, ``metadata.title``, ``started_at``; and ``<id>.messages.json``),
``sdk/packages/core/docs/messages-contract-v1.md`` (the messages document, rewritten whole as
the session goes: ``{version, updated_at, agent, sessionId, messages: [{id, role: user |
assistant, content: [text | thinking | tool_use | tool_result], ts}], system_prompt}``), and
``sdk/packages/shared/src/prompt/format.ts`` (what the runtime wraps the typed words in:
``<user_input mode="act">…</user_input>``, ``<user_command slash="…">``, ``<mode_notice>``,
attached ``<file_content path="…">``) and ``sdk/packages/core/src/session/user-run-messages.ts``
(user-role messages the runtime writes itself: ``metadata.kind`` compaction summaries and
notices, ``[TASK RESUMPTION]`` prompts). The VS Code extension built on the SDK writes its tasks
here too (``apps/vscode/src/extension.ts``). Real sessions: Cline CLI 3.0.65 (the fixture's
README). Indexed: the user's words, assistant text, tool calls and results (each
``{query, result, success, error}`` of a batched tool). Hidden: thinking, the system prompt,
mode notices, attached files; kept as ``system``: compaction summaries, runtime notices and
resumption prompts. A subagent's or teammate's transcript beside the lead's is not read.
Resume: ``cline --id <id>``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, ClassVar, cast

from engine.agent_table import entry
from engine.external.agent_format import AgentFormat, Hint
from engine.external.finding import acceptable, lane_of, newest_first, session_meta
from engine.external.heads import Head, HeadCache
from engine.external.injected import Frame, tag, users_words
from engine.external.jsonl_agent import Found, message_blocks, result_text, time_text
from engine.external.roots import agent_home
from engine.external.session_file import read_session_file
from engine.external.skips import skip, skip_file
from engine.project.fields import parse_aware_time
from engine.project.model import ChatEvent, Lane, SessionMeta
from engine.project.safe_io import Bounds, JsonRejected, loads_json
from engine.project.tally import WarningTally

DATA_DIR, SESSIONS_DIR = entry("cline-cli").also
MESSAGES = ".messages.json"
TITLE_CHARS = 120

MARKERS = (
    tag("mode_notice", "hide", "mode switch"),
    tag("file_content", "hide", "attached file"),
)
"""What the runtime writes beside the typed words in a user text block (``format.ts``)."""

FRAME = Frame("<user_input>", "</user_input>", "context")
"""``formatUserInputBlock``: the typed words (its ``mode`` attribute dropped first)."""

_OPEN_TAG = re.compile(r"<user_input\b[^>]*>")
_COMMAND = re.compile(r'<user_command\b[^>]*\bslash="([^"]+)"[^>]*>(.*?)</user_command>', re.S)

SYSTEM_KINDS = frozenset({
    "compaction", "compaction_summary", "auto_compaction", "compaction_budget_emergency",
    "completion_reminder", "loop_detection_notice", "manual_compaction", "mistake_stop_notice",
    "recovery_notice",
})  # fmt: skip
"""User-role messages the runtime writes itself (``user-run-messages.ts``)."""

CONTINUATIONS = (
    "[TASK RESUMPTION]",
    "The user approved switching to act mode. Continue with the approved plan now.",
)


class ClineCliFormat(AgentFormat):
    """Cline's SDK session folders."""

    name: ClassVar[str] = "cline-cli"
    derived: ClassVar[bool] = True
    resume: ClassVar[tuple[str, ...] | None] = ("cline", "--id")
    hidden: ClassVar[str] = (
        "thinking, the system prompt, mode notices, attached files; subagents' transcripts"
    )

    def session_folders(self, environ: Mapping[str, str]) -> list[Path]:
        moved = environ.get(SESSIONS_DIR)
        if moved:
            return [Path(moved)]
        data = environ.get(DATA_DIR)
        if data:
            return [Path(data) / "sessions"]
        return [agent_home(self.name, environ) / "data" / "sessions"]

    def transcripts(self, environ: Mapping[str, str]) -> list[tuple[Path, Path]]:
        """``(sessions folder, messages file)`` of every session folder."""
        found: list[tuple[Path, Path]] = []
        for folder in self.session_folders(environ):
            try:
                names = sorted(p.name for p in folder.iterdir() if p.is_dir())
            except OSError:
                continue
            found += [(folder, folder / name / f"{name}{MESSAGES}") for name in names]
        return found

    def count_sessions(self, environ: Mapping[str, str], lanes: Sequence[Lane]) -> int:
        del lanes
        return sum(1 for _, path in self.transcripts(environ) if path.exists())

    def sessions(
        self, lanes: list[Lane], tally: WarningTally, environ: Mapping[str, str], heads: HeadCache
    ) -> list[SessionMeta]:
        bounds = self.bounds(environ, lanes)
        found: list[SessionMeta] = []
        for folder, path in self.transcripts(environ):
            if not path.exists():
                continue
            if not acceptable(path, bounds, self.name, tally, folder):
                continue
            manifest = _manifest_path(path)
            try:
                st, mst = path.stat(), manifest.stat()
            except OSError:
                skip_file(tally, self.name, "no cwd", path)
                continue
            head = heads.get(manifest, mst)
            if head is None:
                head = _head(_json(manifest, bounds), path, mst)
                heads.put(manifest, head)
            if head.cwd is None:
                skip_file(tally, self.name, "no cwd", path)
                continue
            if lane_of(lanes, head.cwd) is None:
                continue
            if head.title is None:
                head = Head(head.ino, head.size, head.complete, head.cwd, head.ident,
                            _first_words(path), head.first_ts)  # fmt: skip
            meta = session_meta(f"{self.name}-{head.ident}", self.name, path, head, st, lanes)
            if meta is not None:
                found.append(meta)
        return found

    def owner_hint(self, path: Path, environ: Mapping[str, str], memo: object) -> Hint | None:
        del memo
        if not any(root in path.parents for root in self.watch_roots(environ)):
            return None
        return "relist" if path.name.endswith(".json") else "foreign"

    def owns(self, path: Path, environ: Mapping[str, str]) -> bool:
        return path.name == f"{path.parent.name}{MESSAGES}" and super().owns(path, environ)

    def named_folders(self, environ: Mapping[str, str], limit: int) -> list[str]:
        newest = newest_first((p for _, p in self.transcripts(environ)), limit)
        found = (_cwd(_json(_manifest_path(path), None)) for path in newest)
        return [cwd for cwd in found if cwd]

    def recorded_cwd(self, meta: SessionMeta) -> Path | None:
        path = meta.transcript_path
        cwd = None if path is None else _cwd(_json(_manifest_path(path), None))
        return Path(cwd) if cwd else None

    def derived_events(
        self, path: Path, tally: WarningTally, source: str
    ) -> tuple[list[ChatEvent] | None, int]:
        try:
            doc = loads_json(read_session_file(path, document=True).data)
        except (OSError, JsonRejected):
            return None, 0
        messages = doc.get("messages") if isinstance(doc, dict) else None
        if not isinstance(messages, list):
            skip(tally, source, "not a session")
            return [], 0
        events: list[ChatEvent] = []
        for n, message in enumerate(messages):
            if not isinstance(message, dict):
                skip(tally, source, "bad json")
                continue
            role = message.get("role")
            if role not in ("user", "assistant"):
                skip(tally, source, "unknown type")
                continue
            ts = message.get("ts")
            when = parse_aware_time(time_text(ts)) if isinstance(ts, int | float) else None
            ident = str(message.get("id") or n)
            for i, (etype, fields) in enumerate(_message_events(str(role), message)):
                fields.setdefault("id", ident if i == 0 else f"{ident}.{i}")
                events.append(ChatEvent(n, when, etype, n, fields))
        return events, 0


def _message_events(role: str, message: dict[str, Any]) -> Found:
    content = message.get("content")
    metadata = message.get("metadata")
    kind = metadata.get("kind") if isinstance(metadata, dict) else None
    shown = metadata.get("displayRole") if isinstance(metadata, dict) else None
    blocks = [b for b in content if isinstance(b, dict)] if isinstance(content, list) else []
    if role == "user" and (kind in SYSTEM_KINDS or shown in ("system", "status", "error")):
        label = "compaction summary" if kind and "compaction" in str(kind) else "notice"
        texts = [str(b["text"]) for b in blocks if isinstance(b.get("text"), str)]
        said = "\n".join(t for t in texts if t.strip())
        return [("system_message", {"text": said, "notice": label})] if said else []
    found: Found = []
    for block in blocks:
        if block.get("type") == "tool_result":
            fields: dict[str, Any] = {"output": _result(block.get("content"))}
            if block.get("is_error") is True:
                fields["output"] = f"error: {fields['output']}"
            if isinstance(block.get("tool_use_id"), str) and block["tool_use_id"]:
                fields["id"] = block["tool_use_id"]
            found.append(("tool_result", fields))
        elif block.get("type") == "text" and role == "user" and isinstance(block.get("text"), str):
            found += _user_text(str(block["text"]))
        else:
            found += message_blocks(role, [block])
    return found


def _user_text(text: str) -> Found:
    """One user text block: the typed words (unwrapped), a slash command as ``/name words``, a
    resumption prompt kept as ``system``, mode notices and attached files left out."""
    text = _COMMAND.sub(lambda m: f"/{m.group(1)} {m.group(2).strip()}".strip(), text)
    framed = _OPEN_TAG.sub("<user_input>", text)
    words = users_words(framed, MARKERS, FRAME if "<user_input>" in framed else None)
    if not words.strip():
        return []
    if words.lstrip().startswith(CONTINUATIONS):
        return [("system_message", {"text": words, "notice": "resumption"})]
    return cast(Found, [("user_message", {"text": words})])


def _result(content: Any) -> str:
    """A tool's result: each ``{query, result, success, error}`` of a batched tool (a command
    run, a file read) as its result (or its error), else the text of the content."""
    items = content if isinstance(content, list) else []
    if not items or not all(isinstance(i, dict) and ("result" in i or "error" in i) for i in items):
        return result_text(content)
    parts = []
    for item in items:
        failed = item.get("success") is False and item.get("error")
        said = item.get("error") if failed else item.get("result", item.get("error"))
        parts.append(said if isinstance(said, str) else result_text(said))
    return "\n".join(p for p in parts if p)


def _manifest_path(path: Path) -> Path:
    return path.with_name(f"{path.parent.name}.json")


def _json(path: Path, bounds: Bounds | None) -> dict[str, Any]:
    try:
        found = loads_json(read_session_file(path, document=True, bounds=bounds).data)
    except (OSError, JsonRejected):
        return {}
    return found if isinstance(found, dict) else {}


def _cwd(manifest: dict[str, Any]) -> str | None:
    for key in ("cwd", "workspace_root"):
        if isinstance(manifest.get(key), str) and manifest[key]:
            return str(manifest[key])
    return None


def _head(manifest: dict[str, Any], path: Path, st: Any) -> Head:
    metadata = manifest.get("metadata")
    title = metadata.get("title") if isinstance(metadata, dict) else None
    if not isinstance(title, str) or not title.strip():
        prompt = manifest.get("prompt")
        said = _user_text(prompt) if isinstance(prompt, str) else []
        title = said[0][1]["text"] if said and said[0][0] == "user_message" else None
    ident = manifest.get("session_id")
    return Head(
        st.st_ino, st.st_size, False, _cwd(manifest),
        ident if isinstance(ident, str) and ident == path.parent.name else path.parent.name,
        " ".join(str(title).split())[:TITLE_CHARS] if title else None,
        time_text(manifest.get("started_at")),
    )  # fmt: skip


def _first_words(path: Path) -> str | None:
    """The first words the user typed (a manifest without a title or prompt)."""
    try:
        doc = loads_json(read_session_file(path, document=True).data)
    except (OSError, JsonRejected):
        return None
    for message in doc.get("messages") or [] if isinstance(doc, dict) else []:
        if isinstance(message, dict) and message.get("role") == "user":
            for etype, fields in _message_events("user", message):
                if etype == "user_message":
                    return " ".join(str(fields["text"]).split())[:TITLE_CHARS]
    return None


FORMAT = ClineCliFormat()
