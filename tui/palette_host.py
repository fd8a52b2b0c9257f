"""What the palette screen may read and ask of the application that shows it.

The screen is given its host (the app) when it is made and sees it only through this protocol,
so ``tui.screens.palette`` never imports ``tui.app`` (which imports the screen): no import circle,
and a test can see at a glance what state the screen depends on.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from engine.external.resume import ResumePlan
    from engine.project.model import Lane, SessionMeta
    from tui.logic.fuzzy import LocalItem
    from tui.palette_client import ClientSlot


class PaletteHost(Protocol):
    """The application state and actions the palette screen uses."""

    preview_enabled: bool
    """Whether the preview pane shows (the screen toggles it)."""

    @property
    def clients(self) -> ClientSlot:
        """The current project's client (possibly still opening)."""
        ...

    @property
    def now(self) -> Callable[[], datetime]: ...

    @property
    def print_mode(self) -> bool: ...

    @property
    def print_command(self) -> bool:
        """``--print-command``: print a hit as it belongs on a command line (``tui.shell_line``)."""
        ...

    @property
    def cursor_blink(self) -> bool: ...

    @property
    def debounce_seconds(self) -> float: ...

    @property
    def debounce_gate(self) -> threading.Event: ...

    @property
    def project_id(self) -> str | None: ...

    @property
    def sessions(self) -> Sequence[SessionMeta]: ...

    @property
    def local_items(self) -> Sequence[LocalItem]: ...

    @property
    def current_lane(self) -> Lane | None:
        """The lane holding the working directory the palette started in (the lane you stand in)."""
        ...

    def open_first_project(self) -> None: ...

    def finish(self, result: str | None) -> None: ...

    def finish_with_resume(self, plan: ResumePlan) -> None:
        """Exit the app so that ``plan`` runs once the terminal is restored (Ctrl+R)."""
        ...

    async def run_action(self, action: str) -> object: ...
