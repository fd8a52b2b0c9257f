"""util-linux ``script`` typescripts and tmux ``pipe-pane`` logs → terminal output bytes.

A typescript is the raw output framed by two lines that ``script`` itself writes:
``Script started on <time> [COMMAND="…" TERM="…" …]`` and ``\\nScript done on <time>
[COMMAND_EXIT_CODE="N"]`` (older versions: a localized date and no brackets). Both are dropped.
A timing file (classic ``delay bytes`` lines, or the advanced ``O/I/H/S`` format) is advisory:
it can only add a start time, a duration and an exit code; the bytes always come from the
typescript. A tmux ``pipe-pane`` log is the raw output with no framing at all.
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta

from engine.importers.recording import Recording, RecordingError, program_name

STARTED = b"Script started on "
"""The first bytes of every typescript written without ``-q``: the format's signature."""

_HEADER_RE = re.compile(rb"\AScript started on ([^\[\n]*?)[ \t]*(?:\[(.*)\])?[ \t]*\r?\n")
_TRAILER_RE = re.compile(rb"\r?\n?Script done on ([^\[\n]*?)[ \t]*(?:\[(.*)\])?[ \t]*\r?\n?")
DONE = b"Script done on "
"""The trailer ``script`` writes on its own line when the session ends."""
_ATTR_RE = re.compile(r'([A-Z_]+)="(.*?)"(?=\s+[A-Z_]+="|\s*<|\s*$)')
"""``KEY="value"`` in the bracket of a header or trailer. ``script`` writes the value as it is,
inner quotes unescaped (``COMMAND="echo "hi""``): a value ends at the quote before the next
attribute, the ``<not executed on terminal>`` note or the end, not at the first quote."""


def parse_script(data: bytes, timing: bytes | None = None) -> Recording:
    """Parse a typescript (and, when given, its timing file).

    Raises:
        RecordingError: the file does not start with the ``Script started on`` line.
    """
    header = _HEADER_RE.match(data)
    if header is None:
        raise RecordingError("not a script typescript (no 'Script started on' line)")
    attrs = _attrs(header.group(2))
    body = data[header.end() :]
    trailer = _trailer(body)
    done_attrs: dict[str, str] = {}
    ended = None
    if trailer is not None:
        body = body[: trailer.start()]
        done_attrs = _attrs(trailer.group(2))
        ended = _when(trailer.group(1))
    started = _when(header.group(1))
    hints = parse_timing(timing) if timing is not None else {}
    warnings = [hints.pop("warning")] if "warning" in hints else []
    started = started or _hint_time(hints.get("START_TIME"))
    if ended is None and started is not None and "DURATION" in hints:
        ended = started + timedelta(seconds=float(hints["DURATION"]))
    command = attrs.get("COMMAND") or hints.get("COMMAND")
    shell = attrs.get("SHELL") or hints.get("SHELL")
    exit_code = _int(done_attrs.get("COMMAND_EXIT_CODE") or hints.get("EXIT_CODE"))
    return Recording(
        output=body,
        format="script",
        title=command,
        command=command,
        tool=program_name(command) or program_name(shell),
        created_at=started,
        ended_at=ended,
        exit_code=exit_code,
        warnings=tuple(warnings),
        finished=trailer is not None,
    )


def parse_tmux_log(data: bytes) -> Recording:
    """A ``pipe-pane`` log is the pane's raw output: everything is kept.

    Raises:
        RecordingError: the file is empty.
    """
    if not data:
        raise RecordingError("the recording is empty")
    return Recording(output=data, format="tmux", tool="tmux")


def parse_timing(timing: bytes) -> dict[str, str]:
    """What a timing file adds: ``DURATION`` (sum of delays) and the advanced format's ``H``
    entries (``START_TIME``, ``COMMAND``, ``EXIT_CODE``…). Unreadable lines are ignored; if none
    could be read, a ``warning`` entry says so."""
    hints: dict[str, str] = {}
    total = 0.0
    good = bad = 0
    for raw in timing.decode("utf-8", errors="replace").splitlines():
        parts = raw.split(" ", 3)
        try:
            if len(parts) == 2:  # classic: "<delay> <bytes>"
                total += float(parts[0])
                int(parts[1])
            elif parts[0] in ("O", "I", "S"):
                total += float(parts[1])
            elif parts[0] == "H" and len(parts) == 4:
                total += float(parts[1])
                hints[parts[2]] = parts[3]
            else:
                raise ValueError(raw)
            good += 1
        except (ValueError, IndexError):
            bad += 1
    if good:
        hints["DURATION"] = hints.get("DURATION", repr(total))
    elif bad:
        hints["warning"] = "timing file not understood; ignored"
    return hints


def _trailer(body: bytes) -> re.Match[bytes] | None:
    """The ``Script done on`` line when it is the last line of ``body`` (searched from the end:
    the body can be hundreds of megabytes)."""
    at = body.rfind(DONE)
    if at < 0 or (at > 0 and body[at - 1 : at] != b"\n"):
        return None
    start = at - 1 if at > 0 else at
    start = start - 1 if start > 0 and body[start - 1 : start] == b"\r" else start
    found = _TRAILER_RE.fullmatch(body, start)
    return found


def _attrs(raw: bytes | None) -> dict[str, str]:
    if not raw:
        return {}
    text = raw.decode("utf-8", errors="replace")
    return dict(_ATTR_RE.findall(text))


def _when(raw: bytes) -> datetime | None:
    text = raw.decode("utf-8", errors="replace").strip()
    return _hint_time(text)


def _hint_time(text: str | None) -> datetime | None:
    """ISO times with a zone (util-linux >= 2.35). Older localized dates (``Tue 02 Jan 2024
    10:00:00 AM CET``) carry no usable zone: the file's mtime is a better guess than a parse."""
    if not text:
        return None
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        return None
    return moment if moment.tzinfo is not None else None


def _int(raw: str | None) -> int | None:
    try:
        return int(raw) if raw is not None else None
    except ValueError:
        return None
