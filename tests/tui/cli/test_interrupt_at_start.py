"""Ctrl+C that lands before a command's own handler runs still ends quietly with 130."""

from __future__ import annotations

import builtins
import sys
from typing import Any

import pytest

from tui import cli


def test_ctrl_c_while_a_command_is_imported_exits_130_without_a_traceback(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    real_import = builtins.__import__

    def interrupted(name: str, *args: Any, **kwargs: Any) -> object:
        if name == "tui.commands.search":
            raise KeyboardInterrupt
        return real_import(name, *args, **kwargs)

    # The import of the chosen command is where a slow start is most likely interrupted.
    monkeypatch.setattr(builtins, "__import__", interrupted)
    monkeypatch.setattr(sys, "argv", ["ade", "search", "anything"])
    with pytest.raises(SystemExit) as exited:
        cli.main_entry()
    assert exited.value.code == 130
    assert capsys.readouterr().err == ""
