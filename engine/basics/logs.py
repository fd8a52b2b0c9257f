"""The logging convention: every module logs through ``log = get_logger(__name__)``.

Loggers are named after their modules, under ``engine`` (``LOGGER_ROOT``), which the daemon
configures (``engine.rpc.daemon.configure_logging``: stderr and its log file); the audit trail of
refused and privileged requests is ``AUDIT_LOGGER``. Only ``configure_logging`` imports
``logging`` itself (``tests/architecture/test_conventions.py``).

The engine logs only on faults (a failed drain, a damaged index), yet ``logging`` and what it
imports (``traceback``, ``string``, ``weakref``…) cost ~3 ms of every command's start-up
(the start-up budget): a warm search that logs nothing never pays it.
"""

# warm path: a warm `ade search` imports this; keep its imports light (ARCHITECTURE: The warm path)

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import logging


LOGGER_ROOT = "engine"
"""The logger every module's logger sits under: the daemon's handlers are attached to it."""

AUDIT_LOGGER = "engine.rpc.audit"
"""Refused and privileged requests (the daemon's roles), whichever module answers them."""


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
