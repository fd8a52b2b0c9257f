"""Prompt marks for the shells ``ade term`` starts (docs/terminal.md): bash and zsh, through their hooks.

Plain bash and zsh emit no OSC 133 marks, so a whole ``ade term`` session was one "bash shell"
hit. For an interactive bash or zsh (no command given), ``ade term`` starts the shell with a
startup file of ours that runs the user's own first and then hooks the prompt: bash through
``--rcfile`` (``PROMPT_COMMAND`` and ``PS0``), zsh through ``ZDOTDIR`` (``precmd`` and
``preexec``). The files live beside this module (``shell/``). Other shells run as they are
(fish 4 emits the marks itself).
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path

from engine.importers.recording import program_name

SHELL_FILES = Path(__file__).with_name("shell")
"""``ade.bash`` (bash's rcfile), ``zshenv.zsh`` and ``zshrc.zsh`` (zsh's ``.zshenv``/``.zshrc``)."""

SUPPORTED = ("bash", "zsh")


def integrates(argv: Sequence[str]) -> bool:
    """Whether ``argv`` is a bare interactive bash or zsh, which ``integrated`` can hook."""
    return len(argv) == 1 and program_name(argv[0]) in SUPPORTED


@contextmanager
def integrated(
    argv: Sequence[str], env: Mapping[str, str]
) -> Iterator[tuple[list[str], dict[str, str]]]:
    """``argv`` and ``env`` with the prompt hooks added when ``integrates(argv)``, else as given.

    zsh reads its startup files from ``ZDOTDIR`` by their dot names, so a temporary folder holds
    ours under those names for the life of the shell; the user's own ``ZDOTDIR`` (or ``HOME``)
    is passed on in ``ADE_USER_ZDOTDIR`` and restored by our ``.zshrc``.
    """
    out_env = dict(env)
    if not integrates(argv):
        yield list(argv), out_env
        return
    if program_name(argv[0]) == "bash":
        yield [argv[0], "--rcfile", str(SHELL_FILES / "ade.bash")], out_env
        return
    folder = Path(tempfile.mkdtemp(prefix="ade-zsh-"))
    try:
        shutil.copyfile(SHELL_FILES / "zshenv.zsh", folder / ".zshenv")
        shutil.copyfile(SHELL_FILES / "zshrc.zsh", folder / ".zshrc")
        out_env["ADE_USER_ZDOTDIR"] = (
            env.get("ZDOTDIR") or env.get("HOME") or os.path.expanduser("~")
        )
        out_env["ZDOTDIR"] = str(folder)
        yield list(argv), out_env
    finally:
        shutil.rmtree(folder, ignore_errors=True)
