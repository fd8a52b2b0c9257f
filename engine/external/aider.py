"""Aider chat history: ``<worktree>/.aider.chat.history.md``, beside the repository.

Format (Aider-AI/aider ``aider/io.py``: ``InputOutput.__init__``, ``user_input``, ``ai_output``,
``tool_output``, ``append_chat_history``; the default path is ``aider/args.py``
``default_chat_history_file``: the git working tree root, else the current folder): an append-only
Markdown log. Each run starts with ``# aider chat started at YYYY-MM-DD HH:MM:SS`` (local time);
a user input is ``#### `` lines (``<blank>`` for an empty one), aider's own notices and command
output are ``> `` block-quote lines, anything else is the model's reply (inside a reply's code
fence every line is reply: edit blocks hold ``>>>>>>> REPLACE``). One history file is one
session here (its runs are the file's sections); a block is a run of lines of one kind, keyed by
the byte offset of its first line, so a later append never renumbers it. No tool calls exist in
this format (edits are part of the reply text); a reasoning model's thinking in a reply is left out;
an empty input (``#### <blank>``) is counted as skipped (``no message``).
``.aider.input.history`` (prompt_toolkit's ``FileHistory``) repeats the ``####`` inputs and is not
read. Aider cannot resume a session by id (``--restore-chat-history`` replays the whole file).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any, ClassVar

from engine.basics.digests import sha1_hex
from engine.external.agent_format import TRUNCATED_MARK, AgentFormat, Hint, Parsed
from engine.external.finding import HeadFields, acceptable, scan_head, session_meta
from engine.external.heads import HeadCache
from engine.external.roots import AIDER_HISTORY_FILE
from engine.external.skips import skip
from engine.project.model import ChatEvent, ChatEventType, Lane, SessionMeta
from engine.project.safe_io import Bounds
from engine.project.tally import WarningTally

HISTORY_FILE = AIDER_HISTORY_FILE

_STARTED_RE = re.compile(rb"^# aider chat started at (\d{4}-\d\d-\d\d \d\d:\d\d:\d\d)\s*$")
_USER = b"#### "


def aider_session_id(lane_id: str, path: Path) -> str:
    """``aider-<lane>`` when the lane id is a valid session id tail, else a hash of the path."""
    if re.fullmatch(r"[A-Za-z0-9._-]{1,100}", lane_id):
        return f"aider-{lane_id}"
    return "aider-" + sha1_hex(str(path).encode())[:12]


@dataclass
class AiderHead:
    """The first user input (the title) and the first run's start time."""

    first_user: str | None = None
    first_ts: str | None = None


def _kind(line: bytes) -> str:
    if _STARTED_RE.match(line):
        return "start"
    if line.startswith(_USER) or line.rstrip() == b"####":
        return "user"
    if line.startswith(b"> ") or line.rstrip() == b">":
        return "tool"
    return "blank" if not line.strip() else "reply"


def parse_aider(
    data: bytes, base: int, state: dict[str, Any], head: AiderHead | None = None,
    tally: WarningTally | None = None, source: str = "",
) -> tuple[list[ChatEvent], int]:  # fmt: skip
    """Blocks of the complete lines of ``data`` (from byte ``base``) and the bytes consumed.

    ``state["started"]`` carries the current run's start time across passes. An empty input
    (``#### <blank>``: Enter pressed on an empty prompt, ``InputOutput.user_input``) is counted in
    ``tally`` under ``source`` (``no message``); a reply that is reasoning alone is hidden.
    """
    consumed = data.rfind(b"\n") + 1
    events: list[ChatEvent] = []
    block: list[bytes] = []
    kind, start = "", 0

    def flush() -> None:
        if block and kind in ("user", "tool", "reply"):
            event = _block_event(kind, block, base + start, state.get("started"))
            blank = sum(1 for ln in block if ln.removeprefix(b"####").strip() == b"<blank>")
            if kind == "user" and blank and tally is not None:
                skip(tally, source, "no message", blank)
            if event is not None:
                events.append(event)
                if head is not None and head.first_user is None and event.type == "user_message":
                    head.first_user = " ".join(str(event.data["text"]).split())[:120]
        block.clear()

    pos, fenced = 0, False
    while pos < consumed:
        end = data.index(b"\n", pos) + 1
        line = data[pos:end].rstrip(b"\r\n")
        line_kind = "reply" if fenced and kind == "reply" else _kind(line)
        if line_kind == "reply" and line.lstrip().startswith(b"```"):
            fenced = not fenced  # inside a code fence every line is reply (edit blocks)
        if line_kind == "blank":
            if kind == "reply":
                block.append(line)  # a blank line inside a reply is part of it
        elif line_kind != kind or line_kind == "start":
            flush()
            kind, start = line_kind, pos
            if line_kind == "start":
                stamp = _STARTED_RE.match(line)
                state["started"] = stamp.group(1).decode() if stamp else None
                if head is not None and head.first_ts is None:
                    head.first_ts = state["started"]
            else:
                block.append(line)
        else:
            block.append(line)
        pos = end
    flush()
    return events, consumed


