"""``agent_places`` remembers each agent's folders joined to a home (the manifest asks for
them on every search, the daemon's on every answer): the answer is the one computed afresh,
whatever the environment names."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.agent_table import AGENTS
from engine.external import roots


def _fresh(name: str, environ: dict[str, str]) -> list[tuple[str, int, bool, Path]]:
    roots._HOME_PLACES.clear()
    roots._USER_DATA.clear()
    return _plain(roots.agent_places(name, environ))


def _plain(places: list[tuple[roots.Folder, Path]]) -> list[tuple[str, int, bool, Path]]:
    return [(folder.path, folder.depth, folder.per_lane, path) for folder, path in places]


@pytest.mark.parametrize("name", [agent.name for agent in AGENTS])
def test_the_remembered_places_are_the_fresh_ones(
    name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    line = roots.entry(name)
    environs: list[dict[str, str]] = [
        {"HOME": str(tmp_path / "a")},
        {"HOME": str(tmp_path / "b")},
        {"HOME": str(tmp_path / "a"), "XDG_CONFIG_HOME": str(tmp_path / "xdg")},
        {},  # no HOME: the process's
        {"HOME": str(tmp_path / "a"), "VSCODE_PORTABLE": str(tmp_path / "portable")},
        {"HOME": str(tmp_path / "a"), "APPDATA": str(tmp_path / "appdata")},
    ]
    if line.variable:
        environs.append({"HOME": str(tmp_path / "a"), line.variable: str(tmp_path / "moved")})
        environs.append({"HOME": str(tmp_path / "a"), line.variable: ""})
    monkeypatch.setenv("HOME", str(tmp_path / "process-home"))
    expected = [_fresh(name, environ) for environ in environs]
    roots._HOME_PLACES.clear()
    roots._USER_DATA.clear()
    for _ in range(2):  # remembered the first time round, answered from memory the second
        assert [_plain(roots.agent_places(name, env)) for env in environs] == expected
    monkeypatch.setenv("HOME", str(tmp_path / "another-process-home"))
    assert _plain(roots.agent_places(name, {})) == _fresh(name, {})
    if line.folders and line.editors:  # the platform decides where VS Code keeps its data
        environ = {"HOME": str(tmp_path / "a")}
        monkeypatch.setattr(roots.sys, "platform", "darwin")
        darwin = _plain(roots.agent_places(name, environ))
        assert darwin == _fresh(name, environ)
        monkeypatch.undo()
        assert _plain(roots.agent_places(name, environ)) != darwin
        monkeypatch.setenv("HOME", str(tmp_path / "another-process-home"))
    if line.folders:  # Aider keeps no session folder
        assert _plain(roots.agent_places(name, {})) != expected[3]
