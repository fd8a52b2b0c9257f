"""Where the VS Code agents (Cline, Roo Code, the Cursor editor) are read without
``VSCODE_APPDATA``: where VS Code itself puts its user data (``userDataPath.ts``) — on Linux
``$XDG_CONFIG_HOME``, else ``~/.config``; on macOS ``~/Library/Application Support``."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from engine.external.registry import agent_format

VSCODE_AGENTS = ("cline", "roo", "cursor-ide")


@pytest.mark.parametrize("name", VSCODE_AGENTS)
def test_linux_follows_xdg_config_home(name: str, tmp_path: Path) -> None:
    if sys.platform == "darwin":
        pytest.skip("the Linux default")
    config = tmp_path / "xdg-config"
    folders = agent_format(name).session_folders(
        {"HOME": str(tmp_path / "home"), "XDG_CONFIG_HOME": str(config)}
    )
    assert folders
    assert all(config in f.parents for f in folders), folders
    plain = agent_format(name).session_folders({"HOME": str(tmp_path / "home")})
    assert all(tmp_path / "home" / ".config" in f.parents for f in plain), plain


@pytest.mark.parametrize("name", VSCODE_AGENTS)
def test_macos_reads_application_support(
    name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys, "platform", "darwin")
    home = tmp_path / "home"
    folders = agent_format(name).session_folders({"HOME": str(home)})
    support = home / "Library" / "Application Support"
    assert folders
    assert all(support in f.parents for f in folders), folders


@pytest.mark.parametrize("name", VSCODE_AGENTS)
def test_vscode_appdata_wins(name: str, tmp_path: Path) -> None:
    moved = tmp_path / "appdata"
    env = {"HOME": str(tmp_path / "home"), "VSCODE_APPDATA": str(moved),
           "XDG_CONFIG_HOME": str(tmp_path / "xdg")}  # fmt: skip
    assert all(moved in f.parents for f in agent_format(name).session_folders(env))
