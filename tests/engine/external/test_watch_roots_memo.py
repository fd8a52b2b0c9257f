"""The watcher asks for every agent's folders at each poll (``ExternalCatalog.watch_roots``,
four times a second): they are remembered under what decides them (``places_signature``), and
a change to any of it (a settings file moving a storage, the environment) names them anew."""

from __future__ import annotations

import json
from pathlib import Path

from engine.external.catalog import ExternalCatalog
from engine.project.locate import open_project


def test_the_remembered_watch_roots_follow_the_settings_and_the_environment(
    repo: Path, tmp_path: Path
) -> None:
    project = open_project(repo)
    settings = tmp_path / "appdata" / "Code" / "User" / "settings.json"
    settings.parent.mkdir(parents=True)
    env = {"HOME": str(tmp_path / "user"), "VSCODE_APPDATA": str(tmp_path / "appdata")}
    catalog = ExternalCatalog(project, env)
    first = catalog.watch_roots()
    assert catalog.watch_roots() == first == ExternalCatalog(project, dict(env)).watch_roots()

    moved = tmp_path / "roo-moved"
    settings.write_text(json.dumps({"roo-cline.customStoragePath": str(moved)}))
    after_settings = catalog.watch_roots()  # a settings file written: Roo's tasks moved
    assert [r for r in after_settings if moved in r.parents] == [moved / "tasks"]
    assert after_settings == ExternalCatalog(project, dict(env)).watch_roots()

    claude = tmp_path / "claude-home"
    env["CLAUDE_CONFIG_DIR"] = str(claude)  # the same mapping, changed in place
    assert claude / "projects" in catalog.watch_roots()
    catalog.environ = {"HOME": str(tmp_path / "other")}  # a daemon's caller's environment
    assert Path(tmp_path / "other", ".codex", "sessions") in catalog.watch_roots()
