"""The palette application: holds the client, the clock and the local items; screens do the rest."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path, PurePath
from typing import TYPE_CHECKING, ClassVar

from textual import work
from textual.app import App
from textual.binding import Binding, BindingType
from textual.message import Message

from engine.errors import AdeError
from styles import style_path
from tui.colorless import use_colorless
from tui.logic.fuzzy import LocalItem
from tui.logic.lane_context import lane_of_cwd, safe_cwd
from tui.palette_client import ClientSlot
from tui.screens.palette import PaletteScreen

if TYPE_CHECKING:  # the engine's modules are imported after the first paint, by the opener
    from textual.driver import Driver
    from textual.notifications import SeverityLevel

    from engine.client import SearchClient
    from engine.external.resume import ResumePlan
    from engine.project.model import Lane, SessionMeta
    from tui.palette_client import Opener

DEBOUNCE_SECONDS = 0.2
"""Wait after the last keystroke before searching: typing speed is ~5-8 keys a second."""

PREVIEW_MIN_WIDTH = 140
"""Terminal columns from which the preview pane starts open: 80 for rows, 60 for the preview."""

THEME = "textual-dark"
"""Pinned theme: the TEXTUAL_THEME variable must not change snapshots."""

COMMANDS: tuple[tuple[str, str, str], ...] = (
    ("index: rebuild", "rebuild_index", "re-read every source into a fresh index"),
    ("index: status", "index_status", "documents, sources, pending work"),
    ("view: toggle preview", "screen.toggle_preview", "show or hide the preview pane"),
    ("link: copy", "screen.copy_link", "copy the highlighted hit's ade:// link"),
    ("project: switch", "switch_project", "open another registered project"),
    ("help: keys", "screen.help", "keys and query syntax"),
    ("app: quit", "screen.quit", "close the palette"),
)
"""Palette commands: (verb-prefixed name, action, description)."""


class IndexProgress(Message):
    """Rebuild progress from the rebuilding thread; only the newest matters."""

    def __init__(self, done: int, total: int | None) -> None:
        super().__init__()
        self.done = done
        self.total = total

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, IndexProgress)


class ClientOpened(Message):
    """The slot's opener thread finished: ``error`` is None when the client is there."""

    def __init__(self, error: str | None) -> None:
        super().__init__()
        self.error = error


