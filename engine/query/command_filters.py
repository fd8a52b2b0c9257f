"""Parsing ``exit:``, ``cwd:`` and ``took:``: atuin's filters over shell commands (docs/terminal.md).

``exit:0`` / ``exit:1,2`` / ``exit:ok`` / ``exit:fail`` (any status but 0); ``cwd:/abs/dir`` (that
folder or below), ``cwd:~/dir``, ``cwd:src`` (a folder named so, or a path ending so, and below);
``took:5s`` or ``took:>5s`` (at least), ``took:<500ms`` (less than), ``took:1s..1m`` (between),
in ``ms``, ``s``, ``m`` or ``h`` (a bare number is seconds). Several ``exit:`` or ``cwd:`` allow
any of them; several ``took:`` all apply. Any of them narrows the search to terminal commands.
"""

# warm path: a warm `ade search` imports this; keep its imports light (ARCHITECTURE: The warm path)

from __future__ import annotations

import functools
import os
import re

import msgspec

from engine.basics.caller_env import current_environ
from engine.errors import UsageError
from engine.index.command_sql import CommandFilter


@functools.cache
def _duration_re() -> re.Pattern[str]:
    """A ``took:`` duration, compiled on first use (only a ``took:`` filter reads one)."""
    return re.compile(r"(\d{1,9}(?:\.\d{1,3})?)(ms|s|m|h)?")


_UNIT_MS = {"ms": 1, "s": 1000, "m": 60_000, "h": 3_600_000}
_EXIT_WORDS = {"ok": (0,), "success": (0,)}
_FAIL_WORDS = ("fail", "failed", "error", "nonzero")
_TOOK_HELP = "use took:5s (at least), took:<500ms (under) or took:1s..2m, in ms, s, m or h"


def add_exit(f: CommandFilter | None, value: str) -> CommandFilter:
    """``f`` also allowing the statuses ``value`` names.

    Raises:
        UsageError: not a status number, ``ok`` or ``fail``.
    """
    f = f or CommandFilter()
    codes, nonzero = list(f.exit_codes), f.exit_nonzero
    for raw in value.lower().split(","):
        if raw in _FAIL_WORDS:
            nonzero = True
        elif raw in _EXIT_WORDS:
            codes += _EXIT_WORDS[raw]
        elif raw.isascii() and raw.isdigit() and len(raw) <= 9:
            codes.append(int(raw))
        else:
            raise UsageError(f"invalid exit:{raw!r}: use exit:0, exit:1,2, exit:ok or exit:fail")
    return msgspec.structs.replace(f, exit_codes=tuple(sorted(set(codes))), exit_nonzero=nonzero)


def add_cwd(f: CommandFilter | None, value: str) -> CommandFilter:
    """``f`` also allowing commands run in the folder ``value`` names (or below it).

    Raises:
        UsageError: an empty value.
    """
    f = f or CommandFilter()
    if not value.strip("/"):
        if value.startswith("/"):
            return f  # cwd:/ is every folder
        raise UsageError("cwd: needs a folder, e.g. cwd:~/src/app or cwd:app")
    if value == "~" or value.startswith("~/"):  # the caller's home, through the daemon too
        value = (current_environ().get("HOME") or os.path.expanduser("~")) + value[1:]
    elif value.startswith("~"):
        value = os.path.expanduser(value)
    if value.startswith("/"):
        folder = os.path.normpath(value)
        return msgspec.structs.replace(f, folders=(*f.folders, folder))
    if value.split("/")[0] in (".", ".."):  # relative to a cwd the daemon does not share
        raise UsageError(f"cwd:{value} is relative: name the folder, e.g. cwd:$PWD in a shell")
    return msgspec.structs.replace(f, folder_names=(*f.folder_names, value.strip("/")))


def _ms(text: str) -> int:
    match = _duration_re().fullmatch(text.strip().lower())
    if match is None:
        raise ValueError(text)
    return int(float(match.group(1)) * _UNIT_MS[match.group(2) or "s"])


def add_took(f: CommandFilter | None, value: str) -> CommandFilter:
    """``f`` also requiring a duration in the bounds ``value`` gives.

    Raises:
        UsageError: not a duration or range (the message shows the forms).
    """
    f = f or CommandFilter()
    low: int | None = None
    high: int | None = None
    try:
        if ".." in value:
            first, _, second = value.partition("..")
            low = _ms(first) if first else None
            high = _ms(second) if second else None
        elif value.startswith("<"):
            high = _ms(value[1:].lstrip("="))
        else:
            low = _ms(value.removeprefix(">").lstrip("="))
    except ValueError:
        raise UsageError(f"invalid took:{value!r}: {_TOOK_HELP}") from None
    if low is not None and f.took_min_ms is not None:
        low = max(low, f.took_min_ms)
    if high is not None and f.took_max_ms is not None:
        high = min(high, f.took_max_ms)
    low = low if low is not None else f.took_min_ms
    high = high if high is not None else f.took_max_ms
    if low is not None and high is not None and high <= low:
        raise UsageError(f"took:{value} leaves no duration: the upper bound is not above the lower")
    return msgspec.structs.replace(f, took_min_ms=low, took_max_ms=high)
