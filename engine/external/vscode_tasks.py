"""Tasks of the VS Code agent extensions that keep one folder per task (Cline, and Roo Code, its
fork): ``<VS Code user data>/User/globalStorage/<extension id>/tasks/<task id>/``.

Where (VS Code's ``src/vs/platform/environment/node/userDataPath.ts``, microsoft/vscode): the user
data folder is ``$VSCODE_PORTABLE/user-data`` (lines 52-56; a portable install sets the variable
itself, ``src/bootstrap-node.ts`` ``configurePortable``, and so do the terminals it opens), else
``$VSCODE_APPDATA/<product>`` (58-62), else ``--user-data-dir`` (67-71), else (73-91) on Windows
``%APPDATA%/<product>`` (or ``%USERPROFILE%/AppData/Roaming/<product>``), on macOS
``~/Library/Application Support/<product>``, else ``$XDG_CONFIG_HOME/<product>`` or
``~/.config/<product>``. Read here (``engine.external.roots.vscode_user_data``): the portable
user data first, then ``$VSCODE_APPDATA`` or the platform's default for each product of
``engine.agent_table.EDITORS``; a ``--user-data-dir`` is not followed (it is in no file nor
variable a reader can see). An extension whose setting moves its storage (Roo Code's
``customStoragePath``, ``engine.external.vscode_settings``) is read there too; a settings file
that cannot be read is counted once, ``unreadable``.

Each task folder holds ``ui_messages.json`` — the messages the extension showed, rewritten as the
task goes (``ClineMessage[]``: ``{ts, type: "say" | "ask", say | ask, text, images, partial}``)
— and ``api_conversation_history.json``, what was sent to the model (with the editor's
``<environment_details>`` and the extension's own wrappers injected into user turns). The shown
messages are read: they hold the user's words without what the extension injected. A task is
re-derived whole when its file changes. Which folder a task ran in is said by its history item
(Cline: ``cwdOnTaskInitialization`` in ``state/taskHistory.json``; Roo Code: ``workspace`` in
the task's ``history_item.json``); a task whose item names no folder is counted ``no cwd``.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, ClassVar

from engine.external.agent_format import AgentFormat, Hint
from engine.external.finding import acceptable, lane_of
from engine.external.heads import HeadCache
from engine.external.lines import digest
from engine.external.roots import unreadable_settings
from engine.external.session_file import read_session_file
from engine.external.skips import skip, skip_file
from engine.project.model import ChatEvent, ChatEventType, Lane, SessionMeta, is_valid_session_id
from engine.project.safe_io import JsonRejected, loads_json
from engine.project.tally import WarningTally

UI_FILE = "ui_messages.json"
TITLE_CHARS = 120

Rule = tuple[ChatEventType, str] | None
"""What a shown message becomes: its event type and the field of its text; None: nothing."""

_TOOL: Rule = ("tool_call", "tool")
_RESULT: Rule = ("tool_result", "output")
_SAID: Rule = ("assistant_message", "text")
_USER: Rule = ("user_message", "text")
_ASKED: Rule = ("assistant_message", "question")

SAYS: dict[str, Rule] = {
    "task": _USER, "user_feedback": _USER, "text": _SAID, "completion_result": _SAID,
    "plan_completion_result": _SAID, "tool": _TOOL, "command": ("tool_call", "command"),
    "command_output": _RESULT, "use_mcp_server": _TOOL, "mcp_server_response": _RESULT,
    "browser_action": ("tool_call", "browser"), "browser_action_result": _RESULT,
    "subtask_result": _RESULT, "codebase_search_result": _RESULT,
}  # fmt: skip
"""The ``say`` messages that hold what was said or done (Cline's ``ClineSay``, Roo Code's
``clineSays``). The others are the extension's own: reasoning (hidden), request and retry
markers, checkpoints, errors and warnings, progress, context condensing."""

QUIET_SAYS = frozenset({
    "reasoning", "error", "api_req_started", "api_req_finished", "api_req_retried",
    "api_req_retry_delayed", "api_req_rate_limit_wait", "api_req_deleted", "error_retry",
    "user_feedback_diff", "shell_integration_warning", "shell_integration_warning_with_suggestion",
    "browser_action_launch", "mcp_server_request_started", "mcp_notification", "diff_error",
    "deleted_api_reqs", "clineignore_error", "rooignore_error", "command_permission_denied",
    "checkpoint_created", "checkpoint_saved", "load_mcp_documentation", "info", "task_progress",
    "hook_status", "hook_output_stream", "subagent", "use_subagents", "subagent_usage",
    "conditional_rules_applied", "compaction", "condense_context", "condense_context_error",
    "sliding_window_truncation", "user_edit_todos", "too_many_tools_warning", "image",
})  # fmt: skip

ASKS: dict[str, Rule] = {
    "followup": _ASKED, "plan_mode_respond": ("assistant_message", "response"),
    "act_mode_respond": ("assistant_message", "response"), "completion_result": _SAID,
    "command": ("tool_call", "command"), "command_output": _RESULT, "tool": _TOOL,
    "use_mcp_server": _TOOL, "browser_action_launch": ("tool_call", "browser"),
}  # fmt: skip
"""The ``ask`` messages that hold what was said or asked (``ClineAsk``); the others are the
extension's prompts to go on (resume, retry, limits, condense, report)."""

