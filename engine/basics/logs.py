"""A module logger that imports ``logging`` when it first logs.

The engine logs only on faults (a failed drain, a damaged index), yet ``logging`` and what it
imports (``traceback``, ``string``, ``weakref``…) cost ~3 ms of every command's start-up
(the start-up budget): a warm search that logs nothing never pays it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import logging


class LazyLogger:
    """``logging.getLogger(name)``, looked up on the first call of any of its methods."""

    __slots__ = ("_logger", "_name")

    def __init__(self, name: str) -> None:
        self._name = name
        self._logger: logging.Logger | None = None

    def _real(self) -> logging.Logger:
        if self._logger is None:
            import logging

            self._logger = logging.getLogger(self._name)
        return self._logger

    def debug(self, msg: str, *args: object, **kwargs: Any) -> None:
        self._real().debug(msg, *args, **kwargs)

    def info(self, msg: str, *args: object, **kwargs: Any) -> None:
        self._real().info(msg, *args, **kwargs)

    def warning(self, msg: str, *args: object, **kwargs: Any) -> None:
        self._real().warning(msg, *args, **kwargs)

    def error(self, msg: str, *args: object, **kwargs: Any) -> None:
        self._real().error(msg, *args, **kwargs)

    def exception(self, msg: str, *args: object, **kwargs: Any) -> None:
        self._real().exception(msg, *args, **kwargs)


def get_logger(name: str) -> LazyLogger:
    """The logger of module ``name`` (``__name__``), imported on first use."""
    return LazyLogger(name)
