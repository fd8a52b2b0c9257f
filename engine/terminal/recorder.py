"""Recording a live terminal session into ``.ade/`` (``ade term``), independent of the PTY.

The log is appended and flushed on every read, so the ingester (which never consumes an unforced
partial tail) can index finished lines while the session still runs. The session file is written
at the start without ``endedAt`` and rewritten atomically at the end with ``endedAt`` and
``exitCode``. OSC 133 command boundaries go to ``<id>.commands.jsonl`` beside the log.
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import BinaryIO

from engine.basics.pretty_json import json_bytes
from engine.importers.store import (
    iso,
    session_json_path,
    session_record,
    terminal_log_path,
    write_atomic,
)
from engine.project.model import Project
from engine.terminal.osc133 import CommandMark, Osc133Tracker


def new_terminal_id(now: datetime) -> str:
    """``term-<UTC time>-<6 random hex>``: sortable by start, unique without coordination."""
    return f"term-{now.astimezone(UTC).strftime('%Y%m%dT%H%M%SZ')}-{secrets.token_hex(3)}"


def commands_path(log_path: Path) -> Path:
    """The OSC 133 sidecar of a log: ``<id>.commands.jsonl`` in the same folder."""
    return log_path.with_name(log_path.name.removesuffix(".log") + ".commands.jsonl")


class TerminalRecorder:
    """Owns one terminal session's files from start to finish.

    Use as ``start()``, any number of ``write()``, then ``finish()`` (also after an error, so
    the session gets its ``endedAt``).
    """

    def __init__(
        self,
        project: Project,
        *,
        title: str,
        command: str | None,
        tool: str,
        lane_id: str | None,
        clock: Callable[[], datetime] = lambda: datetime.now(UTC),
        session_id: str | None = None,
    ) -> None:
        self.project = project
        self._clock = clock
        self.started_at = clock()
        self.session_id = session_id or new_terminal_id(self.started_at)
        self.log_path = terminal_log_path(project, self.session_id)
        self.session_path = session_json_path(project, self.session_id)
        self._fields = {"title": title, "command": command, "tool": tool, "lane_id": lane_id}
        self._log: BinaryIO | None = None
        self._marks: BinaryIO | None = None
        self._size = 0
        self._tracker = Osc133Tracker()

    def start(self) -> None:
        """Create the (empty) log, then the session file: a watcher sees a session with a log."""
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        self._log = self.log_path.open("ab")
        self._size = self._log.tell()
        self._write_session(ended_at=None, exit_code=None)

    def write(self, data: bytes) -> list[CommandMark]:
        """Append raw output and flush it; record any command that finished in it."""
        if self._log is None or not data:
            return []
        offset = self._size
        self._log.write(data)
        self._log.flush()
        self._size += len(data)
        finished = self._tracker.feed(data, offset, self._clock())
        for mark in finished:
            self._record_mark(mark)
        return finished

    def finish(self, exit_code: int | None) -> None:
        """Close the files and stamp ``endedAt`` and ``exitCode`` on the session."""
        for handle in (self._log, self._marks):
            if handle is not None:
                handle.close()
        self._log = self._marks = None
        self._write_session(ended_at=self._clock(), exit_code=exit_code)

    def _record_mark(self, mark: CommandMark) -> None:
        if self._marks is None:
            self._marks = commands_path(self.log_path).open("ab")
        line = {
            "command": mark.command,
            "exitCode": mark.exit_code,
            "promptStart": mark.prompt_start,
            "outputStart": mark.output_start,
            "end": mark.end,
            "endedAt": iso(self._clock()),
        }
        if mark.started_at is not None:
            line["startedAt"] = iso(mark.started_at)
        if mark.cwd is not None:
            line["cwd"] = mark.cwd
        self._marks.write(json.dumps(line, ensure_ascii=False).encode("utf-8") + b"\n")
        self._marks.flush()

    def _write_session(self, ended_at: datetime | None, exit_code: int | None) -> None:
        record = session_record(
            self.session_id,
            title=str(self._fields["title"]),
            lane_id=self._fields["lane_id"],
            created_at=self.started_at,
            ended_at=ended_at,
            tool=str(self._fields["tool"]),
            command=self._fields["command"],
            exit_code=exit_code,
            source="ade",
            updated_at=ended_at or self.started_at,
        )
        write_atomic(self.session_path, json_bytes(record))