QUIET_ASKS = frozenset({
    "api_req_failed", "resume_task", "resume_completed_task", "mistake_limit_reached",
    "new_task", "condense", "summarize_task", "report_bug", "use_subagents",
    "auto_approval_max_req_reached",
})  # fmt: skip


class TaskFolderFormat(AgentFormat):
    """An extension's task folders under each VS Code product's global storage."""

    derived: ClassVar[bool] = True
    no_resume: ClassVar[str] = "its tasks are reopened from its task history in the editor"
    hidden: ClassVar[str] = (
        "reasoning, request and checkpoint markers, what it injects into the model's turns"
    )
    first_text_is_task: ClassVar[bool] = True
    """The task is shown as the first ``text`` message (Roo Code's ``startTask``; real Cline
    tasks do the same: ``{"say": "text", "text": <the task>, "conversationHistoryIndex": -1}``),
    read as the user's; ``say: task`` is the user's too."""

    def tasks_folders(self, environ: Mapping[str, str]) -> list[Path]:
        """Each product's ``tasks`` folder (the session folders named ``tasks``)."""
        return [p for p in self.session_folders(environ) if p.name == "tasks"]

    def task_items(
        self, storage: Path, tally: WarningTally
    ) -> dict[str, tuple[str | None, str, int]]:
        """``{task id: (folder or None, title, started ms)}`` of the extension's storage."""
        raise NotImplementedError

    def count_sessions(self, environ: Mapping[str, str], lanes: object) -> int:
        del lanes
        return sum(
            len(self.task_items(folder.parent, WarningTally()))
            for folder in self.tasks_folders(environ)
        )

    def named_folders(self, environ: Mapping[str, str], limit: int) -> list[str]:
        items = [
            item for folder in self.tasks_folders(environ)
            for item in self.task_items(folder.parent, WarningTally()).values()
        ]  # fmt: skip
        items.sort(key=lambda item: item[2], reverse=True)
        return [folder for folder, _, _ in items[:limit] if folder]

    def sessions(
        self, lanes: list[Lane], tally: WarningTally, environ: Mapping[str, str], heads: HeadCache
    ) -> list[SessionMeta]:
        del heads  # the history names every task's folder
        for settings in unreadable_settings(self.name, environ):  # where the storage may be
            skip_file(tally, self.name, "unreadable", settings)
        bounds = self.bounds(environ, lanes)
        found: list[SessionMeta] = []
        for tasks in self.tasks_folders(environ):
            if not tasks.is_dir():
                continue
            for ident, (folder, title, started) in sorted(
                self.task_items(tasks.parent, tally).items()
            ):
                path = tasks / ident / UI_FILE
                if folder is None:
                    skip_file(tally, self.name, "no cwd", path)
                    continue
                lane = lane_of(lanes, folder)
                sid = f"{self.name}-{ident}"
                if lane is None or not path.exists():
                    continue
                if not is_valid_session_id(sid):
                    skip_file(tally, self.name, "no id", path)
                    continue
                if not acceptable(path, bounds, self.name, tally, tasks):
                    continue
                try:
                    mtime = datetime.fromtimestamp(path.stat().st_mtime, UTC)
                except OSError:
                    continue
                start = _ms(started) or mtime
                found.append(SessionMeta(
                    id=sid, kind="chat", title=title or sid, lane_id=lane.id, created_at=start,
                    updated_at=max(start, mtime), tool=self.name, source=self.name,
                    transcript_path=path,
                ))  # fmt: skip
        return found

    def owner_hint(self, path: Path, environ: Mapping[str, str], memo: object) -> Hint | None:
        del memo
        if not any(root in path.parents for root in self.watch_roots(environ)):
            return None
        return "foreign" if path.name == UI_FILE else "relist"  # a history file: a new task

    def owns(self, path: Path, environ: Mapping[str, str]) -> bool:
        return path.name == UI_FILE and super().owns(path, environ)

    def derived_events(
        self, path: Path, tally: WarningTally, source: str
    ) -> tuple[list[ChatEvent] | None, int]:
        try:
            doc = loads_json(read_session_file(path, document=True).data)
        except (OSError, JsonRejected):
            return None, 0
        if not isinstance(doc, list):
            skip(tally, source, "not a session")
            return [], 0
        events: list[ChatEvent] = []
        seen: set[str] = set()
        command: tuple[str, ChatEvent | None] | None = None  # the last command and its output
        for n, message in enumerate(doc):
            if not isinstance(message, dict):
                skip(tally, source, "bad json")
                continue
            found = self._events(n, message)
            if found is None:
                skip(tally, source, "unknown type")
                continue
            ident = str(message.get("ts", n))
            ident = ident if ident not in seen else f"{ident}.{n}"
            seen.add(ident)
            kind = message.get("say") or message.get("ask")
            if kind == "command":
                command = (ident, None)
            elif kind == "command_output" and command is not None and found:
                command = _command_output(command, found[0][1], events, n, message)
                continue
            for etype, fields in found:  # a tool's call and what it showed share the id
                fields.setdefault("id", ident)
                events.append(ChatEvent(n, _ms(message.get("ts")), etype, n, fields))
        return events, 0

    def _events(self, n: int, message: dict[str, Any]) -> list[Said] | None:
        """What shown message ``n`` says (None: a kind the extension does not write)."""
        kind = message.get("type")
        rules, quiet = (SAYS, QUIET_SAYS) if kind == "say" else (ASKS, QUIET_ASKS)
        name = message.get("say") if kind == "say" else message.get("ask")
        if kind not in ("say", "ask") or not isinstance(name, str):
            return None
        rule = rules.get(name)
        if self.first_text_is_task and n == 0 and (kind, name) == ("say", "text"):
            rule = _USER
        if rule is None:
            return [] if name in quiet else None
        text = message.get("text") if isinstance(message.get("text"), str) else ""
        etype, field = rule
        if etype == "tool_call":
            return _tool_call(field, str(text))
        if field in ("question", "response"):
            text = _json_field(str(text), field)
        if not str(text).strip():
            return []
        return [(etype, {"output" if etype == "tool_result" else "text": text})]


