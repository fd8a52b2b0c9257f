"""Import msgspec the way it runs without ``typing_extensions`` installed (issue 14.4).

msgspec asks ``typing_extensions`` for ``get_type_hints``, ``Required`` and ``NotRequired`` when
it is importable and otherwise takes them from ``typing``, which has all three since Python
3.11 (msgspec does not depend on ``typing_extensions``; Textual does, so it is installed). That
import, with the ``inspect`` it pulls in, is ~13 ms of CPU: more than half of msgspec's import
and a seventh of a warm in-process ``ade search``. None of the engine's types use a
``typing_extensions`` construct, so the command line imports msgspec on ``typing``'s; anything
imported later (the palette's Textual) still gets the real ``typing_extensions``.

``msgspec.json`` also imports its JSON Schema generator (with ``textwrap`` and its patterns,
~1.5-2 ms) for ``msgspec.json.schema``, which ade never calls: the command line gives it a
stand-in whose two functions import the real generator on their first call (issue 14.4).
"""

from __future__ import annotations

import importlib
import sys
import types
from collections.abc import Callable
from typing import Any

_NAME = "typing_extensions"
_SCHEMA = "msgspec._json_schema"


def import_msgspec_lean() -> None:
    """Import msgspec (once per process) without importing ``typing_extensions``."""
    if "msgspec" in sys.modules or _NAME in sys.modules:
        return  # already imported one way or the other: nothing to save
    sys.modules[_NAME] = None  # type: ignore[assignment]  # makes `import` raise ImportError
    stand_in = _schema_stand_in()
    sys.modules[_SCHEMA] = stand_in
    try:
        import msgspec  # noqa: F401
    finally:
        if sys.modules.get(_NAME, ...) is None:
            del sys.modules[_NAME]
        if sys.modules.get(_SCHEMA) is stand_in and "msgspec.json" not in sys.modules:
            del sys.modules[_SCHEMA]  # msgspec failed to import: leave nothing behind


def _schema_stand_in() -> types.ModuleType:
    """A ``msgspec._json_schema`` whose functions load the real module when first called."""
    stand_in = types.ModuleType(_SCHEMA)

    def deferred(name: str) -> Callable[..., Any]:
        def call(*args: Any, **kwargs: Any) -> Any:
            if sys.modules.get(_SCHEMA) is stand_in:
                del sys.modules[_SCHEMA]
            real = importlib.import_module(_SCHEMA)
            json_module = sys.modules["msgspec.json"]
            for function in ("schema", "schema_components"):
                setattr(json_module, function, getattr(real, function))
            return getattr(real, name)(*args, **kwargs)

        call.__name__ = call.__qualname__ = name
        return call

    stand_in.schema = deferred("schema")  # type: ignore[attr-defined]
    stand_in.schema_components = deferred("schema_components")  # type: ignore[attr-defined]
    return stand_in
