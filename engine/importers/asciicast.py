"""asciicast v1, v2 and v3 (asciinema) → the output stream of a terminal recording.

v2: a header object on the first line, then ``[time, code, data]`` events where ``time`` is
seconds since the start. v3: the header carries ``term: {cols, rows, type}``, event times are
intervals since the previous event, ``#`` lines are comments, and an ``x`` event carries the exit
status. Codes: ``o`` output, ``i`` input, ``m`` marker, ``r`` resize, ``x`` exit — only output
belongs in the log. v1 is one JSON object with a ``stdout`` list of ``[delay, text]``.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from typing import Any

from engine.importers.recording import Recording, RecordingError, program_name
from engine.project.safe_io import JsonRejected, loads_json


def parse_asciicast(data: bytes) -> Recording:
    """Parse an asciicast file (any version).

    A torn last line (the recorder was killed mid-write) is dropped with a warning; a malformed
    line anywhere else is an error, since the output would silently miss a piece.

    Raises:
        RecordingError: not an asciicast, an unsupported version, or a malformed event.
    """
    text = data.decode("utf-8", errors="replace").lstrip("\ufeff")
    lines = text.split("\n")
    header = _loads(lines[0], "header")
    if not isinstance(header, dict):
        raise RecordingError("asciicast header is not a JSON object")
    version = header.get("version")
    if version == 1 or (version is None and "stdout" in header):
        return _v1(_loads(text, "file"))
    if version not in (2, 3):
        raise RecordingError(f"unsupported asciicast version {version!r} (2 and 3 are)")
    return _events(header, lines[1:], relative=version == 3)


def _loads(text: str, what: str) -> Any:
    try:
        return loads_json(text)
    except JsonRejected:  # nesting too deep included
        raise RecordingError(f"asciicast {what} is not valid JSON") from None


def _start(header: dict[str, Any]) -> datetime | None:
    stamp = header.get("timestamp")
    if isinstance(stamp, bool) or not isinstance(stamp, int | float) or stamp <= 0:
        return None
    try:
        return datetime.fromtimestamp(stamp, UTC)
    except (OverflowError, OSError, ValueError):
        return None


def _events(header: dict[str, Any], lines: list[str], relative: bool) -> Recording:
    chunks: list[str] = []
    clock = 0.0
    exit_code: int | None = None
    warnings: list[str] = []
    last = max((i for i, line in enumerate(lines) if line.strip()), default=-1)
    for number, line in enumerate(lines, start=2):
        if not line.strip() or (relative and line.lstrip().startswith("#")):
            continue
        try:
            when, code, payload = _event(line)
        except RecordingError:
            if number - 2 == last:
                warnings.append("torn last event dropped")
                break
            raise RecordingError(f"asciicast line {number} is not a valid event") from None
        clock = clock + when if relative else max(clock, when)
        if code == "o":
            chunks.append(payload)
        elif code == "x":
            exit_code = _exit_status(payload)
    start = _start(header)
    command = header.get("command") if isinstance(header.get("command"), str) else None
    env = header.get("env")
    shell = env.get("SHELL") if isinstance(env, dict) else None
    shell = shell if isinstance(shell, str) else None
    title = header.get("title") if isinstance(header.get("title"), str) else None
    return Recording(
        output="".join(chunks).encode("utf-8"),
        format="asciicast",
        title=title or command,
        command=command,
        tool=program_name(command) or program_name(shell),
        created_at=start,
        ended_at=start + timedelta(seconds=clock) if start else None,
        exit_code=exit_code,
        warnings=tuple(warnings),
    )


def _event(line: str) -> tuple[float, str, str]:
    try:
        value = loads_json(line)
    except JsonRejected:
        raise RecordingError("bad event") from None
    if not isinstance(value, list) or len(value) < 3:
        raise RecordingError("bad event")
    when, code, payload = value[0], value[1], value[2]
    if isinstance(when, bool) or not isinstance(when, int | float) or when < 0:
        raise RecordingError("bad event")
    if not isinstance(code, str):
        raise RecordingError("bad event")
    return float(when), code, payload if isinstance(payload, str) else json.dumps(payload)


def _exit_status(payload: str) -> int | None:
    try:
        return int(payload.strip())
    except ValueError:
        return None


def _v1(value: Any) -> Recording:
    if not isinstance(value, dict) or not isinstance(value.get("stdout"), list):
        raise RecordingError("asciicast v1 file has no stdout list")
    chunks: list[str] = []
    for frame in value["stdout"]:
        if isinstance(frame, list) and len(frame) >= 2 and isinstance(frame[1], str):
            chunks.append(frame[1])
        else:
            raise RecordingError("asciicast v1 stdout holds a malformed frame")
    command = value.get("command") if isinstance(value.get("command"), str) else None
    title = value.get("title") if isinstance(value.get("title"), str) else None
    return Recording(
        output="".join(chunks).encode("utf-8"),
        format="asciicast",
        title=title or command,
        command=command,
        tool=program_name(command),
    )
