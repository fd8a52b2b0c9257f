"""An auto-started daemon that failed to start is not spawned again by every search.

Its failure leaves a marker, ``daemon-failed-<crc32 of the socket path>`` in ade's state folder
(``state_folder``): not beside the log, because the commonest lasting failure is a runtime folder
that cannot be made or used (an inherited ``XDG_RUNTIME_DIR`` of another user), where no marker
nor log could go; keyed by the socket so a fixed ``ADE_RUNTIME_DIR`` is not held back by the old
one's failure. It holds the reason and the log's path; its mtime is when it failed. Within
``BACKOFF_S`` of that a search spawns nothing; the first search after it claims the one retry
(it moves the mtime to now, so searches racing it do not spawn too) and a retry that fails writes
a fresh marker. A daemon that binds its socket removes the marker; one that lost the instance
lock (another daemon won) leaves none.

A search checks with one ``stat`` and reads nothing when there is no marker. Whether the user was
told is the marker's mode, so that same ``stat`` answers it: written 0600, made 0400 by the
search that printed the one line on a terminal (a search whose stderr is no terminal tells no
one and leaves it untold).
"""

from __future__ import annotations

import contextlib
import os
import sys
import time

BACKOFF_S = 900.0
"""15 minutes. The failures it is for (a file at the socket path, a folder that is not ours, a
broken install) last until the user acts, and each spawn costs a few hundred ms of one of two
cores: at a search a minute that is 4 spawns an hour instead of 60. Shorter than the 30-minute
idle exit, so a fix is picked up within a stretch of work without asking; ``ade daemon run``
picks it up at once (a daemon that binds clears the marker)."""

MARKER_PREFIX = "daemon-failed-"
_TOLD = 0o400
_UNTOLD = 0o600

_listening = False
"""Set once this process's daemon bound its socket: a failure after that is no start failure."""


def failure_marker(socket: str, env: dict[str, str] | None = None) -> str:
    """Where a failed start of the daemon at ``socket`` is recorded (``state_folder``)."""
    import zlib

    key = zlib.crc32(os.fsencode(socket))
    return os.path.join(state_folder(env), f"{MARKER_PREFIX}{key:08x}")


def state_folder(env: dict[str, str] | None = None) -> str:
    """``ADE_CONFIG_DIR`` when set (a test's or a custom setup's own folder), else the XDG
    state folder: ``$XDG_STATE_HOME/ade``, ``~/.local/state/ade``. Not ``config_folder``: its
    ``platformdirs`` import costs ~10-15 ms, paid by every search that starts a daemon."""
    env = dict(os.environ) if env is None else env
    if override := env.get("ADE_CONFIG_DIR"):
        return override
    if (state := env.get("XDG_STATE_HOME", "").strip()) and os.path.isabs(state):
        return os.path.join(state, "ade")
    if home := env.get("HOME"):
        return os.path.join(home, ".local", "state", "ade")
    from engine.rpc.paths import config_folder

    return config_folder(env)


def may_start(marker: str, *, tell: bool = False, now: float | None = None) -> bool:
    """False while a start failed less than ``BACKOFF_S`` ago; past that, True once (claimed).

    ``tell``: a search, which says so once on stderr when stderr is a terminal.
    """
    try:
        info = os.stat(marker)
    except OSError:
        return True  # the warm path: one failed stat
    now = time.time() if now is None else now
    if abs(now - info.st_mtime) >= BACKOFF_S:  # a clock set back must not hold it forever
        with contextlib.suppress(OSError):
            os.utime(marker, (now, now))
        return True
    if tell and info.st_mode & 0o200 and sys.stderr is not None and sys.stderr.isatty():
        print(_told_line(marker), file=sys.stderr)
        with contextlib.suppress(OSError):
            os.chmod(marker, _TOLD)
    return False


def _told_line(marker: str) -> str:
    reason, log = read_failure(marker)
    where = log or marker
    return (
        f"ade: the background daemon could not start ({reason}; see {where}); searching in process"
    )


def read_failure(marker: str) -> tuple[str, str]:
    """The recorded reason and log path (empty when nothing was logged)."""
    try:
        with open(marker, encoding="utf-8", errors="replace") as file:
            lines = file.read(4096).splitlines()
    except OSError:
        return "reason unknown", ""
    reason = lines[0].strip() if lines else ""
    log = next((line[5:].strip() for line in lines[1:] if line.startswith("log: ")), "")
    return reason or "reason unknown", log


def record_failure(marker: str, reason: str, log: str | os.PathLike[str] | None) -> None:
    """Write the marker (atomically); already told stays told. Never raises: this runs in a
    detached daemon whose stdio is ``/dev/null``, on its way out."""
    if _listening:
        return
    one_line = " ".join(reason.split())[:300]
    text = f"{one_line}\nlog: {'' if log is None else os.fspath(log)}\n"
    try:
        mode = _TOLD if os.stat(marker).st_mode & 0o200 == 0 else _UNTOLD
    except OSError:
        mode = _UNTOLD
    temporary = f"{marker}.{os.getpid()}.tmp"
    try:
        os.makedirs(os.path.dirname(marker), mode=0o700, exist_ok=True)
        fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o600)
        try:
            os.write(fd, text.encode("utf-8", "replace"))
            os.fchmod(fd, mode)
        finally:
            os.close(fd)
        os.replace(temporary, marker)
    except OSError:
        with contextlib.suppress(OSError):
            os.unlink(temporary)


def note_started(socket: str | os.PathLike[str]) -> None:
    """The daemon at ``socket`` is bound: the condition that stopped earlier starts is gone."""
    global _listening
    _listening = True
    with contextlib.suppress(OSError):
        os.unlink(failure_marker(os.fspath(socket)))


def failure_lines(socket: str, now: float | None = None) -> list[str]:
    """What ``ade daemon status`` says of the last failed start (nothing when none is kept)."""
    marker = failure_marker(socket)
    try:
        info = os.stat(marker)
    except OSError:
        return []
    now = time.time() if now is None else now
    reason, log = read_failure(marker)
    ago = max(0.0, now - info.st_mtime)
    left = BACKOFF_S - ago
    retry = "the next `ade search` tries again"
    if 0 < left <= BACKOFF_S:
        retry += f" in {int(-(-left // 60))} min"  # rounded up: never "in 0 min"
    lines = [f"the last auto-started daemon could not start ({ago / 60:.0f} min ago): {reason}"]
    lines.append(f"  see {log or marker}; {retry} (`ade daemon run` starts one now)")
    return lines