class PaletteApp(App[str | None]):
    """``ade palette``: the app's result is the printed link in ``--print`` mode, else None."""

    CSS_PATH: ClassVar[list[str | PurePath]] = [
        style_path("app.tcss"),
        style_path("palette.tcss"),
        style_path("screens.tcss"),
    ]
    TITLE = "ade"
    ENABLE_COMMAND_PALETTE = False
    print_command = False
    """``--print-command`` (set before the app runs): a command line's form, not the link."""
    BINDINGS: ClassVar[list[BindingType]] = [
        # Ctrl+C cancels, as in fzf, rather than Textual's "Do you want to quit?" note. Not a
        # priority binding: a selection in the input or the scrollback is copied first.
        Binding("ctrl+c", "interrupt", show=False, system=True),
    ]

    def __init__(
        self,
        client: SearchClient | None = None,
        *,
        opener: Opener | None = None,
        root: Path | None = None,
        clock: Callable[[], datetime] | None = None,
        initial_query: str = "",
        print_mode: bool = False,
        preview: bool | None = None,
        debounce_seconds: float = DEBOUNCE_SECONDS,
        cursor_blink: bool = True,
    ) -> None:
        super().__init__()
        use_colorless(self)  # NO_COLOR: no colour codes at all, not greys (docs/palette.md)
        if client is None and opener is None:
            raise ValueError("PaletteApp needs a client or an opener")
        self.clients = ClientSlot(client, opener)
        """The current client. Without ``client`` it is opened by ``opener`` on a thread after
        the first paint; ``project: switch`` reopens it. Closing is the caller's
        (``clients.close()`` after the app ended)."""
        self.root = root
        """The project being shown (``None``: as ``open_project`` finds it from the cwd)."""
        self.now: Callable[[], datetime] = clock or (lambda: datetime.now(UTC))
        self.initial_query = initial_query
        self.print_mode = print_mode
        self.resume_plan: ResumePlan | None = None
        self.interrupted = False
        """Set by Ctrl+C: ``--print`` then exits 130, like fzf."""
        """Set by Ctrl+R on a chat hit: the session to resume after the app has exited."""
        self._preview_choice = preview
        self.preview_enabled = bool(preview)
        self.debounce_seconds = debounce_seconds
        self.cursor_blink = cursor_blink
        """Off in snapshot tests: a blinking caret makes screenshots depend on timing."""
        self.debounce_gate = threading.Event()
        """Search threads wait on this for the debounce; set on exit (quitting never waits for
        them) and by ``flush_debounce`` (tests drive the debounce instead of sleeping)."""
        self.project_id: str | None = None
        """The active project's id, known once the client answered (the UI thread never waits
        for the client: it may still be opening on a thread, see ``ClientSlot``)."""
        self._opening_started = False
        self.sessions: list[SessionMeta] = []
        self.lanes: list[Lane] = []
        self.cwd = safe_cwd()
        self.current_lane: Lane | None = None
        """The lane holding the working directory: footer badge, ``ctrl+l`` filter."""
        self.local_items: list[LocalItem] = command_items()
        self.theme = THEME

    def get_driver_class(self) -> type[Driver]:
        """Textual's driver, sized by the controlling terminal even when stdout is captured."""
        from tui.terminal_size import sized_driver

        return sized_driver(super().get_driver_class())

    def notify(
        self,
        message: str,
        *,
        title: str = "",
        severity: SeverityLevel = "information",
        timeout: float | None = None,
        markup: bool = False,
    ) -> None:
        """Every toast of the palette (screens call this too): an error may quote a path or a
        title someone else chose, so message and title are made printable first, and are text
        unless a caller asks for markup (a ``[link=…]`` in a title must not become a link)."""
        from tui.printable import printable

        super().notify(
            printable(message), title=printable(title), severity=severity, timeout=timeout,
            markup=markup,
        )  # fmt: skip

    def action_interrupt(self) -> None:
        """Ctrl+C: leave at once, from any screen, without a result."""
        self.interrupted = True
        self.finish(None)

    def on_mount(self) -> None:
        if self._preview_choice is None:
            self.preview_enabled = self.size.width >= PREVIEW_MIN_WIDTH
        self.push_screen(PaletteScreen(self, self.initial_query))
        if self.clients.ready.is_set():
            self._load_locals()

    def open_first_project(self) -> None:
        """Open the project's client unless there is one: called by the palette screen after
        its first paint. Importing the engine and opening the index is most of the start-up
        time and, on a thread, still competes for the interpreter: it must not delay the
        first frame. The input works meanwhile (typed queries wait for the client)."""
        if not self.clients.ready.is_set() and not self._opening_started:
            self._opening_started = True
            self.clients.open_async(self.root, self._opened_on_thread)

    def _opened_on_thread(self, error: str | None) -> None:
        with contextlib.suppress(RuntimeError):  # the app may have ended meanwhile
            self.post_message(ClientOpened(error))

    def on_client_opened(self, message: ClientOpened) -> None:
        if message.error is not None:
            self.notify(message.error, title="cannot open the project", severity="error")
        else:
            self._load_locals()
        for note in self.clients.take_notes():  # e.g. a daemon not trusted (docs/trust.md)
            self.notify(note, severity="warning")
        if isinstance(self.screen, PaletteScreen):
            self.screen.refresh_status()

    def action_switch_project(self) -> None:
        """Pick a registered project; the palette then shows that one with an empty query."""
        from tui.screens.project_switch import (
            ProjectSwitchScreen,
            project_items,
            registered_projects,
        )

        if not self.clients.can_open:
            self.notify("this palette cannot switch projects", severity="warning")
            return
        client = self.clients.current()
        current = (client.project.name, client.project.root) if client is not None else None
        registered, warnings = registered_projects()
        items = project_items(current, registered)
        self.push_screen(ProjectSwitchScreen(items, self.now(), warnings), self.switch_project)

    def switch_project(self, root: Path | None) -> None:
        """Close the current project's client, open ``root``'s, and start over with no query."""
        if root is None:
            return
        self.root = root
        self.project_id = None
        self.sessions, self.lanes = [], []
        self.current_lane = None
        self.local_items = command_items()
        self.clients.open_async(root, self._opened_on_thread)
        for screen in self.screen_stack:
            if isinstance(screen, PaletteScreen):
                screen.reset_query()

    @work(thread=True, exclusive=True, group="locals", exit_on_error=False)
    def _load_locals(self) -> None:
        """List sessions and lanes off the UI thread, then re-match the current query."""
        try:
            client = self.clients.wait()
            project_id = client.project.id
            sessions = client.list_sessions(include_archived=False)
            lanes = client.list_lanes()
        except AdeError as err:
            self.call_from_thread(self.notify, str(err), severity="error")
            return
        self.call_from_thread(self._locals_loaded, client, project_id, sessions, lanes)

    def _locals_loaded(
        self, client: SearchClient, project_id: str, sessions: list[SessionMeta], lanes: list[Lane]
    ) -> None:
        if self.clients.current() is not client:
            return  # listed for a project switched away from meanwhile
        self.project_id = project_id
        self.sessions = sessions
        self.lanes = lanes
        self.current_lane = lane_of_cwd(lanes, self.cwd)
        self.local_items = [
            *session_items(sessions, project_id, {lane.id: lane.name for lane in lanes}),
            *lane_items(lanes, project_id),
            *command_items(),
        ]
        screen = self.screen
        if isinstance(screen, PaletteScreen):
            screen.refresh_local(keep=True)
            screen.refresh_status()

    def flush_debounce(self) -> None:
        """End the debounce wait now: the newest pending search runs at once."""
        self.debounce_gate.set()

    def finish_with_resume(self, plan: ResumePlan) -> None:
        """Leave the app so ``ade palette`` runs ``plan`` once the terminal is restored."""
        self.resume_plan = plan
        self.finish(None)

    def finish(self, result: str | None) -> None:
        """Leave the app with ``result`` (printed by ``--print``), interrupting any query."""
        self.debounce_gate.set()
        self.clients.shut()
        self.exit(result)

    def action_rebuild_index(self) -> None:
        self.notify("rebuilding the index…")
        self._rebuild()

    @work(thread=True, exclusive=True, group="rebuild", exit_on_error=False)
    def _rebuild(self) -> None:
        def progress(done: int, total: int) -> None:
            self.post_message(IndexProgress(done, total))

        try:
            result = self.clients.wait().rebuild_index(progress)
        except AdeError as err:
            self.call_from_thread(self.notify, f"rebuild failed: {err}", severity="error")
        else:
            message = f"index rebuilt: {result.doc_count} docs in {result.duration_ms} ms"
            self.call_from_thread(self.notify, message)
        self.post_message(IndexProgress(0, None))

    def on_index_progress(self, message: IndexProgress) -> None:
        from tui.widgets.status_bar import StatusBar

        for bar in self.screen.query(StatusBar):
            bar.show_progress(message.done, message.total)
        if message.total is None and isinstance(self.screen, PaletteScreen):
            self.screen.refresh_status()

    def action_index_status(self) -> None:
        self._show_index_status()

    @work(thread=True, exclusive=True, group="status-note", exit_on_error=False)
    def _show_index_status(self) -> None:
        try:
            status = self.clients.wait().index_status()
        except AdeError as err:
            self.call_from_thread(self.notify, str(err), severity="error")
            return
        kinds = ", ".join(f"{k} {n}" for k, n in sorted(status.docs_by_kind.items()))
        text = (
            f"{status.state}: {status.doc_count} docs ({kinds}); {status.source_count} sources, "
            f"{status.pending_sources} pending; watcher {status.watcher_state}"
        )
        self.call_from_thread(self.notify, text, title="index status", timeout=8)

    def on_unmount(self) -> None:
        self.debounce_gate.set()
        self.clients.shut()


