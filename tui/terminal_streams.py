"""Find a terminal for the palette before Textual takes over, or say there is none.

Textual reads keys from file descriptor 0 and draws on descriptor 2. With ``</dev/null``, a pipe
(``echo | ade``) or no controlling terminal (``setsid``, an agent's shell), its input loop reads
end-of-file over and over: the process spins at 100% CPU and never exits. Like fzf, the palette
borrows ``/dev/tty`` for whichever of the two is not a terminal (so ``x=$(ade palette --print)``
and ``… | ade`` work from a shell), and when that cannot be opened it refuses at once.
"""

from __future__ import annotations

import os

from engine.errors import UsageError

TTY = "/dev/tty"

INSTEAD = "search without it: `ade search QUERY` (add --json for scripts)"


def _is_terminal(fd: int) -> bool:
    try:
        return os.isatty(fd)
    except OSError:
        return False  # a closed descriptor: nothing to draw on either


def ensure_terminal(tty: str = TTY) -> None:
    """Make descriptors 0 (keys) and 2 (drawing) terminals, borrowing ``tty`` where needed.

    Raises:
        UsageError: neither the descriptor nor ``tty`` is a usable terminal (exit 2), with
            what to run instead.
    """
    missing = [fd for fd in (0, 2) if not _is_terminal(fd)]
    if not missing:
        return
    try:
        borrowed = os.open(tty, os.O_RDWR | os.O_NOCTTY)
    except OSError as err:
        which = "input" if 0 in missing else "output"
        reason = err.strerror or str(err)
        raise UsageError(
            f"no terminal for the palette ({which} is not a terminal and {tty}: {reason}); "
            f"{INSTEAD}"
        ) from None
    try:
        if not os.isatty(borrowed):
            raise UsageError(f"no terminal for the palette ({tty} is not a terminal); {INSTEAD}")
        for fd in missing:
            os.dup2(borrowed, fd)
    finally:
        os.close(borrowed)
