"""One call on a thread of its own while the caller goes on, in the caller's context.

The query path gathers its delegated candidates (``git ls-files``/``git grep`` of the lanes, the
lane list's envelope) while SQLite answers the index query: SQLite's step and a child process's
wait both release the GIL, so on two cores the two overlap (start-up budget). A plain thread rather
than ``concurrent.futures``, whose import (``logging``) costs a CLI start more than the overlap
saves. The call runs in a copy of the caller's ``contextvars`` context, so per-query memos
(``engine.project.lane_memo.one_listing``) are shared, not re-listed.
"""

# warm path: a warm `ade search` imports this; keep its imports light (ARCHITECTURE: The warm path)

from __future__ import annotations

import contextvars
import threading
from collections.abc import Callable
from typing import Generic, TypeVar

_T = TypeVar("_T")


class Background(Generic[_T]):
    """``call()`` started on a daemon thread; ``result()`` waits and returns or re-raises."""

    def __init__(self, call: Callable[[], _T], name: str = "ade-background") -> None:
        self._value: _T | None = None
        self._error: BaseException | None = None
        self._done = False
        context = contextvars.copy_context()
        self._thread = threading.Thread(
            target=lambda: context.run(self._run, call), name=name, daemon=True
        )
        self._thread.start()

    def _run(self, call: Callable[[], _T]) -> None:
        try:
            self._value = call()
        except BaseException as err:  # handed to the caller by result()
            self._error = err
        self._done = True

    def result(self) -> _T:
        """The call's value (waiting for it); its exception is raised here instead."""
        self._thread.join()
        if self._error is not None:
            raise self._error
        assert self._done
        return self._value  # type: ignore[return-value]  # set by _run before it ended


class Finished(Generic[_T]):
    """A value already computed, read as a ``Background``'s (for a caller that ran it inline)."""

    def __init__(self, value: _T) -> None:
        self._value = value

    def result(self) -> _T:
        """The value."""
        return self._value
