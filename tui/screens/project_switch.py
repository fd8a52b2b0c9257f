"""``project: switch``: pick one of the registered projects (or the current one), fuzzy-filtered.

The registry is the one ``ade projects add`` writes (``engine.rpc.registry``); the screen only
lists and filters, and dismisses with the chosen root — the app reopens its client there.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from pathlib import Path
from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, OptionList, Static

from tui.logic.fuzzy import LocalItem, match_local
from tui.widgets.result_list import ResultList


def project_items(
    current: tuple[str, Path] | None, registered: Sequence[tuple[str, Path]]
) -> list[LocalItem]:
    """The current project first (marked), then the registered ones by name, each root once.

    Args:
        current: (name, root) of the open project, or None while none is open.
        registered: (name, root) of every registry entry.
    """
    items: list[LocalItem] = []
    seen: set[Path] = set()
    if current is not None:
        name, root = current
        items.append(_item(f"{name}  (current)", root))
        seen.add(root)
    for name, root in sorted(registered, key=lambda entry: (entry[0].lower(), str(entry[1]))):
        if root not in seen:
            seen.add(root)
            items.append(_item(name, root))
    return items


def _item(label: str, root: Path) -> LocalItem:
    return LocalItem(key=f"project:{root}", kind="project", label=label, detail=str(root))


def registered_projects() -> tuple[list[tuple[str, Path]], list[str]]:
    """(name, root) of each project in the user's registry, and warnings for unreadable parts."""
    from engine.rpc.paths import config_dir
    from engine.rpc.registry import load_registry, registry_path

    entries, warnings = load_registry(registry_path(config_dir()))
    return [(entry.name, entry.root) for entry in entries], warnings


def unregistered_hint(text: str) -> str:
    """What to do when the typed name or path is no registered project."""
    looks_like_path = text.startswith(("/", "~", ".")) or "/" in text
    folder = text if looks_like_path else "DIR"
    what = (
        f"{text} is not a registered project" if looks_like_path else f"no project matches {text!r}"
    )
    return f"{what}: register it with `ade projects add {folder}`, then switch"


class ProjectSwitchScreen(ModalScreen[Path | None]):
    """A filter box over the projects; Enter dismisses with the chosen root, Escape with None."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "close", "close", priority=True),
        Binding("enter", "choose", "open", priority=True),
        Binding("down", "cursor_down", "next", show=False, priority=True),
        Binding("up", "cursor_up", "previous", show=False, priority=True),
    ]

    def __init__(self, items: Sequence[LocalItem], now: datetime, warnings: Sequence[str] = ()):
        super().__init__()
        self.items = list(items)
        self.now = now
        self.warnings = list(warnings)

    def compose(self) -> ComposeResult:
        with Vertical(id="switch-box"):
            yield Input(placeholder="Switch to project…", id="switch-query")
            yield ResultList(id="switch-results")
            yield Static("\n".join(f"⚠ {w}" for w in self.warnings), id="switch-warnings")

    def on_mount(self) -> None:
        self.query_one("#switch-box").border_title = "project: switch"
        self._filter("")
        self.query_one("#switch-query", Input).focus()

    @on(Input.Changed, "#switch-query")
    def _changed(self, event: Input.Changed) -> None:
        self._filter(event.value)

    def _filter(self, text: str) -> None:
        rows = match_local(text, self.items, limit=len(self.items) or 1)
        self.query_one(ResultList).show_rows(rows, self.now, keep=False)
        lines = [f"⚠ {w}" for w in self.warnings]
        if text.strip() and not rows:
            lines.append(unregistered_hint(text.strip()))
        notes = self.query_one("#switch-warnings", Static)
        notes.update("\n".join(lines))
        notes.display = bool(lines)

    @on(OptionList.OptionSelected, "#switch-results")
    def _clicked(self) -> None:
        self.action_choose()

    def action_choose(self) -> None:
        row = self.query_one(ResultList).current_row()
        if row is not None:
            self.dismiss(Path(row.snippet))

    def action_cursor_down(self) -> None:
        self.query_one(ResultList).action_cursor_down()

    def action_cursor_up(self) -> None:
        self.query_one(ResultList).action_cursor_up()

    def action_close(self) -> None:
        self.dismiss(None)
