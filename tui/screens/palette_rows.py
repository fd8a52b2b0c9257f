"""What the palette does with a row: open it, resume it, copy its link, preview it.

The base of ``PaletteScreen`` (kept apart so the screen module holds the query, the list and
the footer): every handler here reads the highlighted row and works on a thread worker, so a
slow link or listing never blocks typing.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from textual import on, work
from textual.screen import Screen
from textual.widgets import OptionList

from engine.errors import AdeError
from tui.logic.generation import Generation
from tui.logic.rows import PaletteRow
from tui.logic.terms import highlight_terms, terms_pattern
from tui.widgets.preview_pane import PreviewPane
from tui.widgets.result_list import ResultList

if TYPE_CHECKING:
    from tui.navigation import Target
    from tui.palette_host import PaletteHost


class RowActions(Screen[None]):
    """Open, resume, copy and preview the highlighted row (the palette screen's base)."""

    preview_generation: Generation
    cursor_moved: bool
    _last_link: str | None

    @property
    def palette_app(self) -> PaletteHost:
        raise NotImplementedError

    @property
    def query_text(self) -> str:
        raise NotImplementedError

    def action_copy_link(self) -> None:
        # Choosing the `link: copy` command row highlights that row, which has no link: copy the
        # hit that was highlighted last instead, which is what the user pointed at.
        row = self.query_one(ResultList).current_row()
        link = row.deep_link if row is not None and row.deep_link else self._last_link
        if not link:
            self.notify("nothing to copy", severity="warning")
            return
        self.app.copy_to_clipboard(link)
        # OSC 52 gets no answer: whether the terminal took it cannot be known.
        self.notify(f"sent to the terminal clipboard: {link}")

    def action_resume(self) -> None:
        """Ctrl+R on a chat hit: leave the palette and resume that session in its own tool."""
        row = self.query_one(ResultList).current_row()
        if row is None or row.kind != "chat" or not row.session_id:
            self.notify("resume works on a chat hit", severity="warning")
            return
        self._resume(row.session_id, row.item.project_root if row.item is not None else None)

    @work(thread=True, exclusive=True, group="resume", exit_on_error=False)
    def _resume(self, session_id: str, root: str | None = None) -> None:
        from engine.external.resume import installed, plan_for_session

        app = self.palette_app
        try:
            project = app.clients.wait().project
            if root is not None and Path(root) != project.root:  # a hit of another project
                from engine.project.locate import open_project

                project = open_project(Path(root))
            plan = plan_for_session(project, session_id)
        except Exception as err:  # aider, an .ade chat, a vanished session: say so, stay open
            self.app.call_from_thread(self.notify, str(err), severity="warning", timeout=6)
            return
        if not installed(plan.argv[0]):  # said here, not after the palette closed
            note = f"{plan.tool} is not installed (no {plan.argv[0]!r} on PATH)"
            self.app.call_from_thread(self.notify, note, severity="warning", timeout=6)
            return
        self.app.call_from_thread(app.finish_with_resume, plan)

    # --- activation ---------------------------------------------------------------------------

    @on(OptionList.OptionSelected, "#results")
    async def _clicked(self) -> None:
        await self.action_activate()

    async def action_activate(self) -> None:
        row = self.query_one(ResultList).current_row()
        if row is None:
            return
        app = self.palette_app
        if row.action is not None:
            await app.run_action(row.action)
            return
        if app.print_mode:
            from tui.navigation import print_form
            from tui.shell_line import command_line_form

            app.finish(command_line_form(row) if app.print_command else print_form(row))
            return
        self._open(row)

    @work(thread=True, exclusive=True, group="open", exit_on_error=False)
    def _open(self, row: PaletteRow) -> None:
        from tui.navigation import Gone, resolve

        app = self.palette_app
        try:
            target: Target = resolve(app.clients.wait(), row, app.sessions)
        except Exception as err:  # a broken link or listing must not end the palette
            target = Gone(f"cannot open {row.title!r}: {err}")
        self.app.call_from_thread(self._navigate, target)

    def _navigate(self, target: Target) -> None:
        # Screens are imported on first use: they pull in pygments and the line window, which
        # first paint does not need.
        from tui.navigation import Gone, OpenChat, OpenScrollback
        from tui.screens.chat import ChatScreen
        from tui.screens.detail import DetailScreen
        from tui.screens.file_detail import FileDetailScreen
        from tui.screens.scrollback import ScrollbackScreen

        query = self.query_text
        if isinstance(target, Gone):
            self.notify(target.message, severity="warning", timeout=6)
        elif isinstance(target, OpenScrollback):
            self.app.push_screen(ScrollbackScreen(target.path, target.offset, query, target.title))
        elif isinstance(target, OpenChat):
            self.app.push_screen(ChatScreen(target.path, target.seq, query, target.title))
        elif target.kind == "file":
            self.app.push_screen(FileDetailScreen(target.kind, target.title, target.loader))
        else:
            self.app.push_screen(DetailScreen(target.kind, target.title, target.loader))

    # --- preview ------------------------------------------------------------------------------

    @on(OptionList.OptionHighlighted, "#results")
    def _highlighted(self) -> None:
        row = self.query_one(ResultList).current_row()
        if self.cursor_moved and row is not None and row.deep_link:
            # Only a row the user moved to: rows highlighted while typing a command do not count.
            self._last_link = row.deep_link
        self._schedule_preview()

    def _schedule_preview(self) -> None:
        if not self.palette_app.preview_enabled:
            return
        row = self.query_one(ResultList).current_row()
        if row is not None:
            self._preview(self.preview_generation.advance(), row, self.query_text)

    @work(thread=True, exclusive=True, group="preview", exit_on_error=False)
    def _preview(self, stamp: int, row: PaletteRow, query: str) -> None:
        from tui.navigation import preview_record

        app = self.palette_app
        pattern = terms_pattern(highlight_terms(query))
        try:
            client = app.clients.wait()
        except AdeError as err:
            self.app.call_from_thread(self._show_preview, stamp, str(err), pattern)
            return
        record = preview_record(client, row, app.sessions)
        self.app.call_from_thread(self._show_preview, stamp, record, pattern)

    def _show_preview(self, stamp: int, record: Any, pattern: Any) -> None:
        """Paint a preview unless a newer one was asked for meanwhile (its thread may finish
        after ours: threads cannot be cancelled)."""
        if self.preview_generation.is_current(stamp):
            self.query_one(PreviewPane).show(record, pattern)
