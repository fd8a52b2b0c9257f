"""Proof artifacts: ``.ade/artifacts/<artifactId>.json`` (DESIGN §2).

An artifact's ``path`` names a file beside its metadata. It is resolved (symlinks too) and must
stay inside ``.ade/artifacts/``: an absolute path, ``..`` or a symlink out is refused and counted,
so a query-time delegate never opens a file elsewhere (RELIABILITY item 24).
"""

# warm path: a warm `ade search` imports this; keep its imports light (ARCHITECTURE: The warm path)

from __future__ import annotations

from pathlib import Path
from typing import Any

from engine.project.bounds import project_bounds
from engine.project.fields import FieldError, opt_str, read_json_object, req_str, req_time
from engine.project.model import Artifact, Project, is_valid_session_id
from engine.project.tally import WarningTally

ARTIFACTS_SOURCE = "artifacts"
"""Tally key for artifact metadata problems."""


def list_artifacts(project: Project, tally: WarningTally) -> list[Artifact]:
    """Every valid artifact, sorted by id; bad records and escaping paths are counted."""
    folder = project.ade_dir / "artifacts"
    try:
        entries = sorted(folder.iterdir())
        real_folder = folder.resolve(strict=True)
    except FileNotFoundError:
        return []
    except OSError as err:
        tally.add(ARTIFACTS_SOURCE, f"unreadable artifacts folder: {err.strerror or err}")
        return []
    artifacts: list[Artifact] = []
    for entry in entries:
        if entry.suffix != ".json" or not entry.is_file():
            continue
        if not is_valid_session_id(entry.stem):
            tally.add(ARTIFACTS_SOURCE, "invalid artifact id in file name")
            continue
        record = read_json_object(entry, tally, ARTIFACTS_SOURCE, project_bounds(project.root))
        if record is None:
            continue
        try:
            artifacts.append(artifact_from_record(record, entry.stem, real_folder))
        except FieldError as err:
            tally.add(ARTIFACTS_SOURCE, f"{entry.name}: {err}")
    return artifacts


def artifact_from_record(record: dict[str, Any], artifact_id: str, real_folder: Path) -> Artifact:
    """Validate one record; ``path`` comes back relative to the artifacts folder (POSIX form).

    Raises:
        FieldError: a field is missing or mistyped, or ``path`` leaves the artifacts folder.
    """
    if record.get("id", artifact_id) != artifact_id:
        raise FieldError("id: does not match the file name")
    session_id = opt_str(record, "sessionId")
    if session_id is not None and not is_valid_session_id(session_id):
        raise FieldError("sessionId: not a valid session id")
    return Artifact(
        id=artifact_id,
        title=opt_str(record, "title", "") or artifact_id,
        kind=opt_str(record, "kind", "") or "file",
        path=contained_path(real_folder, req_str(record, "path")),
        lane_id=opt_str(record, "laneId") or None,
        session_id=session_id or None,
        created_at=req_time(record, "createdAt"),
    )


def contained_path(real_folder: Path, raw: str) -> str:
    """``raw`` resolved against ``real_folder`` (already resolved), relative and POSIX.

    Raises:
        FieldError: empty, NUL, or the resolved path is not strictly inside ``real_folder``.
    """
    if not raw or "\0" in raw:
        raise FieldError("path: empty or contains NUL")
    try:
        resolved = (real_folder / raw).resolve()
    except (OSError, RuntimeError) as err:  # a symlink loop
        raise FieldError(f"path: cannot resolve ({err})") from None
    # Path.is_relative_to compares components, so "<folder>-evil" is not inside "<folder>".
    if resolved == real_folder or not resolved.is_relative_to(real_folder):
        raise FieldError("path: leaves the artifacts folder")
    return resolved.relative_to(real_folder).as_posix()
