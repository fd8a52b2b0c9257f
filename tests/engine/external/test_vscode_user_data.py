"""Where the VS Code agents (Cline, Roo Code, the Cursor editor) are read: where VS Code itself
puts its user data (``userDataPath.ts``) — a portable install's ``$VSCODE_PORTABLE/user-data``
first, then ``$VSCODE_APPDATA/<product>``, else on Linux ``$XDG_CONFIG_HOME``, else
``~/.config``; on macOS ``~/Library/Application Support``; on Windows ``%APPDATA%``, else
``%USERPROFILE%/AppData/Roaming`` — for each product (VS Code, its builds and forks)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from engine.external.registry import agent_format
from engine.external.roots import agent_folders

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


TASK_AGENTS = ("cline", "roo")
STORAGE = {"cline": "saoudrizwan.claude-dev", "roo": "rooveterinaryinc.roo-cline"}


@pytest.mark.parametrize("name", TASK_AGENTS)
def test_a_portable_install_is_read_first(name: str, tmp_path: Path) -> None:
    # userDataPath.ts: $VSCODE_PORTABLE/user-data before $VSCODE_APPDATA and the defaults
    portable, moved = tmp_path / "VSCode-linux-x64" / "data", tmp_path / "appdata"
    env = {"HOME": str(tmp_path / "home"), "VSCODE_APPDATA": str(moved),
           "VSCODE_PORTABLE": str(portable)}  # fmt: skip
    folders = agent_format(name).session_folders(env)
    storage = portable / "user-data" / "User" / "globalStorage" / STORAGE[name]
    assert folders[0] == storage / "tasks"
    assert moved / "Code" / "User" / "globalStorage" / STORAGE[name] / "tasks" in folders
    assert agent_format(name).owns(storage / "tasks" / "1" / "ui_messages.json", env)


def test_the_cursor_editor_is_not_read_from_another_products_portable_data(
    tmp_path: Path,
) -> None:
    env = {"HOME": str(tmp_path / "home"), "VSCODE_APPDATA": str(tmp_path / "appdata"),
           "VSCODE_PORTABLE": str(tmp_path / "portable")}  # fmt: skip
    folders = agent_format("cursor-ide").session_folders(env)
    assert folders == [tmp_path / "appdata" / "Cursor" / "User" / s
                       for s in ("globalStorage", "workspaceStorage")]  # fmt: skip


@pytest.mark.parametrize("name", VSCODE_AGENTS)
def test_windows_reads_appdata_else_the_profiles_roaming_folder(name: str, tmp_path: Path) -> None:
    product = "Cursor" if name == "cursor-ide" else "Code"
    roaming = tmp_path / "Users" / "ana" / "AppData" / "Roaming"
    env = {"APPDATA": str(roaming), "XDG_CONFIG_HOME": str(tmp_path / "xdg"),
           "HOME": str(tmp_path / "home")}  # fmt: skip
    folders = agent_folders(name, env, platform="win32")
    assert folders[0].is_relative_to(roaming / product), folders
    assert all(roaming in f.parents for f in folders), folders
    profile = {"USERPROFILE": str(tmp_path / "Users" / "ana")}
    assert agent_folders(name, profile, platform="win32") == folders
    moved = {**env, "VSCODE_APPDATA": str(tmp_path / "moved")}
    assert all(tmp_path / "moved" in f.parents for f in agent_folders(name, moved, "win32"))


def test_the_forks_are_read_under_their_product_folders(tmp_path: Path) -> None:
    # Each product names its user data after its nameShort (src/main.ts getUserDataPath)
    env = {"HOME": str(tmp_path / "home"), "VSCODE_APPDATA": str(tmp_path / "appdata")}
    for name in TASK_AGENTS:
        folders = agent_format(name).session_folders(env)
        for product in ("Code", "Code - Insiders", "Code - OSS", "VSCodium", "Cursor", "Windsurf"):
            tasks = tmp_path / "appdata" / product / "User" / "globalStorage" / STORAGE[name]
            assert tasks / "tasks" in folders, (name, product)
