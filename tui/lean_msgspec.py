"""Import msgspec the way it runs without ``typing_extensions`` installed (the start-up budget).

msgspec asks ``typing_extensions`` for ``get_type_hints``, ``Required`` and ``NotRequired`` when
it is importable and otherwise takes them from ``typing``, which has all three since Python
3.11 (msgspec does not depend on ``typing_extensions``; Textual does, so it is installed). That
import, with the ``inspect`` it pulls in, is ~13 ms of CPU: more than half of msgspec's import
and a seventh of a warm in-process ``ade search``. None of the engine's types use a
``typing_extensions`` construct, so the command line imports msgspec on ``typing``'s; anything
imported later (the palette's Textual) still gets the real ``typing_extensions``.
"""

# warm path: a warm `ade search` imports this; keep its imports light (ARCHITECTURE: The warm path)

from __future__ import annotations

import sys

_NAME = "typing_extensions"


def import_msgspec_lean() -> None:
    """Import msgspec (once per process) without importing ``typing_extensions``."""
    if "msgspec" in sys.modules or _NAME in sys.modules:
        return  # already imported one way or the other: nothing to save
    sys.modules[_NAME] = None  # type: ignore[assignment]  # makes `import` raise ImportError
    try:
        import msgspec  # noqa: F401
    finally:
        if sys.modules.get(_NAME, ...) is None:
            del sys.modules[_NAME]
