from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from engine.project.artifacts import list_artifacts
from engine.project.model import Artifact, Project
from engine.project.tally import WarningTally

ART: dict[str, Any] = {
    "id": "shot1",
    "title": "Login page",
    "kind": "screenshot",
    "path": "shot1.png",
    "laneId": "primary",
    "sessionId": "s1",
    "createdAt": "2026-05-03T08:00:00+00:00",
}


def _write(project: Project, write_json: Any, name: str, value: Any) -> None:
    write_json(project.ade_dir / "artifacts" / f"{name}.json", value)


def test_reads_artifact(project: Project, write_json: Any, tally: WarningTally) -> None:
    _write(project, write_json, "shot1", ART)
    _write(project, write_json, "rep", {**ART, "id": "rep", "path": "./sub/../rep.html"})
    assert list_artifacts(project, tally) == [
        Artifact("rep", "Login page", "screenshot", "rep.html", "primary", "s1", _when()),
        Artifact("shot1", "Login page", "screenshot", "shot1.png", "primary", "s1", _when()),
    ]
    assert tally.total() == 0


def _when() -> datetime:
    return datetime(2026, 5, 3, 8, tzinfo=UTC)


@pytest.mark.parametrize(
    "path",
    ["../../etc/passwd", "/etc/passwd", "sub/../../x", "", ".", "a\x00b", "../artifacts-evil/x"],
)
def test_paths_outside_artifacts_refused(
    project: Project, write_json: Any, tally: WarningTally, path: str
) -> None:
    _write(project, write_json, "shot1", {**ART, "path": path})
    assert list_artifacts(project, tally) == []
    assert tally.snapshot() == {"artifacts": 1}


def test_symlink_out_refused(
    project: Project, write_json: Any, tally: WarningTally, tmp_path: Path
) -> None:
    _write(project, write_json, "shot1", {**ART, "path": "link.png"})
    secret = tmp_path / "secret.png"
    secret.write_bytes(b"x")
    (project.ade_dir / "artifacts" / "link.png").symlink_to(secret)
    assert list_artifacts(project, tally) == []
    assert tally.snapshot() == {"artifacts": 1}


@pytest.mark.parametrize(
    "patch",
    [
        {"createdAt": "2026-05-03T08:00:00+25:00"},
        {"sessionId": "../s"},
        {"id": "other"},
        {"path": 3},
    ],
)
def test_bad_fields_counted(
    project: Project, write_json: Any, tally: WarningTally, patch: dict[str, Any]
) -> None:
    _write(project, write_json, "shot1", {**ART, **patch})
    assert list_artifacts(project, tally) == []
    assert tally.snapshot() == {"artifacts": 1}


def test_bad_json_and_bad_name(project: Project, write_json: Any, tally: WarningTally) -> None:
    _write(project, write_json, "shot1", "{")
    _write(project, write_json, "bad name", {**ART, "id": "bad name"})
    assert list_artifacts(project, tally) == []
    assert tally.snapshot() == {"artifacts": 2}


def test_no_artifacts_folder(project: Project, tally: WarningTally) -> None:
    assert list_artifacts(project, tally) == []
    assert tally.total() == 0
