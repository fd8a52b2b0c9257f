"""Key → action mapping of the palette screen, as plain data so it is testable without a terminal
(atuin's model) and the footer and help screen are generated from the same table."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class KeyBinding:
    """One key of the palette: what it does and how the footer names it."""

    key: str
    action: str
    label: str
    show: bool = True


PALETTE_KEYS: tuple[KeyBinding, ...] = (
    KeyBinding("enter", "activate", "open"),
    KeyBinding("escape", "cancel", "close"),
    # Over the input's own Ctrl+C (copy, and the initial query is selected): cancel, like fzf.
    KeyBinding("ctrl+c", "app.interrupt", "cancel", show=False),
    KeyBinding("down", "cursor_down", "next", show=False),
    KeyBinding("up", "cursor_up", "previous", show=False),
    KeyBinding("ctrl+n", "cursor_down", "next", show=False),
    KeyBinding("ctrl+p", "cursor_up", "previous", show=False),
    KeyBinding("pagedown", "page_down", "page down", show=False),
    KeyBinding("pageup", "page_up", "page up", show=False),
    # The last hit, every page loaded first (every hit reachable); the caret's End while it is mid-text.
    KeyBinding("end", "last", "last hit", show=False),
    KeyBinding("tab", "next_kind", "kind"),
    KeyBinding("shift+tab", "previous_kind", "kind", show=False),
    KeyBinding("f2", "toggle_preview", "preview"),
    KeyBinding("ctrl+y", "copy_link", "copy link"),
    KeyBinding("ctrl+r", "resume", "resume chat", show=False),
    KeyBinding("f1", "help", "help"),
    KeyBinding("ctrl+q", "quit", "quit"),
)
"""The palette's keys. Ctrl+P/N move like fzf and Emacs; F-keys avoid clashing with the Input."""


def footer_hints() -> list[tuple[str, str]]:
    """(key, label) pairs shown in the footer, in table order."""
    return [(binding.key, binding.label) for binding in PALETTE_KEYS if binding.show]