def command_items() -> list[LocalItem]:
    """The palette's commands as matchable items."""
    return [
        LocalItem(key=f"cmd:{name}", kind="command", label=name, detail=detail, action=action)
        for name, action, detail in COMMANDS
    ]


def session_items(
    sessions: Sequence[SessionMeta], project_id: str, lane_names: Mapping[str, str]
) -> list[LocalItem]:
    """Chat and terminal sessions as matchable items. Their key matches the deduped search row
    of the session, and their lane reads as on search rows (the lane's name, kinds agree)."""
    from engine.links.deeplink import build_link

    return [
        LocalItem(
            key=f"{project_id}|session:{s.id}",
            kind="chat" if s.kind == "chat" else "terminal",
            label=s.title or s.id,
            # Claude Code / Codex transcripts say which tool wrote them (.ade chats do not).
            detail=(s.tool or s.source) if s.kind == "chat" and s.source != "ade" else "",
            lane=lane_names.get(s.lane_id, s.lane_id) if s.lane_id else None,
            updated_at_ms=int(s.updated_at.timestamp() * 1000),
            session_id=s.id,
            tool=s.tool if s.kind == "chat" else None,
            deep_link=build_link("chat" if s.kind == "chat" else "terminal", s.id,
                                 project_id=project_id),
        )
        for s in sessions
        if s.kind in {"chat", "terminal"}
    ]  # fmt: skip


def lane_items(lanes: Sequence[Lane], project_id: str) -> list[LocalItem]:
    """Lanes as matchable items (their branch is matched too)."""
    from engine.links.deeplink import build_link

    return [
        LocalItem(
            key=f"lane:{lane.id}",
            kind="lane",
            label=lane.name,
            detail=lane.branch or "",
            deep_link=build_link("lane", lane.id, project_id=project_id),
        )
        for lane in lanes
    ]
