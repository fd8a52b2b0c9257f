"""What the palette does with a row: open it, resume it, copy its link, preview it.

``RowActions`` is a collaborator the palette screen builds and hands what it needs (the screen
its workers and notes run on, the application state, the query text); the screen's key actions
delegate to it. Every handler here reads the highlighted row and works on a thread worker, so a
slow link or listing never blocks typing.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from textual.screen import Screen

from engine.errors import AdeError
from tui.logic.generation import Generation
from tui.logic.rows import PaletteRow
from tui.logic.terms import highlight_terms, terms_pattern
from tui.widgets.preview_pane import PreviewPane
from tui.widgets.result_list import ResultList

if TYPE_CHECKING:
    from tui.navigation import Target
    from tui.palette_host import PaletteHost


class RowActions:
    """Open, resume, copy and preview the highlighted row of ``screen``'s result list.

    Args:
        screen: the palette screen: its result list, its notes, the workers run on it.
        host: the application state (clients, sessions, print mode, preview switch).
        query_text: the query as typed (what an opened transcript highlights).
    """

    def __init__(self, screen: Screen[None], host: PaletteHost, query_text: Callable[[], str]):
        self._screen = screen
        self._host = host
        self._query_text = query_text
        self.preview_generation = Generation()
        self.last_link: str | None = None
        """The link of the last hit the user moved to: what `link: copy` copies from its own
        row."""

    def _run(self, job: Callable[[], None], group: str) -> None:
        """``job`` on a thread worker of the screen, replacing the one of ``group`` still
        running (what ``@work(thread=True, exclusive=True)`` does on a widget)."""
        self._screen.run_worker(job, name=group, group=group, exclusive=True, thread=True,
                                exit_on_error=False)  # fmt: skip

    def _current_row(self) -> PaletteRow | None:
        return self._screen.query_one(ResultList).current_row()

    def copy_link(self) -> None:
        # Choosing the `link: copy` command row highlights that row, which has no link: copy the
        # hit that was highlighted last instead, which is what the user pointed at.
        row = self._current_row()
        link = row.deep_link if row is not None and row.deep_link else self.last_link
        if not link:
            self._screen.notify("nothing to copy", severity="warning")
            return
        self._screen.app.copy_to_clipboard(link)
        # OSC 52 gets no answer: whether the terminal took it cannot be known.
        self._screen.notify(f"sent to the terminal clipboard: {link}")

    def resume(self) -> None:
        """Ctrl+R on a chat hit: leave the palette and resume that session in its own tool."""
        row = self._current_row()
        if row is None or row.kind != "chat" or not row.session_id:
            self._screen.notify("resume works on a chat hit", severity="warning")
            return
        root = row.item.project_root if row.item is not None else None
        self._run(partial(self._resume, row.session_id, root), "resume")

    def _resume(self, session_id: str, root: str | None = None) -> None:
        from engine.external.resume import installed, plan_for_session

        app, host = self._screen.app, self._host
        try:
            project = host.clients.wait().project
            if root is not None and Path(root) != project.root:  # a hit of another project
                from engine.project.locate import open_project

                project = open_project(Path(root))
            plan = plan_for_session(project, session_id)
        except Exception as err:  # aider, an .ade chat, a vanished session: say so, stay open
            app.call_from_thread(self._screen.notify, str(err), severity="warning", timeout=6)
            return
        if not installed(plan.argv[0]):  # said here, not after the palette closed
            note = f"{plan.tool} is not installed (no {plan.argv[0]!r} on PATH)"
            app.call_from_thread(self._screen.notify, note, severity="warning", timeout=6)
            return
        app.call_from_thread(host.finish_with_resume, plan)

    # --- activation ---------------------------------------------------------------------------

    async def activate(self) -> None:
        """Enter (or a click): run a command row, print the row (print mode), or open it."""
        row = self._current_row()
        if row is None:
            return
        host = self._host
        if row.action is not None:
            await host.run_action(row.action)
            return
        if host.print_mode:
            from tui.navigation import print_form
            from tui.shell_line import command_line_form

            host.finish(command_line_form(row) if host.print_command else print_form(row))
            return
        self._run(partial(self._open, row), "open")

    def _open(self, row: PaletteRow) -> None:
        from tui.navigation import Gone, resolve

        host = self._host
        try:
            target: Target = resolve(host.clients.wait(), row, host.sessions)
        except Exception as err:  # a broken link or listing must not end the palette
            target = Gone(f"cannot open {row.title!r}: {err}")
        self._screen.app.call_from_thread(self._navigate, target)

    def _navigate(self, target: Target) -> None:
        # Screens are imported on first use: they pull in pygments and the line window, which
        # first paint does not need.
        from tui.navigation import Gone, OpenChat, OpenScrollback
        from tui.screens.chat import ChatScreen
        from tui.screens.detail import DetailScreen
        from tui.screens.file_detail import FileDetailScreen
        from tui.screens.scrollback import ScrollbackScreen

        query, app = self._query_text(), self._screen.app
        if isinstance(target, Gone):
            self._screen.notify(target.message, severity="warning", timeout=6)
        elif isinstance(target, OpenScrollback):
            app.push_screen(ScrollbackScreen(target.path, target.offset, query, target.title))
        elif isinstance(target, OpenChat):
            app.push_screen(ChatScreen(target.path, target.seq, query, target.title))
        elif target.kind == "file":
            app.push_screen(FileDetailScreen(target.kind, target.title, target.loader))
        else:
            app.push_screen(DetailScreen(target.kind, target.title, target.loader))

    # --- preview ------------------------------------------------------------------------------

    def highlighted(self, *, cursor_moved: bool) -> None:
        """A row was highlighted: remember its link when the user moved there (rows highlighted
        while typing a command do not count), and preview it."""
        row = self._current_row()
        if cursor_moved and row is not None and row.deep_link:
            self.last_link = row.deep_link
        self.schedule_preview()

    def schedule_preview(self) -> None:
        """Preview the highlighted row on a worker (when the preview pane is on)."""
        if not self._host.preview_enabled:
            return
        row = self._current_row()
        if row is not None:
            stamp = self.preview_generation.advance()
            self._run(partial(self._preview, stamp, row, self._query_text()), "preview")

    def _preview(self, stamp: int, row: PaletteRow, query: str) -> None:
        from tui.navigation import preview_record

        host, app = self._host, self._screen.app
        pattern = terms_pattern(highlight_terms(query))
        try:
            client = host.clients.wait()
        except AdeError as err:
            app.call_from_thread(self._show_preview, stamp, str(err), pattern)
            return
        record = preview_record(client, row, host.sessions)
        app.call_from_thread(self._show_preview, stamp, record, pattern)

    def _show_preview(self, stamp: int, record: Any, pattern: Any) -> None:
        """Paint a preview unless a newer one was asked for meanwhile (its thread may finish
        after ours: threads cannot be cancelled)."""
        if self.preview_generation.is_current(stamp):
            self._screen.query_one(PreviewPane).show(record, pattern)
