"""The palette footer: key hints on the left, index status on the right."""

from __future__ import annotations

from rich.cells import cell_len
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.content import Content
from textual.widgets import Static

from engine.types import IndexStatus
from tui.logic.keys import footer_hints

_KEY_NAMES: dict[str, str] = {"enter": "⏎", "escape": "esc", "ctrl+y": "^y", "ctrl+q": "^q"}
"""Short names for keys in the footer so the hints fit 80 columns."""


_ALWAYS = "f1"
"""The hint kept when the footer is narrow: help lists every key the footer has no room for."""


def hints_content(width: int | None = None) -> Content:
    """``⏎ open  esc close  tab kind …`` with keys in the accent colour; with ``width``, only the
    hints that fit whole (the help hint last), never one cut in the middle."""
    hints = [(_KEY_NAMES.get(key, key), label) for key, label in footer_hints()]
    if width is not None:
        hints = fitting(hints, width)
    parts: list[tuple[str, str] | str] = []
    for key, label in hints:
        parts.extend([(key, "bold $text-accent"), f" {label}  "])
    return Content.assemble(*parts)


def fitting(hints: list[tuple[str, str]], width: int) -> list[tuple[str, str]]:
    """The hints, in order, that fit ``width`` cells; when some are left out, help is kept."""

    def cells(hint: tuple[str, str]) -> int:
        return cell_len(f"{hint[0]} {hint[1]}  ")

    if sum(map(cells, hints)) <= width:
        return hints
    kept = [h for h in hints if h[0] == _ALWAYS]
    room = width - sum(map(cells, kept))
    shown: list[tuple[str, str]] = []
    for hint in hints:
        if hint[0] != _ALWAYS and cells(hint) <= room:
            shown.append(hint)
            room -= cells(hint)
        elif hint[0] != _ALWAYS:
            break
    return [*shown, *kept] if room >= 0 else shown


class KeyHints(Static):
    """The key hints, as many as fit its width (it gets what the status leaves)."""

    def render(self) -> Content:
        return hints_content(self.content_size.width or None)


def status_content(
    status: IndexStatus | None,
    kind_label: str,
    error: str | None = None,
    note: str | None = None,
    lane: str | None = None,
    suggestion: str | None = None,
) -> Content:
    """The right-hand status: kind mode, docs, pending sources, indexing / degraded markers;
    ``note`` (``opening…``) stands in for the status while there is none; ``lane`` (the lane the
    palette was started in) is a badge naming the key that filters to it; ``suggestion`` is the
    engine's "did you mean …?" for a query that found nothing."""
    parts: list[tuple[str, str] | str] = []
    if lane is not None:
        parts += [("^l", "bold $text-accent"), (f" lane:{lane} ", "$text-muted")]
    parts.append((f"[{kind_label}] ", "$text-muted"))
    if suggestion and not error:
        parts.append((f"{suggestion}  ", "bold $text-warning"))
    if error:
        parts.append((f"⚠ {error}", "bold $text-error"))
        return Content.assemble(*parts)
    if status is None:
        parts.append((note or "index …", "$text-muted"))
        return Content.assemble(*parts)
    parts.append(f"{status.doc_count} docs")
    if status.pending_sources:
        parts.append((f" · {status.pending_sources} pending", "$text-muted"))
    if status.state in {"indexing", "rebuilding"}:
        parts.append((f" · {status.state}…", "bold $text-accent"))
    if status.state == "degraded" or status.watcher_state in {"degraded", "polling", "failed"}:
        parts.append((f" · ⚠ watcher {status.watcher_state}", "bold $text-warning"))
    elif status.watcher_state not in {"off", ""}:
        parts.append((f" · {status.watcher_state}", "$text-muted"))
    return Content.assemble(*parts)


class StatusBar(Horizontal):
    """Footer row; shows a progress bar while the index is being rebuilt (mounted on first use:
    the progress bar's widgets and styles cost the palette's first paint)."""

    def compose(self) -> ComposeResult:
        yield KeyHints(id="hints")
        yield Static("", id="status")

    def show_status(
        self,
        status: IndexStatus | None,
        kind_label: str,
        error: str | None,
        *,
        note: str | None = None,
        lane: str | None = None,
        suggestion: str | None = None,
    ) -> None:
        """Repaint the status text."""
        content = status_content(status, kind_label, error, note, lane, suggestion)
        self.query_one("#status", Static).update(content)

    def show_progress(self, done: int, total: int | None) -> None:
        """Show (or with ``total`` None after completion, hide) the rebuild progress bar."""
        from textual.widgets import ProgressBar

        bars = self.query("#rebuild-progress").results(ProgressBar)
        bar = next(bars, None)
        if total is None:
            if bar is not None:
                bar.display = False
            return
        if bar is None:
            bar = ProgressBar(total=None, show_eta=False, id="rebuild-progress")
            self.mount(bar, before="#status")
        bar.display = True
        bar.update(total=max(total, 1), progress=done)
