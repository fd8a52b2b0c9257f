"""``ade import --remove ID``: delete exactly what an import wrote.

An import writes ``.ade/terminals/<id>.log`` and ``.ade/sessions/<id>.json`` (a compactor may
later have turned the log into ``<id>.log.gz``). Only a session whose record says
``"source": "import"`` is removed — ``ade term`` recordings and chats are never touched. Its docs
leave the index on the next run (the reconcile drops docs of sessions that no longer exist).
"""

from __future__ import annotations

from pathlib import Path

from engine.errors import UsageError
from engine.importers.store import session_json_path, terminal_log_path
from engine.project.fields import read_json_object
from engine.project.model import Project, is_valid_session_id
from engine.project.tally import WarningTally


def remove_import(project: Project, sid: str, *, check_only: bool = False) -> list[Path]:
    """Delete an imported session's files and return the paths removed: the logs first, the
    record last, so a half-done removal still leaves a session that can be removed again.

    Raises:
        UsageError: ``sid`` is not a session id, names no session, or one not made by import
            (``check_only``: only this check, nothing is deleted).
    """
    if not is_valid_session_id(sid):
        raise UsageError(f"not a session id: {sid!r}")
    meta = session_json_path(project, sid)
    record = read_json_object(meta, WarningTally(), "import")
    if record is None:
        raise UsageError(f"no imported session {sid!r} in {project.root}")
    if record.get("source") != "import" or record.get("kind") != "terminal":
        raise UsageError(f"session {sid!r} was not created by ade import; not removed")
    if check_only:
        return []
    log = terminal_log_path(project, sid)
    removed: list[Path] = []
    for path in (log, log.with_name(log.name + ".gz"), meta):
        try:
            path.unlink()
        except FileNotFoundError:
            continue
        removed.append(path)
    return removed