Said = tuple[ChatEventType, dict[str, Any]]


def _command_output(
    command: tuple[str, ChatEvent | None], fields: dict[str, Any], events: list[ChatEvent],
    n: int, message: dict[str, Any],
) -> tuple[str, ChatEvent | None]:  # fmt: skip
    """A command's output: the chunks the extension shows after one command, up to the next,
    are its one result (the extensions' ``combineCommandSequences`` joins them so)."""
    ident, result = command
    if result is not None:
        result.data["output"] = f"{result.data['output']}\n{fields['output']}"
        return command
    result = ChatEvent(n, _ms(message.get("ts")), "tool_result", n, {**fields, "id": ident})
    events.append(result)
    return ident, result


PATH_CONTENT = frozenset({"readFile"})
"""Tools whose ``content`` is the file's absolute path, not what the tool returned (real Cline
tasks: ``{"tool":"readFile","path":"pubspec.yaml","content":"c:\\Users\\…\\pubspec.yaml"}``;
the file's text goes to the model only)."""

_NOT_INPUT = frozenset({"tool", "content", "diff", "operationIsLocatedInWorkspace"})
"""A tool message's fields that are not its input (its body, and where the file lies)."""


def _tool_call(kind: str, text: str) -> list[Said]:
    """A tool message: a command's line, or the JSON the extension shows (``ClineSayTool``:
    ``tool``, ``path``, ``regex``…, the file's ``content`` or ``diff`` as its result;
    ``use_mcp_server``: ``serverName``, ``toolName``, ``arguments``)."""
    if kind in ("command", "browser"):
        name = "execute_command" if kind == "command" else "browser"
        return [("tool_call", {"name": name, "input": text})]
    try:
        data = loads_json(text) if text else None
    except JsonRejected:
        data = None
    if not isinstance(data, dict):
        return [("tool_call", {"name": "tool", "input": digest(text or None)})]
    name = data.get("tool") or data.get("toolName") or "tool"
    shown = {k: v for k, v in data.items() if k not in _NOT_INPUT and v}
    found: list[Said] = [("tool_call", {"name": str(name), "input": digest(shown or None)})]
    body = data.get("diff") or (data.get("content") if name not in PATH_CONTENT else None)
    if isinstance(body, str) and body.strip():
        found.append(("tool_result", {"output": body}))
    return found


def _json_field(text: str, field: str) -> str:
    """A followup's question or a plan's response: JSON, or plain text in older tasks."""
    try:
        data = loads_json(text) if text.lstrip().startswith("{") else None
    except JsonRejected:
        return text
    value = data.get(field) if isinstance(data, dict) else text
    return value if isinstance(value, str) else ""


def title_of(task: Any) -> str:
    """A task's first words, as a title."""
    return " ".join(task.split())[:TITLE_CHARS] if isinstance(task, str) else ""


def read_json(path: Path) -> Any:
    """A JSON document, None when missing, unreadable or not JSON."""
    try:
        return loads_json(read_session_file(path, document=True).data)
    except (OSError, JsonRejected):
        return None


def _ms(value: Any) -> datetime | None:
    if not isinstance(value, int | float) or isinstance(value, bool) or value <= 0:
        return None
    try:
        return datetime.fromtimestamp(value / 1000, UTC)
    except (OverflowError, OSError, ValueError):
        return None
