"""The cyclic garbage collector held off during a command's start-up (the start-up budget).

Importing the ~220 modules of a warm ``ade search`` allocates enough container objects to run
two dozen young and two middle-generation collections, each walking what the imports built
(5-10 ms of a ~100 ms process under load). ``main_entry`` holds the collector before the
command's imports; once they are done (the command is chosen and, for a search, the index is
open) the survivors are frozen, so later collections never walk them, and the collector runs
again for whatever the command does next: a catch-up's ingestion, the palette, the daemon.
"""

# warm path: a warm `ade search` imports this; keep its imports light (ARCHITECTURE: The warm path)

from __future__ import annotations

import gc

_held = False


def hold() -> None:
    """Stop automatic collections until ``release`` (the console-script entry only)."""
    global _held
    if gc.isenabled():
        gc.disable()
        _held = True


def release() -> None:
    """Freeze what start-up built and collect again; a no-op unless ``hold`` stopped it."""
    global _held
    if _held:
        _held = False
        gc.freeze()
        gc.enable()