def _block_event(kind: str, lines: list[bytes], offset: int, started: Any) -> ChatEvent | None:
    text = b"\n".join(lines).decode("utf-8", errors="replace")
    etype: ChatEventType
    if kind == "user":
        parts = [ln.removeprefix("####").strip() for ln in text.split("\n")]
        text = "\n".join(p for p in parts if p != "<blank>").strip()
        etype = "user_message"
    elif kind == "tool":
        text = "\n".join(ln.removeprefix(">").strip() for ln in text.split("\n")).strip()
        etype = "tool_result"
    else:
        text, etype = without_reasoning(text).strip(), "assistant_message"
    if not text:
        return None
    ts = _local_time(started)
    field = "output" if etype == "tool_result" else "text"
    return ChatEvent(offset, ts, etype, offset, {"id": f"b{offset}", field: text})


_TAGGED = re.compile(r"<(thinking-content-[0-9a-f]+)>.*?(?:</\1>|\Z)", re.DOTALL)
_SHOWN = re.compile(r"(?:-{3,}[ \t]*\n)?► \*\*THINKING\*\*.*?(?:-{3,}[ \t]*\n)?► \*\*ANSWER\*\*\n?",
                    re.DOTALL)  # fmt: skip
"""A reasoning model's thinking in a reply, as Aider writes it (Aider-AI/aider
``aider/reasoning_tags.py``: ``REASONING_TAG = "thinking-content-" + <hex>`` around the reasoning,
``REASONING_START``/``REASONING_END`` once replaced for display)."""


def without_reasoning(text: str) -> str:
    """A reply without its reasoning (tagged, or as shown: THINKING … ANSWER)."""
    return _SHOWN.sub("", _TAGGED.sub("", text))


def _local_time(value: Any) -> datetime | None:
    if not isinstance(value, str):
        return None
    try:
        return datetime.strptime(value, "%Y-%m-%d %H:%M:%S").astimezone()  # aider writes local
    except ValueError:
        return None


class Aider(AgentFormat):
    """Aider: one Markdown history per worktree, appended; no home folder at all."""

    name: ClassVar[str] = "aider"
    no_resume: ClassVar[str] = (
        "aider cannot resume a session by id (it only replays the whole history)"
    )
    hidden: ClassVar[str] = (
        "reasoning in a reply (`<thinking-content-…>`, THINKING … ANSWER);"
        " `.aider.input.history` not read"
    )

    def session_folders(self, environ: Mapping[str, str]) -> list[Path]:
        del environ
        return []  # the history sits in each lane: the watcher follows it by ``lane_files``

    def bounds(self, environ: Mapping[str, str], lanes: Sequence[Lane] = ()) -> Bounds:
        del environ
        return Bounds([lane.path for lane in lanes], label="the project's lanes")

    def searched(self, environ: Mapping[str, str], lanes: Sequence[Lane]) -> list[Path]:
        del environ
        return [lane.path / HISTORY_FILE for lane in lanes]

    def count_sessions(self, environ: Mapping[str, str], lanes: Sequence[Lane]) -> int:
        return sum(1 for path in self.searched(environ, lanes) if path.is_file())

    def sessions(
        self, lanes: list[Lane], tally: WarningTally, environ: Mapping[str, str], heads: HeadCache
    ) -> list[SessionMeta]:
        # Per lane by design: no home folder involved; the file must stay inside the lanes.
        bounds = self.bounds(environ, lanes)
        found: list[SessionMeta] = []
        for lane in lanes:
            path = lane.path / HISTORY_FILE
            if not path.exists() or not acceptable(path, bounds, self.name, tally, lane.path):
                continue

            def learn(data: bytes, folder: str = str(lane.path)) -> HeadFields:
                parsed = AiderHead()
                parse_aider(data, 0, {}, parsed)
                return folder, None, parsed.first_user, None

            scanned = scan_head(path, heads, learn, bounds)
            if scanned is None:
                continue
            head, st = scanned
            if not head.title:
                head = dataclasses.replace(head, title=f"aider in {lane.name}")
            meta = session_meta(aider_session_id(lane.id, path), self.name, path, head, st, [lane])
            if meta is not None:
                found.append(meta)
        return found

    def lane_files(self, lanes: Sequence[Lane], environ: Mapping[str, str]) -> list[Path]:
        del environ
        return [lane.path / HISTORY_FILE for lane in lanes]

    def owner_hint(self, path: Path, environ: Mapping[str, str], memo: object) -> Hint | None:
        del environ, memo
        return "relist" if path.name == HISTORY_FILE else None  # a lane's first aider run

    def owns(self, path: Path, environ: Mapping[str, str]) -> bool:
        del environ
        return path.name == HISTORY_FILE

    def parse(
        self, data: bytes, base: int, source: str, tally: WarningTally, state: dict[str, Any],
        seq_base: int = 0,
    ) -> Parsed:  # fmt: skip
        del seq_base
        carried = {"started": state.get("started")}
        events, consumed = parse_aider(data, base, carried, tally=tally, source=source)
        return events, consumed, carried

    def mark_cut_line(self, line: bytes) -> bytes:
        """Aider's history is Markdown, not JSON: the cut head simply ends with the mark."""
        return line.removesuffix(b"\n") + TRUNCATED_MARK.encode() + b"\n"


FORMAT = Aider()
