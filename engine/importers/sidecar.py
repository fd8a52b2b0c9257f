"""``<recording>.meta.json``: a title and a lane for ``ade import`` kept beside the recording.

``{"title": "nightly build", "lane": "feature-x"}`` — both optional; ``--title`` and ``--lane``
win over it. A sidecar that is there but unreadable or malformed is an error (exit 2): silently
importing under the wrong title or lane would be worse.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from engine.importers.recording import RecordingError
from engine.project.fields import read_json_object
from engine.project.tally import WarningTally

SIDECAR_SUFFIX = ".meta.json"


@dataclass(frozen=True, slots=True)
class Sidecar:
    title: str | None = None
    lane: str | None = None


def sidecar_path(recording: Path) -> Path:
    """``run.log`` → ``run.log.meta.json``; ``run.log.gz`` → ``run.log.gz.meta.json`` when
    there is one, else ``run.log.meta.json`` (the sidecar written before compressing)."""
    own = recording.with_name(recording.name + SIDECAR_SUFFIX)
    if recording.name.endswith(".gz") and not own.exists():
        return recording.with_name(recording.name.removesuffix(".gz") + SIDECAR_SUFFIX)
    return own


def read_sidecar(recording: Path) -> Sidecar:
    """The sidecar of ``recording``, or an empty one when there is none.

    Raises:
        RecordingError: the sidecar exists but is not a JSON object of optional strings.
    """
    path = sidecar_path(recording)
    if not path.exists() and not path.is_symlink():
        return Sidecar()
    tally = WarningTally()
    record = read_json_object(path, tally, "sidecar")
    if record is None:
        reason = next(iter(tally.reasons("sidecar")), "unreadable")
        raise RecordingError(f"{path.name}: {reason}")
    values: dict[str, str | None] = {}
    for key in ("title", "lane"):
        value = record.get(key)
        if value is not None and (not isinstance(value, str) or not value.strip()):
            raise RecordingError(f"{path.name}: {key!r} must be a non-empty string")
        values[key] = value.strip() if isinstance(value, str) else None
    return Sidecar(title=values["title"], lane=values["lane"])
