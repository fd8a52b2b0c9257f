"""What the watcher arms on, and when it must arm again (docs/watching.md).

An inotify watch follows an inode, not a name: a folder that does not exist yet cannot be
watched, and a folder deleted and made again is a new inode the old watch never sees. Agent
tools make their folders lazily (``~/.claude/projects/<slug>`` on the first session in a
folder, ``~/.codex/sessions/YYYY/MM/DD`` each day, Gemini's, OpenCode's and Copilot's on first
use), often after the daemon opened the project. So every root the watcher should follow is
named whether it exists or not; the ones that exist are watched, and the identity of all of
them (missing, or device and inode) is stat-polled every ``POLL_MS``: a handful of ``stat``
calls four times a second. When the identity changes the watcher re-arms and asks for a
reconcile, which ingests whatever the new folder already holds.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

POLL_MS = 250
"""How often the roots' identity is checked: well inside the chat debounce (300 ms) that a new
line waits anyway, and a few ``stat`` calls each time."""

Identity = tuple[int, int] | None
"""A root's ``(st_dev, st_ino)``, None while it is missing or not a folder."""


def identity(path: Path) -> Identity:
    """The folder ``path`` is now, or None when there is no folder there."""
    try:
        found = os.stat(path)
    except OSError:
        return None
    return (found.st_dev, found.st_ino) if stat.S_ISDIR(found.st_mode) else None


@dataclass(frozen=True)
class WatchPlan:
    """The roots one arming follows: ``watched`` exist now, ``waiting`` do not (yet)."""

    roots: tuple[Path, ...]
    identities: tuple[Identity, ...]

    @property
    def watched(self) -> list[Path]:
        return [
            p for p, ident in zip(self.roots, self.identities, strict=True) if ident is not None
        ]

    @property
    def waiting(self) -> list[Path]:
        return [p for p, ident in zip(self.roots, self.identities, strict=True) if ident is None]

    def changed(self) -> bool:
        """Whether a root appeared, vanished or was replaced since the plan was made."""
        return any(
            identity(p) != ident for p, ident in zip(self.roots, self.identities, strict=True)
        )


def plan(roots: Iterable[Path]) -> WatchPlan:
    """A plan over ``roots`` (duplicates and roots inside another root dropped: one recursive
    watch already covers them, and two would report each change twice)."""
    unique = list(dict.fromkeys(roots))
    # A root's ancestors are walked once, each looked up in a set: testing every other root
    # against ``r.parents`` (a sequence whose items are made one by one) made ~12,000 paths
    # for a daemon's ~42 roots, ~20 ms of CPU at each arming.
    named = set(unique)
    kept = tuple(r for r in unique if named.isdisjoint(r.parents))
    return WatchPlan(kept, tuple(identity(r) for r in kept))
