"""Import msgspec the way it runs without ``typing_extensions`` installed (the start-up budget).

msgspec asks ``typing_extensions`` for ``get_type_hints``, ``Required`` and ``NotRequired`` when
it is importable and otherwise takes them from ``typing``, which has all three since Python
3.11 (msgspec does not depend on ``typing_extensions``; Textual does, so it is installed). That
import, with the ``inspect`` it pulls in, is ~13 ms of CPU: more than half of msgspec's import
and a seventh of a warm in-process ``ade search``. None of the engine's types use a
``typing_extensions`` construct, so the command line imports msgspec on ``typing``'s; anything
imported later (the palette's Textual) still gets the real ``typing_extensions``.

msgspec's core also imports ``uuid``, which on Linux imports ``platform`` for one call,
``platform.system()`` (to pick its MAC address readers): ``platform`` compiles nine regular
expressions and builds a named tuple, ~8.6 M instructions of a ~326 M in-process search
(benchmarks/journal/2026-12-08-inproc-start.md). While ``uuid`` is first imported here it is handed
a stand-in whose ``system()`` is ``os.uname().sysname``, what ``platform.system()`` returns on a
POSIX system; the stand-in is then removed, so a later ``import platform`` gets the real module.
"""

# warm path: a warm `ade search` imports this; keep its imports light (ARCHITECTURE: The warm path)

from __future__ import annotations

import os
import sys
from types import ModuleType

_NAME = "typing_extensions"


def import_msgspec_lean() -> None:
    """Import msgspec (once per process) without importing ``typing_extensions``."""
    if "msgspec" in sys.modules or _NAME in sys.modules:
        return  # already imported one way or the other: nothing to save
    sys.modules[_NAME] = None  # type: ignore[assignment]  # makes `import` raise ImportError
    stand_in = _platform_stand_in()
    try:
        import msgspec  # noqa: F401
    finally:
        if sys.modules.get(_NAME, ...) is None:
            del sys.modules[_NAME]
        if stand_in is not None and sys.modules.get(_PLATFORM) is stand_in:
            del sys.modules[_PLATFORM]


_PLATFORM = "platform"


def _platform_stand_in() -> ModuleType | None:
    """Put a ``platform`` whose ``system()`` answers as the real one in ``sys.modules`` for
    ``uuid``'s first import, when ``uuid`` would import the real one for that call alone (a POSIX
    system other than macOS, neither module imported yet); ``None`` when it is left alone."""
    if _PLATFORM in sys.modules or "uuid" in sys.modules or sys.platform in ("win32", "darwin"):
        return None
    if not hasattr(os, "uname"):
        return None
    stand_in = ModuleType(_PLATFORM, "Stands in for `platform` while `uuid` is first imported.")
    stand_in.system = _system  # type: ignore[attr-defined]
    sys.modules[_PLATFORM] = stand_in
    return stand_in


def _system() -> str:
    """``platform.system()`` on a POSIX system: ``uname``'s system name."""
    return os.uname().sysname
